// The request beside the stream (docs/timeline.md, "The request"): how it was sent, the
// parameters that shape a stream, the tools offered (folded, with their schemas) and the
// messages by role, tool calls with their arguments and tool results with their call's id.
// The server reads every dialect's body into one view (app/domain/requests/); this module only
// draws it, and everything from the capture reaches the page as text (dom.js `el`).

import { el } from "./dom.js";

const SOURCES = {
  recording: "as recorded",
  har: "from the HAR entry",
  curl: "from the curl output",
};

/** A JSON value as the panel shows it: a string as it is, anything else as JSON text. */
export function shown(value, indent = 0) {
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, indent) ?? String(value);
}

/** One line saying what the request holds ("3 messages, 2 tools"). */
export function gist(request) {
  const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  return [count(request.messages.length, "message", "messages"), count(request.tools.length, "tool", "tools")].join(", ");
}

/** The panel of a stream's request (`request`: the `StreamInfo` field, docs/protocol.md), or
 * null when none is known. */
export function requestPanel(request) {
  if (!request || typeof request !== "object") return null;
  const root = el("details", { class: "request", "data-testid": "request" });
  const summary = el("summary", { class: "request-summary" });
  summary.append(
    el("span", { class: "request-label" }, "Request"),
    el("code", { class: "request-method", "data-testid": "request-method" }, request.method ?? "?"),
    el("code", { class: "request-url", "data-testid": "request-url" }, request.url ?? "(URL not known)"),
    el("span", { class: "request-gist" }, gist(request)),
  );
  root.appendChild(summary);
  root.appendChild(el("p", { class: "request-source" }, SOURCES[request.source] ?? request.source));
  if (request.note) root.appendChild(el("p", { class: "request-note", "data-testid": "request-note" }, request.note));
  if (request.params.length) root.appendChild(paramsTable(request.params));
  if (request.tools.length) root.appendChild(toolList(request.tools));
  if (request.messages.length) root.appendChild(messageList(request.messages));
  return root;
}

function paramsTable(params) {
  const table = el("table", { class: "request-params", "data-testid": "request-params" });
  table.appendChild(el("caption", {}, "Parameters that shape the stream"));
  for (const param of params) {
    const row = el("tr", { dataset: { param: param.name } });
    const field = param.field === param.name ? "" : param.field;
    const value = el("td");
    value.appendChild(el("code", { class: "param-value" }, shown(param.value)));
    row.append(el("th", { scope: "row" }, param.name), value, el("td", { class: "request-field" }, field));
    table.appendChild(row);
  }
  return table;
}

function toolList(tools) {
  const box = el("div", { class: "request-tools", "data-testid": "request-tools" });
  box.appendChild(el("h3", {}, `Tools (${tools.length})`));
  for (const tool of tools) {
    const item = el("details", { class: "request-tool", "data-testid": "request-tool", dataset: { tool: tool.name ?? "" } });
    const head = el("summary");
    head.append(el("code", { class: "request-tool-name" }, tool.name ?? "(no name)"));
    if (tool.kind) head.append(" ", el("span", { class: "request-tool-kind" }, tool.kind));
    if (tool.description) head.append(" ", el("span", { class: "request-tool-description" }, tool.description));
    item.appendChild(head);
    const schema = tool.schema === null || tool.schema === undefined ? "(no schema)" : shown(tool.schema, 2);
    item.appendChild(el("pre", { class: "request-schema", "data-testid": "request-tool-schema" }, schema));
    box.appendChild(item);
  }
  return box;
}

function messageList(messages) {
  const list = el("ol", { class: "request-messages", "data-testid": "request-messages", "aria-label": "Messages" });
  for (const message of messages) {
    const item = el("li", { class: "request-message", "data-testid": "request-message", dataset: { role: message.role } });
    item.appendChild(el("span", { class: "request-role" }, message.role));
    for (const part of message.parts) item.appendChild(partOf(part));
    list.appendChild(item);
  }
  return list;
}

function partOf(part) {
  const box = el("div", { class: "request-part", dataset: { kind: part.kind } });
  if (part.kind === "tool_call") {
    box.dataset.testid = "request-tool-call";
    const head = el("p", { class: "request-part-head" });
    head.append("calls ", el("code", { class: "request-call-name" }, part.name ?? "(no name)"));
    if (part.id) head.append(" ", el("code", { class: "request-call-id" }, part.id));
    box.append(head, el("pre", { class: "request-arguments" }, part.arguments ?? "(no arguments)"));
  } else if (part.kind === "tool_result") {
    box.dataset.testid = "request-tool-result";
    const head = el("p", { class: "request-part-head" }, part.error ? "error result" : "result");
    if (part.id) head.append(" of ", el("code", { class: "request-call-id" }, part.id));
    if (part.name) head.append(" from ", el("code", { class: "request-call-name" }, part.name));
    box.append(head, el("pre", { class: "request-result" }, part.text ?? ""));
  } else if (part.kind === "thinking") {
    box.append(el("p", { class: "request-part-head" }, "reasoning"), el("pre", { class: "request-text" }, part.text ?? ""));
  } else if (part.kind === "other") {
    box.appendChild(el("p", { class: "request-other" }, `(${part.text ?? "content"} not shown)`));
  } else {
    box.appendChild(el("pre", { class: "request-text" }, part.text ?? ""));
  }
  return box;
}
