// Citations and annotations as the page shows them (DOM-free): one shape for Anthropic
// citations, Responses annotations, Gemini grounding supports and citation metadata, and Cohere
// citations (docs/dialects.md). A URL becomes a link only when it is http(s); anything else
// (javascript:, data:, relative) is shown as text and never put in an href.

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const text = (value) => (typeof value === "string" ? value : typeof value === "number" ? String(value) : null);

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
  if (!isObject(value)) return null;
  const title = text(value.title) ?? text(value.document_title) ?? text(value.filename) ?? text(value.source) ?? text(value.file_id) ?? text(value.id);
  const url = text(value.url) ?? text(value.uri);
  return title === null && url === null ? null : { title, url };
}

/** Gemini: the grounding chunks a support names, from the candidate's groundingMetadata. */
function groundingSources(value, grounding) {
  const chunks = Array.isArray(grounding?.groundingChunks) ? grounding.groundingChunks : [];
  const indices = Array.isArray(value.groundingChunkIndices) ? value.groundingChunkIndices : [];
  return indices.map((i) => (Number.isInteger(i) ? chunks[i] : null)).map((chunk) => source(chunk?.web ?? chunk?.retrievedContext ?? chunk) ?? { title: "(grounding chunk not sent)", url: null });
}

/** Cohere: the documents or tool outputs a citation names. */
function cohereSources(value) {
  return value.sources.filter(isObject).map((s) => source(s.document) ?? source(s.tool_output) ?? source(s) ?? { title: text(s.type) ?? "source", url: null });
}

function slice(blockText, start, end) {
  return Number.isInteger(start) && Number.isInteger(end) && end > start && typeof blockText === "string" ? blockText.slice(start, end) : null;
}

/**
 * One citation as shown: {kind, sources: [{title, url}], quote, span}. `quote` is the text
 * quoted from the source (Anthropic cited_text, a Cohere document snippet), `span` the answer
 * text it is attached to where the citation says which (Gemini segment, Responses and Cohere
 * offsets into the block's text `blockText`).
 */
export function citationView(value, { grounding = null, blockText = null } = {}) {
  if (!isObject(value)) return { kind: "citation", sources: [], quote: text(value), span: null };
  const kind = text(value.type) ?? (value.segment ? "grounding" : "citation");
  if (isObject(value.segment) || Array.isArray(value.groundingChunkIndices)) {
    return { kind, sources: groundingSources(value, grounding), quote: null, span: text(value.segment?.text) ?? slice(blockText, value.segment?.startIndex, value.segment?.endIndex) };
  }
  if (Array.isArray(value.sources)) {
    const snippet = value.sources.map((s) => text(s?.document?.snippet)).find((s) => s);
    return { kind, sources: cohereSources(value), quote: snippet ?? null, span: text(value.text) ?? slice(blockText, value.start, value.end) };
  }
  const one = source(value);
  return {
    kind,
    sources: one ? [one] : [],
    quote: text(value.cited_text),
    span: slice(blockText, value.start_index, value.end_index) ?? slice(blockText, value.startIndex, value.endIndex),
  };
}
