// Presentation mode: large type for a projector. `?zoom=` (one view) or the text-size control
// scales every rem of the page (static/css/app.css); 1 is the normal size.

export const ZOOMS = Object.freeze(["1", "1.25", "1.5", "2", "2.5", "3"]);

/** The zoom a page address asks for, or null (pure). */
export function readZoom(search) {
  const value = new URLSearchParams(search).get("zoom");
  if (value === null) return null;
  const number = Number(value);
  return ZOOMS.find((z) => Number(z) === number) ?? null;
}

export function applyZoom(zoom) {
  if (zoom && zoom !== "1") document.documentElement.dataset.zoom = zoom;
  else delete document.documentElement.dataset.zoom;
}

/** Wire the text-size control, starting from `?zoom=`. */
export function bindZoom(select, search) {
  const wanted = readZoom(search);
  if (wanted) applyZoom(wanted);
  if (!select) return;
  select.value = wanted ?? "1";
  select.addEventListener("change", () => applyZoom(select.value));
}
