// Citations and annotations as the page shows them (DOM-free), from their views
// (docs/timeline.md, "Block views"): the sources a citation names, or the indices it cites of
// the choice's numbered sources, what it quotes, and the answer text it is on, as sent or as
// offsets into its block's text. A URL becomes a link only when it is http(s); anything else
// (javascript:, data:, relative) is shown as text and never put in an href.

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const text = (value) => (typeof value === "string" ? value : typeof value === "number" ? String(value) : null);
const NOT_SENT = "(source not sent)";

/** An http(s) URL as a link target, or null. */
export function safeHref(url) {
  if (typeof url !== "string") return null;
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
}

function source(value) {
  return isObject(value) ? { title: text(value.title), url: text(value.url) } : null;
}

function slice(blockText, at) {
  return Array.isArray(at) && typeof blockText === "string" ? blockText.slice(at[0], at[1]) : null;
}

/**
 * One citation as shown, from its view: {kind, sources: [{title, url}], quote, span}. A view
 * with `refs` cites the choice's numbered sources (`sources`, an extra's view) by index;
 * `span` is the answer text it is on, as sent or sliced from the block's text `blockText`.
 */
export function citationView(view, { sources = [], blockText = null } = {}) {
  if (!isObject(view)) return { kind: "citation", sources: [], quote: null, span: null };
  const missing = { title: text(view.missing) ?? NOT_SENT, url: null };
  const named = Array.isArray(view.refs)
    ? view.refs.map((i) => (Number.isInteger(i) ? source(sources[i]) : null) ?? missing)
    : (Array.isArray(view.sources) ? view.sources : []).map(source).filter(Boolean);
  return { kind: text(view.kind) ?? "citation", sources: named, quote: text(view.quote), span: text(view.span) ?? slice(blockText, view.at) };
}
