// Usage as each dialect names it (DOM-free): the rows of the usage panel, with the dialect's
// own field names and the definitions the server sends with each stream (`usage_help` in the
// capture message, docs/protocol.md), and the short names its labels give some of them
// (`labels.usage_rows`, used when the usage has one of `labels.usage_when`).

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const own = (object, key) => (isObject(object) && Object.hasOwn(object, key) ? object[key] : undefined);
export const MAX_VALUE = 300;

function shown(value) {
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE)}…` : text;
}

/**
 * Usage as of a moment: each field as last sent, a field left out (or null) keeping its last
 * value (a cumulative usage may leave out what an earlier one gave; most send the whole object each
 * time). A Map, so no field name can touch a prototype.
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

/** A merged usage's value at a dotted path. */
function at(usage, path) {
  const [first, ...rest] = path.split(".");
  return rest.reduce((value, key) => own(value, key), usage.get(first));
}

/**
 * The panel's rows, [{key, label, value, help}]: `usage` a merged usage (mergeUsage), `help`
 * the stream's usage_help, `labels` its labels. When the usage has one of `usage_when`, the
 * labels' rows come first under their short names; the other fields keep their names, and
 * without short names an object field is one row per member, named `field.member`.
 */
export function usageRows(usage, help = {}, labels = null) {
  const definition = (key) => {
    const found = own(help, key);
    return typeof found === "string" ? found : null;
  };
  const rows = [];
  const row = (key, label, value, helpKey = key) => {
    if (value === undefined || value === null) return;
    rows.push({ key, label, value: shown(value), help: definition(helpKey) });
  };
  const named = Array.isArray(labels?.usage_rows) ? labels.usage_rows : [];
  const when = Array.isArray(labels?.usage_when) ? labels.usage_when : [];
  const short = named.length > 0 && when.some((field) => usage.has(field));
  const taken = new Set(named.map((r) => String(r.path).split(".")[0]));
  if (short) for (const r of named) row(r.key, r.label, at(usage, String(r.path)), r.help);
  for (const [key, value] of usage) {
    if (short && taken.has(key)) continue;
    if (!short && isObject(value) && Object.keys(value).length) {
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
