// longtalk web view: plain JS modules, no build step. Hash routes: #/ (chat list), #/chats/<id>[?query=…&budget=…].
import { $, api, chatPath, el, readEvents } from "./api.js";
import { showContext } from "./context.js";
import { loadFacts, loadUserMemory, showCost } from "./memory.js";
import { MessageList } from "./messages.js";
import { loadSummaries } from "./summaries.js";

const CHATS_PAGE = 50;
const state = { offset: 0, events: null, chatId: null };
const messages = new MessageList($("#messages"), $("#older-messages"), $("#message-count"));
const current = (chatId) => chatId === state.chatId;
const reveal = (sequence) => messages.reveal(sequence);

function setSummaryState(summaryState, error) {
  document.body.dataset.summaryState = summaryState;
  $("#summarising").hidden = summaryState !== "summarizing";
  const banner = $("#summary-error");
  banner.hidden = summaryState !== "failed";
  banner.textContent = summaryState === "failed" ? `Summary failed: ${error || "unknown error"}` : "";
}

// -- chat list --------------------------------------------------------------------------------

function chatRow(chat) {
  return el("tr", { "data-chat-id": chat.id },
    el("td", { class: "chat-cell", "data-label": "Chat" },
      el("a", { href: `#/chats/${encodeURIComponent(chat.id)}` }, chat.title || chat.id),
      el("code", { class: "chat-id" }, chat.id)),
    el("td", { class: "user-cell", "data-label": "User" }, chat.user || "—"),
    el("td", { "data-label": "Messages" }, chat.message_count),
    el("td", { class: "wide", "data-label": "Summarized up to" }, chat.last_summarized_sequence),
    el("td", { class: `state-${chat.summary_state}`, "data-label": "State" }, chat.summary_state),
    el("td", { class: "wide", "data-label": "Updated" }, (chat.updated_at || "").replace("T", " ").slice(0, 19)));
}

async function showList() {
  $("#list-view").hidden = false;
  $("#chat-view").hidden = true;
  $("#chat-title").textContent = "";
  $("#chat-meta").textContent = "";
  setSummaryState("idle");
  const page = await api(`/chats?limit=${CHATS_PAGE}&offset=${state.offset}`);
  $("#chat-table tbody").replaceChildren(...page.items.map(chatRow));
  $("#prev-page").disabled = state.offset === 0;
  $("#next-page").disabled = page.next_offset === null;
}

// -- chat page --------------------------------------------------------------------------------

function showHeader(chat) {
  $("#chat-title").textContent = chat.title || chat.id;
  $("#chat-meta").replaceChildren(el("code", {}, chat.id), chat.user ? ` · user ${chat.user}` : "");
  showCost(chat);
}

async function showChat(chatId, view = new URLSearchParams()) {
  $("#list-view").hidden = true;
  $("#chat-view").hidden = false;
  state.chatId = chatId;
  const chat = await api(chatPath(chatId));
  showHeader(chat);
  setSummaryState(chat.summary_state, chat.last_error);
  // a link may open the context on a query and a budget: #/chats/ID?query=...&budget=1000
  $("#context-query").value = view.get("query") || "";
  $("#context-budget").value = view.get("budget") || "";
  await messages.open(chatId, chat.message_count);
  await Promise.all([refreshMemory(chat), loadSummaries(chatId, current)]);
  await refreshContext(chatId);
  follow(chatId);
}

// The durable facts and the user's memory (both change when a summary is written).
function refreshMemory(chat) {
  return Promise.all([loadFacts(chat.id, reveal, current), loadUserMemory(chat, current)]);
}

// Re-assembles the context panel for the query typed (none: no recall).
function refreshContext(chatId) {
  return loadContext(chatId, $("#context-query").value)
    .catch((error) => setSummaryState("failed", error.message));
}

async function loadContext(chatId, query) {
  const body = query ? { query } : {};
  const budget = parseInt($("#context-budget").value, 10);
  if (budget > 0) body.budget_tokens = budget;
  const context = await api(chatPath(chatId, "/context"), body);
  if (!current(chatId)) return;
  messages.mark(showContext(context, reveal));
}

async function onAppended(chatId) {
  if (await messages.loadNewer()) await refreshContext(chatId);
}

async function onSummarized(chatId) {
  setSummaryState("idle");
  const chat = await api(chatPath(chatId));
  if (!current(chatId)) return;
  showHeader(chat);
  await Promise.all([messages.loadNewer(), loadSummaries(chatId, current), refreshMemory(chat)]);
  await refreshContext(chatId);
}

function follow(chatId) {
  if (state.events) state.events.close();
  // fetch, not EventSource: the key travels in a header, never in the URL
  const controller = new AbortController();
  const handlers = {
    state: (d) => setSummaryState(d.state, d.error),
    summarizing: () => setSummaryState("summarizing"),
    appended: () => onAppended(chatId),
    summarized: () => onSummarized(chatId),
    failed: (d) => setSummaryState("failed", d.error),
  };
  state.events = { close: () => controller.abort() };
  readEvents(chatPath(chatId, "/events"), controller.signal, handlers)
    .catch(() => { if (document.body.dataset.events === "open") document.body.dataset.events = "closed"; });
}

// -- routing ----------------------------------------------------------------------------------

async function route() {
  if (state.events) { state.events.close(); state.events = null; }
  const match = location.hash.match(/^#\/chats\/([^?]+)(?:\?(.*))?$/);
  try {
    if (match) await showChat(decodeURIComponent(match[1]), new URLSearchParams(match[2] || ""));
    else await showList();
  } catch (error) {
    setSummaryState("failed", error.message);
  }
}

$("#prev-page").addEventListener("click", () => { state.offset = Math.max(0, state.offset - CHATS_PAGE); route(); });
$("#next-page").addEventListener("click", () => { state.offset += CHATS_PAGE; route(); });
$("#older-messages").addEventListener("click", () => messages.loadOlder());
$("#context-budget").addEventListener("change", () => { if (state.chatId) refreshContext(state.chatId); });
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
