// "My captures": what this browser uploaded, kept in localStorage (never on the server).
// Each entry keeps its delete token so that its uploader can rename or delete it later.

const KEY = "streamscope.captures";

export function load() {
  try {
    const list = JSON.parse(localStorage.getItem(KEY) || "[]");
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

export function save(list) {
  localStorage.setItem(KEY, JSON.stringify(list));
}

export function remember(entry) {
  save([entry, ...load().filter((e) => e.id !== entry.id)]);
}

export function forget(id) {
  save(load().filter((e) => e.id !== id));
}

export function find(id) {
  return load().find((e) => e.id === id) || null;
}
