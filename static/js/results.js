// What a server call's result says, as lines of text for its card (DOM-free): Anthropic
// *_tool_result blocks, Gemini codeExecutionResult parts, and the done items of Responses
// server calls (docs/dialects.md). Each line is {label, text, url}; `url` is shown as a link
// only when it is http(s) (citing.js safeHref), otherwise as text.

export const MAX_TEXT = 2000; // characters of any one value shown
const MAX_LINES = 40;

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

function clip(value) {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

const line = (label, text, url = null) => ({ label, text: clip(text), url: typeof url === "string" ? url : null });

/** Lines for a result: `type` the block or item type, `value` the block or done item as sent. */
export function describeResult(type, value) {
  const lines = type === "codeExecutionResult" ? gemini(value?.codeExecutionResult) : isObject(value) && "tool_use_id" in value ? anthropic(value) : responses(type, value);
  return lines.slice(0, MAX_LINES);
}

function anthropic(value) {
  const lines = [];
  if (value.is_error === true) lines.push(line("error", "is_error: true"));
  const content = value.content;
  for (const item of Array.isArray(content) ? content : [content]) {
    if (!isObject(item)) {
      if (item !== undefined && item !== null) lines.push(line("content", item));
      continue;
    }
    const kind = String(item.type ?? "");
    if (kind.endsWith("_error") || "error_code" in item) lines.push(line("error", item.error_code ?? kind));
    else if (kind === "web_search_result" || (kind.endsWith("_result") && "url" in item)) lines.push(line("result", item.title ?? item.url ?? "", item.url));
    else if (kind === "text") lines.push(line("text", item.text ?? ""));
    else if ("stdout" in item || "stderr" in item || "return_code" in item) {
      if (item.stdout) lines.push(line("stdout", item.stdout));
      if (item.stderr) lines.push(line("stderr", item.stderr));
      if (item.return_code !== undefined) lines.push(line("return code", String(item.return_code)));
      for (const file of Array.isArray(item.content) ? item.content : []) lines.push(line("file", file?.file_id ?? file));
    } else lines.push(line(kind || "content", item));
  }
  return lines;
}

function gemini(result) {
  if (!isObject(result)) return [line("result", result ?? "")];
  const lines = [];
  if (result.outcome !== undefined) lines.push(line("outcome", String(result.outcome)));
  if (result.output !== undefined) lines.push(line("output", result.output));
  return lines;
}

function responses(type, item) {
  if (!isObject(item)) return [];
  const lines = [];
  const action = isObject(item.action) ? item.action : null;
  if (action) {
    if (action.query !== undefined) lines.push(line("query", action.query));
    for (const query of Array.isArray(action.queries) ? action.queries : []) lines.push(line("query", query));
    if (typeof action.url === "string") lines.push(line(action.type ?? "url", action.url, action.url));
    for (const source of Array.isArray(action.sources) ? action.sources : []) {
      if (isObject(source)) lines.push(line("source", source.url ?? source.name ?? source.type ?? "", source.url));
    }
  }
  for (const query of Array.isArray(item.queries) ? item.queries : []) lines.push(line("query", query));
  for (const found of Array.isArray(item.results) ? item.results : []) {
    if (isObject(found)) lines.push(line("result", [found.filename, found.text].filter(Boolean).join(": ") || found));
  }
  for (const output of Array.isArray(item.outputs) ? item.outputs : []) {
    if (!isObject(output)) continue;
    if (output.type === "logs") lines.push(line("logs", output.logs ?? ""));
    else if (output.type === "image") lines.push(line("image", output.url ?? "", output.url));
    else lines.push(line(output.type ?? "output", output));
  }
  if (typeof item.result === "string") lines.push(line("result", `${item.result.length.toLocaleString("en-US")} characters (not shown)`));
  if (item.output !== undefined && item.output !== null) lines.push(line("output", item.output));
  if (item.error !== undefined && item.error !== null) lines.push(line("error", item.error));
  for (const tool of Array.isArray(item.tools) ? item.tools : []) lines.push(line("tool", tool?.name ?? tool));
  return lines;
}
