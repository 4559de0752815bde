// The web view's helpers: the API (with the key from localStorage), DOM building, formats.

export const $ = (selector) => document.querySelector(selector);

export function apiKey() { return localStorage.getItem("longtalk.apiKey") || ""; }

function headers() { return apiKey() ? { "X-API-Key": apiKey() } : {}; }

async function request(path, body) {
  const init = { headers: headers() };
  if (body !== undefined) {
    Object.assign(init, { method: "POST", body: JSON.stringify(body) });
    init.headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, init);
  if (response.status === 401) { $("#key-form").hidden = false; throw new Error("API key needed"); }
  return response;
}

async function failure(response) {
  const detail = await response.json().then((data) => data.detail, () => response.statusText);
  return new Error(`${response.status}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
}

// GET `path`, or POST `body` as JSON to it; an error unless the answer is 2xx.
export async function api(path, body) {
  const response = await request(path, body);
  if (!response.ok) throw await failure(response);
  return response.json();
}

// GET `path`; null when the resource does not exist (404), e.g. a route this server lacks.
export async function apiOptional(path) {
  const response = await request(path);
  if (response.status === 404) return null;
  if (!response.ok) throw await failure(response);
  return response.json();
}

export const chatPath = (chatId, rest = "") => `/chats/${encodeURIComponent(chatId)}${rest}`;

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value; else node.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === "") continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export const empty = (text) => el("p", { class: "empty" }, text);

// "Mon 2 Mar 2026, 18:10" in the reader's locale; "" without a time.
export function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return date.toLocaleString(undefined, {
    weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit",
  });
}

export const count = (value) => Number(value).toLocaleString();

export async function readEvents(path, signal, handlers) {
  const response = await fetch(path, { headers: headers(), signal });
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
