// The summary chain (a card per row) and the structured summary merged over the live rows.
import { $, api, chatPath, el, empty } from "./api.js";

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
  return sections.length ? sections : [empty("No structured summary yet.")];
}

export async function loadSummaries(chatId, current) {
  const chain = await api(chatPath(chatId, "/summaries"));
  if (!current(chatId)) return;
  const cards = chain.items.map(summaryCard);
  $("#summary-cards").replaceChildren(...(cards.length ? cards : [empty("No summary yet.")]));
  const archived = chain.items.filter((row) => row.kind === "archived").length;
  $("#summary-count").textContent = chain.items.length
    ? `(${chain.items.length - archived} live${archived ? `, ${archived} archived` : ""})` : "";
  const live = chain.items.filter((row) => row.kind !== "archived");
  $("#structured").replaceChildren(...structuredView(live));
}
