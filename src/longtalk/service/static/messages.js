// The message list: newest first, a page at a time; recalled turns marked and revealed on demand.
import { $, api, chatPath, el, when } from "./api.js";

export const PAGE = 50;

export class MessageList {
  constructor(list, olderButton, counter) {
    Object.assign(this, { list, olderButton, counter });
    this.reset(null, 0);
  }

  reset(chatId, total) {
    Object.assign(this, { chatId, total, oldest: total + 1, newest: total, marks: new Map() });
    this.list.replaceChildren();
    this.update();
  }

  // The newest page of a chat holding `total` messages.
  async open(chatId, total) {
    this.reset(chatId, total);
    await this.loadOlder();
  }

  async page(after, limit) {
    const chatId = this.chatId;
    const batch = await api(chatPath(chatId, `/messages?after_sequence=${after}&limit=${limit}`));
    return chatId === this.chatId ? batch.items : null;  // null: another chat opened meanwhile
  }

  // The page before the oldest shown, appended below it.
  async loadOlder() {
    const before = this.oldest;
    if (before <= 1) return;
    const after = Math.max(0, before - 1 - PAGE);
    const items = await this.page(after, before - 1 - after);
    if (items === null || this.oldest !== before) return;
    const older = items.filter((item) => item.sequence < before).reverse();
    this.list.append(...older.map((item) => this.item(item)));
    if (older.length) this.oldest = older[older.length - 1].sequence;
    else this.oldest = 1;
    this.update();
  }

  // Messages written after the newest shown, added on top; true when there were any.
  async loadNewer() {
    let fresh = false;
    for (let page = 0; page < 20; page += 1) {
      const items = await this.page(this.newest, 500);
      if (items === null) return false;
      const newer = items.filter((item) => item.sequence > this.newest);
      if (!newer.length) break;
      this.list.prepend(...newer.reverse().map((item) => this.item(item)));
      this.newest = newer[0].sequence;
      this.total = Math.max(this.total, this.newest);
      fresh = true;
      if (items.length < 500) break;
    }
    this.update();
    return fresh;
  }

  item({ sequence, message }) {
    const node = el("li", { class: `message role-${message.role}`, "data-sequence": sequence, id: `m${sequence}` },
      el("div", { class: "head" },
        el("span", { class: "who" }, message.name || message.role),
        el("span", { class: "seq" }, `#${sequence}`),
        message.timestamp ? el("time", { datetime: message.timestamp }, when(message.timestamp)) : ""),
      el("div", { class: "text" }, message.content));
    this.decorate(node, this.marks.get(sequence));
    return node;
  }

  // Marks messages by sequence: {kind: "recalled", score} or {kind: "window"}.
  mark(marks) {
    this.marks = marks;
    for (const node of this.list.children) this.decorate(node, marks.get(Number(node.dataset.sequence)));
  }

  decorate(node, mark) {
    node.classList.toggle("recalled", mark?.kind === "recalled");
    node.classList.toggle("in-window", mark?.kind === "window");
    node.querySelector(".badge.recall")?.remove();
    if (mark?.kind === "recalled") {
      const label = mark.score === undefined ? "recalled" : `recalled · ${mark.score.toFixed(2)}`;
      node.querySelector(".head").append(el("span", { class: "badge recall" }, label));
    }
  }

  // Shows message `sequence`, loading older pages until it is there, and flashes it.
  async reveal(sequence) {
    while (this.oldest > sequence && this.oldest > 1) {
      const before = this.oldest;
      await this.loadOlder();
      if (this.oldest === before) break;
    }
    const node = this.list.querySelector(`[data-sequence="${sequence}"]`);
    if (!node) return;
    // scroll the list to it, and the page to the list: not the page past the header
    const scroller = this.list.parentElement;
    scroller.scrollIntoView({ block: "nearest" });
    scroller.scrollTop = node.offsetTop - (scroller.clientHeight - node.offsetHeight) / 2;
    node.classList.remove("flash");
    void node.offsetWidth;  // restart the animation
    node.classList.add("flash");
  }

  update() {
    this.counter.textContent = `(${this.total})`;
    const shown = this.total ? this.newest - this.oldest + 1 : 0;
    this.olderButton.hidden = this.oldest <= 1;
    this.olderButton.textContent = `Older messages (${this.oldest - 1} more)`;
    $("#message-range").textContent = shown > 0 && shown < this.total
      ? `Newest first · ${this.oldest}–${this.newest} of ${this.total}` : "Newest first";
  }
}
