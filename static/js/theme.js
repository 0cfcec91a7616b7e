// The theme switch in the site header: the OS setting (auto), light or dark. The choice is
// remembered in a cookie, so the server renders the page in it from the first paint (no flash,
// no inline script); ?theme= still wins for one page view, and share links carry the theme in
// use (sharelink.js).

import { THEMES } from "./share.js";

export const COOKIE = "streamscope_theme";
const YEAR_S = 365 * 24 * 3600;

/** The cookie that remembers `theme` ("light", "dark", or null for the OS setting) (pure). */
export function themeCookie(theme) {
  return THEMES.includes(theme) ? `${COOKIE}=${theme}; path=/; max-age=${YEAR_S}; SameSite=Lax` : `${COOKIE}=; path=/; max-age=0; SameSite=Lax`;
}

/** The theme shown: "light", "dark", or null when the page follows the OS setting. */
export function currentTheme() {
  const theme = document.documentElement.dataset.theme;
  return THEMES.includes(theme) ? theme : null;
}

export function applyTheme(theme) {
  if (THEMES.includes(theme)) document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
}

const select = typeof document !== "undefined" ? document.querySelector('[data-testid="theme-switch"]') : null;
if (select) {
  select.value = currentTheme() ?? "auto";
  select.addEventListener("change", () => {
    const theme = THEMES.includes(select.value) ? select.value : null;
    applyTheme(theme);
    document.cookie = themeCookie(theme);
    // A ?theme= in the address would override the choice on reload: drop it.
    const url = new URL(location.href);
    if (url.searchParams.has("theme")) {
      url.searchParams.delete("theme");
      history.replaceState(history.state, "", url);
    }
  });
}
