// Usage as each dialect names it (DOM-free): the rows of the usage panel, with the dialect's
// own field names and the definitions the server sends with each stream (`usage_help` in the
// capture message, docs/protocol.md). Chat-shaped usage keeps the names the page always gave it
// (prompt, completion, total, reasoning, cached).

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const own = (object, key) => (isObject(object) && Object.hasOwn(object, key) ? object[key] : undefined);
export const MAX_VALUE = 300;

function shown(value) {
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE)}…` : text;
}

/**
 * Usage as of a moment: each field as last sent, a field left out (or null) keeping its last
 * value (Anthropic's cumulative message_delta usage leaves out what message_start gave; the
 * others send the whole object each time). A Map, so no field name can touch a prototype.
 */
export function mergeUsage(usages) {
  const merged = new Map();
  for (const usage of usages) {
    if (!isObject(usage)) continue;
    for (const [key, value] of Object.entries(usage)) {
      if (value !== null && value !== undefined) merged.set(key, value);
    }
  }
  return merged;
}

const CHAT = [
  ["prompt_tokens", "prompt", (u) => u.get("prompt_tokens"), "prompt_tokens"],
  ["completion_tokens", "completion", (u) => u.get("completion_tokens"), "completion_tokens"],
  ["total_tokens", "total", (u) => u.get("total_tokens"), "total_tokens"],
  ["reasoning_tokens", "reasoning", (u) => own(u.get("completion_tokens_details"), "reasoning_tokens"), "completion_tokens_details"],
  ["cached_tokens", "cached", (u) => own(u.get("prompt_tokens_details"), "cached_tokens"), "prompt_tokens_details"],
];
const CHAT_FIELDS = new Set(["prompt_tokens", "completion_tokens", "total_tokens", "completion_tokens_details", "prompt_tokens_details"]);

/**
 * The panel's rows, [{key, label, value, help}]: `usage` a merged usage (mergeUsage), `help`
 * the stream's usage_help. Other dialects' fields keep their names; an object field is one row
 * per member, named `field.member`.
 */
export function usageRows(usage, help = {}) {
  const definition = (key) => {
    const found = own(help, key);
    return typeof found === "string" ? found : null;
  };
  const rows = [];
  const row = (key, label, value, helpKey = key) => {
    if (value === undefined || value === null) return;
    rows.push({ key, label, value: shown(value), help: definition(helpKey) });
  };
  const chat = usage.has("prompt_tokens") || usage.has("completion_tokens");
  if (chat) for (const [key, label, read, helpKey] of CHAT) row(key, label, read(usage), helpKey);
  for (const [key, value] of usage) {
    if (chat && CHAT_FIELDS.has(key)) continue;
    if (!chat && isObject(value) && Object.keys(value).length) {
      for (const [member, inner] of Object.entries(value)) row(`${key}.${member}`, `${key}.${member}`, inner, key);
    } else row(key, key, value);
  }
  return rows;
}

/** The shared counters (inspect --json `normalized.usage`) as words. */
export const SHARED = [
  ["input_tokens", "input"],
  ["output_tokens", "output"],
  ["cached_input_tokens", "cached input"],
  ["reasoning_tokens", "reasoning"],
];
