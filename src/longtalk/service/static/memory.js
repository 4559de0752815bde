// What the memory keeps beyond the messages: durable facts, the user's memory, summary costs.
import { $, apiOptional, chatPath, count, el, empty, when } from "./api.js";

const itemsOf = (data) => (Array.isArray(data) ? data : data.items || data.facts || []);

function sourceLinks(sequences, reveal) {
  return (sequences || []).map((sequence) => {
    const link = el("a", { href: `#m${sequence}`, class: "source", "data-sequence": sequence }, `#${sequence}`);
    link.addEventListener("click", (event) => { event.preventDefault(); reveal(sequence); });
    return link;
  });
}

function factItem(fact, reveal) {
  const sources = sourceLinks(fact.sequences, reveal);
  const said = when(fact.said_at || fact.timestamp);
  return el("li", { class: "fact", "data-kind": fact.kind || "" },
    fact.kind ? el("span", { class: `badge fact-${fact.kind}` }, fact.kind) : "",
    el("span", { class: "fact-text" }, fact.text || fact.fact || JSON.stringify(fact)),
    sources.length || said
      ? el("span", { class: "meta" }, sources.length ? ["said in ", ...sources] : "", said ? ` · ${said}` : "")
      : "");
}

// The chat's durable facts (GET /chats/{id}/facts); the panel is hidden where there is none.
export async function loadFacts(chatId, reveal, current) {
  const data = await apiOptional(chatPath(chatId, "/facts"));
  if (!current(chatId)) return;
  $("#facts-panel").hidden = data === null;
  if (data === null) return;
  const facts = itemsOf(data);
  $("#facts-count").textContent = facts.length ? `(${facts.length})` : "";
  $("#facts").replaceChildren(...(facts.length ? facts.map((f) => factItem(f, reveal)) : [empty("No durable facts yet.")]));
}

const USER_KINDS = [["profile", "Profile"], ["preference", "Preferences"], ["fact", "Facts"]];

function userItem(item, chatId) {
  const [first, last] = item.messages || [0, 0];
  const messages = first === last ? `message ${first}` : `messages ${first}–${last}`;
  let origin = "stored by the application";
  if (item.origin === "derived") {
    origin = item.chat_id === chatId ? `from this chat, ${messages}` : `from chat ${item.chat_id}, ${messages}`;
  }
  return el("li", { class: "user-item", "data-kind": item.kind },
    el("span", {}, item.text), el("span", { class: "meta" }, ` · ${origin}`));
}

// What is known about the chat's user across chats (GET /users/{user}/memory).
export async function loadUserMemory(chat, current) {
  const panel = $("#user-panel");
  panel.hidden = !chat.user;
  if (!chat.user) return;
  $("#user-name").textContent = chat.user;
  const data = await apiOptional(`/users/${encodeURIComponent(chat.user)}/memory`);
  if (!current(chat.id)) return;
  if (data === null) { panel.hidden = true; return; }
  const items = itemsOf(data);
  const groups = USER_KINDS.map(([kind, title]) => [title, items.filter((item) => item.kind === kind)])
    .filter(([, found]) => found.length)
    .map(([title, found]) => el("div", { class: "section" }, el("h3", {}, title),
      el("ul", {}, ...found.map((item) => userItem(item, chat.id)))));
  $("#user-memory").replaceChildren(...(groups.length ? groups : [empty("Nothing known about this user yet.")]));
}

const COSTS = [
  ["summary_calls", "Model calls", count], ["summary_input_tokens", "Input tokens", count],
  ["summary_output_tokens", "Output tokens", count], ["summary_failures", "Failures", count],
  ["retry_at", "Next retry", when],
];

// Calls that counted no tokens were the offline summarizer's: no model read or wrote anything.
const OFFLINE = "offline (no model)";
const offline = (chat) => chat.summary_calls > 0 && !chat.summary_input_tokens && !chat.summary_output_tokens;

// What summarizing this chat has cost, when the server reports it on GET /chats/{id}.
export function showCost(chat) {
  const rows = COSTS.filter(([key]) => chat[key] !== undefined && chat[key] !== null)
    .map(([key, title, format]) => (offline(chat) && key.endsWith("_tokens") ? [key, title, () => OFFLINE] : [key, title, format]));
  $("#cost-panel").hidden = rows.length === 0;
  $("#summary-cost").replaceChildren(...rows.flatMap(([key, title, format]) => [
    el("dt", {}, title), el("dd", { "data-field": key }, format(chat[key]))]));
}
