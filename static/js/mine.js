// "My captures": what this browser uploaded, kept in localStorage (never on the server).
// Each entry keeps its delete token so that its uploader can rename or delete it later.
// The conform page keeps the reports it started the same way, under its own key (`REPORTS`).

const KEY = "streamscope.captures";
export const REPORTS = "streamscope.conform";

export function load(key = KEY) {
  try {
    const list = JSON.parse(localStorage.getItem(key) || "[]");
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

export function save(list, key = KEY) {
  localStorage.setItem(key, JSON.stringify(list));
}

export function remember(entry, key = KEY) {
  save([entry, ...load(key).filter((e) => e.id !== entry.id)], key);
}

export function forget(id, key = KEY) {
  save(load(key).filter((e) => e.id !== id), key);
}

export function find(id, key = KEY) {
  return load(key).find((e) => e.id === id) || null;
}
