// Tiny DOM helpers. Capture data only ever reaches the page through textContent, text nodes
// and attribute values here: never as markup.

export function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  if (text !== null && text !== undefined) node.textContent = String(text);
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

/** Remove trailing children of `parent` whose data-seq is >= seq. */
export function popFrom(parent, seq) {
  let child = parent.lastElementChild;
  while (child && Number(child.dataset.seq) >= seq) {
    const previous = child.previousElementSibling;
    child.remove();
    child = previous;
  }
}

/** A field name (`cache_creation.ephemeral_5m_input_tokens`) as text nodes with a line-break
 * opportunity (`<wbr>`) after each underscore, dot or slash, so that a narrow column breaks it
 * between its words and never inside one (the text stays text: no markup is parsed). */
export function nameWithBreaks(tag, attrs, name) {
  const node = el(tag, attrs);
  for (const part of String(name).split(/(?<=[_./])/)) {
    if (node.firstChild) node.appendChild(document.createElement("wbr"));
    node.appendChild(document.createTextNode(part));
  }
  return node;
}
