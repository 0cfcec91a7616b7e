// Showing an error from a server or an upstream as text: a one-line summary, the facts
// (HTTP status, content type, page title) and the long part (a whole HTML error page, say)
// behind a toggle, never as markup. An /api/models error may carry an `upstream` object
// ({"status", "content_type", "title", "body": at most 4 KiB}); a live run's end error is a
// string that may have a page pasted in.

import { clear, el } from "./dom.js";

export const SUMMARY_CHARS = 200;
const MARKUP = /<(?:!doctype|html|head|body)\b/i;

/** What to show of an error ({message, code?, upstream?} or a string), as text (pure). */
export function problemParts(error) {
  const message = typeof error === "string" ? error : String(error?.message ?? "unknown error");
  let summary = message;
  let body = null;
  let bodyLabel = "Show the whole message";
  const markup = MARKUP.exec(message);
  if (markup) {
    summary = message.slice(0, markup.index).replace(/[\s:,;-]+$/, "");
    body = message.slice(markup.index);
    bodyLabel = "Show the page it sent (as text)";
  }
  const firstLine = summary.split(/\r?\n/, 1)[0];
  if (firstLine.length > SUMMARY_CHARS) summary = `${firstLine.slice(0, SUMMARY_CHARS)}…`;
  else summary = firstLine;
  if (body === null && summary !== message) body = message;
  const facts = [];
  const upstream = typeof error === "object" && error !== null ? error.upstream : null;
  if (upstream && typeof upstream === "object") {
    if (Number.isInteger(upstream.status)) facts.push(`HTTP ${upstream.status}`);
    if (typeof upstream.content_type === "string" && upstream.content_type) facts.push(upstream.content_type);
    if (typeof upstream.title === "string" && upstream.title) facts.push(`page title “${upstream.title}”`);
    if (typeof upstream.body === "string" && upstream.body) {
      body = upstream.body;
      bodyLabel = "Show what the upstream sent (as text)";
    }
  }
  return { summary: summary || "unknown error", facts, body, bodyLabel };
}

/** Fill `container` with an error: summary, facts, and the body behind a toggle. */
export function showProblem(container, error, prefix = "") {
  const parts = problemParts(error);
  clear(container);
  container.appendChild(el("span", { class: "problem-message", "data-problem": "message" }, `${prefix}${parts.summary}`));
  if (parts.facts.length) container.appendChild(el("span", { class: "problem-facts", "data-problem": "facts" }, ` (${parts.facts.join(", ")})`));
  if (parts.body !== null) {
    const details = el("details", { class: "problem-body" });
    details.append(el("summary", {}, parts.bodyLabel), el("pre", { "data-problem": "body" }, parts.body));
    container.appendChild(details);
  }
  return parts;
}
