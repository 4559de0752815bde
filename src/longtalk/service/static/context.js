// The context panel: what the model would receive, layer by layer, against the budget.
import { $, count, el, empty, when } from "./api.js";

// The context contract's order; a kind the server adds later is shown after these.
export const LAYERS = [
  ["facts", "Durable facts"], ["user", "User memory"], ["recalled", "Recalled turns"],
  ["summary", "Summary"], ["verbatim", "Recent window"],
];
const LABELS = Object.fromEntries(LAYERS);
const label = (kind) => LABELS[kind] || kind;

// Renders `context` (POST /chats/{id}/context); returns the marks for the message list.
export function showContext(context, reveal) {
  const dropped = context.dropped_recalled + context.dropped_verbatim + context.dropped_pending;
  $("#context-total").textContent = `(${context.tokens_used} / ${context.budget_tokens} tokens · ` +
    `${context.strategy}${dropped ? ` · ${dropped} dropped` : ""})`;
  $("#context-panel").dataset.tokensUsed = context.tokens_used;
  showBar(context.parts, context.budget_tokens, context.tokens_used);
  const recalled = recalledTurns(context.parts);
  showRecalled(recalled, reveal);
  const parts = context.parts.map((part) => contextPart(part, context.budget_tokens));
  $("#context-parts").replaceChildren(...(parts.length ? parts : [empty("No context yet.")]));
  return marks(context.parts, recalled);
}

// One stacked bar: a segment per part, as wide as its share of the budget.
function showBar(parts, budget, used) {
  const bar = $("#context-bar");
  const segments = parts.filter((part) => part.tokens > 0).map((part) => {
    const segment = el("span", {
      class: `segment layer-${part.kind}`, "data-kind": part.kind, "data-tokens": part.tokens,
      title: `${label(part.kind)}: ${part.tokens} tokens`,
    });
    segment.style.width = `${budget ? Math.min(100, (100 * part.tokens) / budget).toFixed(2) : 0}%`;
    return segment;
  });
  bar.replaceChildren(...segments);
  bar.setAttribute("aria-label", `${used} of ${budget} tokens: ` +
    parts.map((part) => `${label(part.kind)} ${part.tokens}`).join(", "));
  const free = Math.max(0, budget - used);
  $("#context-legend").replaceChildren(
    ...parts.map((part) => el("li", { "data-kind": part.kind },
      el("span", { class: `swatch layer-${part.kind}`, "aria-hidden": "true" }),
      `${label(part.kind)} `, el("b", {}, count(part.tokens)))),
    el("li", { "data-kind": "free" }, el("span", { class: "swatch free", "aria-hidden": "true" }),
      "Unused ", el("b", {}, count(free))));
}

function recalledTurns(parts) {
  const turns = [];
  for (const part of parts.filter((p) => p.kind === "recalled")) {
    part.sequences.forEach((sequence, index) => {
      if (sequence === null || sequence === undefined) return;
      turns.push({ sequence, score: part.scores[index], message: part.messages[index] });
    });
  }
  return turns.sort((a, b) => (b.score ?? 0) - (a.score ?? 0));  // the most relevant first
}

// The recalled turns: sequence, date and score, each a link to the message.
function showRecalled(turns, reveal) {
  $("#recalled-panel").hidden = turns.length === 0;
  $("#recalled-list").replaceChildren(...turns.map((turn) => {
    const message = turn.message || {};
    const link = el("a", { href: `#m${turn.sequence}`, class: "recalled-turn", "data-sequence": turn.sequence },
      el("span", { class: "seq" }, `#${turn.sequence}`),
      el("span", { class: "date" }, when(message.timestamp) || "no date"),
      el("span", { class: "score" }, turn.score === undefined ? "" : `score ${turn.score.toFixed(2)}`),
      el("span", { class: "snippet" }, `${message.name || message.role || ""}: ${message.content || ""}`));
    link.addEventListener("click", (event) => { event.preventDefault(); reveal(turn.sequence); });
    return el("li", {}, link);
  }));
}

function marks(parts, recalled) {
  const found = new Map();
  for (const part of parts.filter((p) => p.kind === "verbatim")) {
    for (const sequence of part.sequences) if (sequence) found.set(sequence, { kind: "window" });
  }
  for (const turn of recalled) found.set(turn.sequence, { kind: "recalled", score: turn.score });
  return found;
}

function contextPart(part, budget) {
  const share = budget ? Math.round((100 * part.tokens) / budget) : 0;
  const details = el("details", { class: `context-part part-${part.kind}`, "data-kind": part.kind, "data-tokens": part.tokens },
    el("summary", {},
      el("span", { class: `swatch layer-${part.kind}`, "aria-hidden": "true" }),
      el("span", { class: "part-name" }, label(part.kind)),
      el("span", { class: "part-tokens" }, `${part.tokens} tokens · ${share}%`),
      part.truncated ? el("span", { class: "badge" }, "truncated") : ""),
    el("pre", { class: "part-text" }, part.text));
  return details;
}
