// longtalk web view: plain JS, no build step. Hash routes: #/ (chat list), #/chats/<id>.
"use strict";

const PAGE = 50;
const state = { offset: 0, events: null, chatId: null, lastSequence: 0 };
const $ = (selector) => document.querySelector(selector);

function apiKey() { return localStorage.getItem("longtalk.apiKey") || ""; }

// GET `path`, or POST `body` as JSON to it.
async function api(path, body) {
  const headers = apiKey() ? { "X-API-Key": apiKey() } : {};
  const init = { headers };
  if (body !== undefined) {
    Object.assign(init, { method: "POST", body: JSON.stringify(body) });
    headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, init);
  if (response.status === 401) { $("#key-form").hidden = false; throw new Error("API key needed"); }
  if (!response.ok) { throw new Error(`${response.status}: ${(await response.json()).detail}`); }
  return response.json();
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "class") node.className = value; else node.setAttribute(name, value);
  }
  for (const child of children) {
    node.append(child instanceof Node ? child : document.createTextNode(String(child ?? "")));
  }
  return node;
}

function setSummaryState(summaryState, error) {
  document.body.dataset.summaryState = summaryState;
  $("#summarising").hidden = summaryState !== "summarizing";
  const banner = $("#summary-error");
  banner.hidden = summaryState !== "failed";
  banner.textContent = summaryState === "failed" ? `Summary failed: ${error || "unknown error"}` : "";
}

// -- chat list --------------------------------------------------------------------------------

async function showList() {
  $("#list-view").hidden = false;
  $("#chat-view").hidden = true;
  $("#chat-title").textContent = "";
  setSummaryState("idle");
  const page = await api(`/chats?limit=${PAGE}&offset=${state.offset}`);
  const body = $("#chat-table tbody");
  body.replaceChildren(...page.items.map((chat) => el("tr", { "data-chat-id": chat.id },
    el("td", {}, el("a", { href: `#/chats/${encodeURIComponent(chat.id)}` }, chat.title || chat.id)),
    el("td", {}, chat.message_count),
    el("td", { class: "wide" }, chat.last_summarized_sequence),
    el("td", { class: `state-${chat.summary_state}` }, chat.summary_state),
    el("td", { class: "wide" }, (chat.updated_at || "").replace("T", " ").slice(0, 19)))));
  $("#prev-page").disabled = state.offset === 0;
  $("#next-page").disabled = page.next_offset === null;
}

// -- chat page --------------------------------------------------------------------------------

async function showChat(chatId) {
  $("#list-view").hidden = true;
  $("#chat-view").hidden = false;
  state.chatId = chatId;
  const chat = await api(`/chats/${encodeURIComponent(chatId)}`);
  $("#chat-title").textContent = chat.title || chat.id;
  setSummaryState(chat.summary_state, chat.last_error);
  $("#context-query").value = "";
  await Promise.all([loadMessages(chatId, true), loadSummaries(chatId)]);
  follow(chatId);
}

function messageItem({ sequence, message }) {
  return el("li", { class: `message role-${message.role}`, "data-sequence": sequence },
    el("span", { class: "seq" }, `#${sequence}`),
    el("div", { class: "who" }, message.name || message.role),
    el("div", { class: "text" }, message.content));
}

// Loads the messages after the last one shown (all of them when `reset`).
async function loadMessages(chatId, reset = false) {
  if (reset) { state.lastSequence = 0; $("#messages").replaceChildren(); }
  for (let page = 0; page < 20; page += 1) {
    const batch = await api(`/chats/${encodeURIComponent(chatId)}/messages?after_sequence=${state.lastSequence}&limit=500`);
    if (chatId !== state.chatId) return;
    const fresh = batch.items.filter((item) => item.sequence > state.lastSequence);
    $("#messages").append(...fresh.map(messageItem));
    if (fresh.length) state.lastSequence = fresh[fresh.length - 1].sequence;
    if (fresh.length && !reset) refreshContext(chatId);
    if (batch.next_after === null) break;
  }
  $("#message-count").textContent = `(${state.lastSequence})`;
}

function rangeLabel(row) {
  return row.episode_first === row.episode_last
    ? `Episode ${row.episode_first}` : `Episodes ${row.episode_first}–${row.episode_last}`;
}

const KIND_LABELS = { row: "", digest: "digest", archived: "archived" };

// One row of the chain, collapsible; archived rows (folded into a digest) start collapsed.
function summaryCard(row) {
  const narrative = row.structured ? row.structured.narrative : row.summary_text;
  const card = el("details", {
    class: `summary-card kind-${row.kind}`, "data-range": row.episode_range, "data-id": row.id,
    "data-kind": row.kind,
  },
    el("summary", {},
      el("h3", {}, rangeLabel(row)),
      KIND_LABELS[row.kind] ? el("span", { class: `badge kind-${row.kind}` }, KIND_LABELS[row.kind]) : "",
      el("span", { class: "meta" }, `${row.token_count} tokens · v${row.version} · to message ${row.turn_number}`)),
    el("div", { class: "narrative" }, narrative || ""));
  card.open = row.kind !== "archived";
  return card;
}

const SECTIONS = [
  ["topics", "Topics"], ["entities", "Entities"], ["decisions", "Decisions"],
  ["open_questions", "Open questions"], ["user_preferences", "Preferences"],
  ["actions_taken", "Actions taken"],
];

function mergeStructured(rows) {
  const merged = Object.fromEntries(SECTIONS.map(([key]) => [key, []]));
  for (const row of rows) {
    if (!row.structured) continue;
    for (const [key] of SECTIONS) {
      for (const item of row.structured[key] || []) {
        const text = key === "entities" ? `${item.name}${item.details ? ` — ${item.details}` : ""}` : item;
        if (!merged[key].includes(text)) merged[key].push(text);
      }
    }
  }
  return merged;
}

function structuredView(rows) {
  const merged = mergeStructured(rows);
  const sections = SECTIONS.filter(([key]) => merged[key].length).map(([key, title]) =>
    el("div", { class: "section", "data-section": key }, el("h3", {}, title),
      el("ul", {}, ...merged[key].map((item) => el("li", {}, item)))));
  return sections.length ? sections : [el("p", { class: "empty" }, "No structured summary yet.")];
}

async function loadSummaries(chatId) {
  const chain = await api(`/chats/${encodeURIComponent(chatId)}/summaries`);
  const cards = chain.items.map(summaryCard);
  $("#summary-cards").replaceChildren(...(cards.length ? cards : [el("p", { class: "empty" }, "No summary yet.")]));
  const archived = chain.items.filter((row) => row.kind === "archived").length;
  $("#summary-count").textContent = chain.items.length
    ? `(${chain.items.length - archived} live${archived ? `, ${archived} archived` : ""})` : "";
  const live = chain.items.filter((row) => row.kind !== "archived");
  $("#structured").replaceChildren(...structuredView(live));
  await refreshContext(chatId);  // the context depends on the summary just loaded
}

// -- context panel: what the model would receive ------------------------------------------

const PART_LABELS = { recalled: "Recalled turns", summary: "Summary", verbatim: "Recent window" };

function contextPart(part, budget) {
  const share = budget ? Math.min(100, (100 * part.tokens) / budget) : 0;
  const details = el("details", { class: `context-part part-${part.kind}`, "data-kind": part.kind, "data-tokens": part.tokens },
    el("summary", {},
      el("span", { class: "part-name" }, PART_LABELS[part.kind] || part.kind),
      el("span", { class: "part-tokens" }, `${part.tokens} tokens`),
      el("span", { class: "meter", "aria-hidden": "true" }, el("span", { class: "fill" }))),
    el("pre", { class: "part-text" }, part.text));
  details.querySelector(".fill").style.width = `${share.toFixed(1)}%`;  // CSSOM: allowed by the CSP
  if (part.truncated) details.querySelector("summary").append(el("span", { class: "badge" }, "truncated"));
  return details;
}

// Re-assembles the context panel for the query typed (none: no recall).
function refreshContext(chatId) {
  return loadContext(chatId, $("#context-query").value)
    .catch((error) => setSummaryState("failed", error.message));
}

async function loadContext(chatId, query) {
  const body = query ? { query } : {};
  const context = await api(`/chats/${encodeURIComponent(chatId)}/context`, body);
  if (chatId !== state.chatId) return;
  const dropped = context.dropped_recalled + context.dropped_verbatim + context.dropped_pending;
  $("#context-total").textContent =
    `(${context.tokens_used} / ${context.budget_tokens} tokens · ${context.strategy}${dropped ? ` · ${dropped} dropped` : ""})`;
  $("#context-panel").dataset.tokensUsed = context.tokens_used;
  const parts = context.parts.map((part) => contextPart(part, context.budget_tokens));
  $("#context-parts").replaceChildren(...(parts.length ? parts : [el("p", { class: "empty" }, "No context yet.")]));
}

function follow(chatId) {
  if (state.events) state.events.close();
  // fetch, not EventSource: the key travels in a header, never in the URL
  const controller = new AbortController();
  const handlers = {
    state: (d) => setSummaryState(d.state, d.error),
    summarizing: () => setSummaryState("summarizing"),
    appended: () => loadMessages(chatId),
    summarized: async () => {
      setSummaryState("idle");
      await Promise.all([loadMessages(chatId), loadSummaries(chatId)]);
      const chat = await api(`/chats/${encodeURIComponent(chatId)}`);
      $("#chat-title").textContent = chat.title || chat.id;
    },
    failed: (d) => setSummaryState("failed", d.error),
  };
  state.events = { close: () => controller.abort() };
  readEvents(`/chats/${encodeURIComponent(chatId)}/events`, controller.signal, handlers)
    .catch(() => { if (document.body.dataset.events === "open") document.body.dataset.events = "closed"; });
}

async function readEvents(path, signal, handlers) {
  const headers = apiKey() ? { "X-API-Key": apiKey() } : {};
  const response = await fetch(path, { headers, signal });
  if (!response.ok) throw new Error(`events: ${response.status}`);
  document.body.dataset.events = "open";
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const kind = (frame.match(/^event: (.*)$/m) || [])[1];
      const data = (frame.match(/^data: (.*)$/m) || [])[1];
      if (kind && data && handlers[kind]) handlers[kind](JSON.parse(data));
    }
  }
}

// -- routing ----------------------------------------------------------------------------------

async function route() {
  if (state.events) { state.events.close(); state.events = null; }
  const match = location.hash.match(/^#\/chats\/(.+)$/);
  try {
    if (match) await showChat(decodeURIComponent(match[1])); else await showList();
  } catch (error) {
    setSummaryState("failed", error.message);
  }
}

$("#prev-page").addEventListener("click", () => { state.offset = Math.max(0, state.offset - PAGE); route(); });
$("#next-page").addEventListener("click", () => { state.offset += PAGE; route(); });
$("#context-form").addEventListener("submit", (event) => {
  event.preventDefault();
  if (state.chatId) refreshContext(state.chatId);
});
$("#key-form form").addEventListener("submit", (event) => {
  event.preventDefault();
  localStorage.setItem("longtalk.apiKey", $("#api-key").value);
  $("#key-form").hidden = true;
  route();
});
window.addEventListener("hashchange", route);
route();
