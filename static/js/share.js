// Share-link state: t (seconds or m:ss), speed, autoplay, choice, token, theme (pure).

export function parseTime(value) {
  if (value === null || value === "") return null;
  const match = /^(?:(\d+):)?(\d+(?:\.\d+)?)$/.exec(value.trim());
  if (!match) return null;
  return (match[1] ? Number(match[1]) * 60 : 0) + Number(match[2]);
}

function integer(value) {
  if (value === null || !/^\d+$/.test(value)) return null;
  return Number(value);
}

export function readState(search) {
  const params = new URLSearchParams(search);
  const theme = params.get("theme");
  return {
    t: parseTime(params.get("t")),
    speed: params.get("speed"),
    autoplay: ["1", "true", "yes"].includes((params.get("autoplay") || "").toLowerCase()),
    choice: integer(params.get("choice")),
    token: integer(params.get("token")),
    theme: theme === "light" || theme === "dark" ? theme : null,
  };
}

export function shareUrl(href, { t, speed, choice, token, autoplay }) {
  const url = new URL(href);
  for (const key of ["t", "speed", "choice", "token", "autoplay"]) url.searchParams.delete(key);
  url.searchParams.set("t", (Math.round(t * 1000) / 1000).toString());
  if (speed !== 1) url.searchParams.set("speed", String(speed));
  if (choice !== null && choice !== undefined && token !== null && token !== undefined && token >= 0) {
    url.searchParams.set("choice", String(choice));
    url.searchParams.set("token", String(token));
  }
  if (autoplay) url.searchParams.set("autoplay", "1");
  return url.toString();
}
