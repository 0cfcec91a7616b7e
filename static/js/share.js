// Share-link state: t (seconds or m:ss), speed, autoplay, choice, token and lane (a selected
// token), theme, m (a marker: markers.js) (pure).

export const THEMES = Object.freeze(["light", "dark", "contrast"]);
const LANE_NAMES = Object.freeze(["text", "reasoning", "refusal"]);

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
  const lane = params.get("lane");
  return {
    t: parseTime(params.get("t")),
    speed: params.get("speed"),
    autoplay: ["1", "true", "yes"].includes((params.get("autoplay") || "").toLowerCase()),
    choice: integer(params.get("choice")),
    token: integer(params.get("token")),
    lane: LANE_NAMES.includes(lane) ? lane : "text",
    theme: THEMES.includes(theme) ? theme : null,
    m: /^[A-Za-z0-9_-]{1,64}$/.test(params.get("m") ?? "") ? params.get("m") : null,
  };
}

/** A link to `href` at a moment: `t` is the seconds text of momentFor() (or a number). */
export function shareUrl(href, { t, speed, choice, token, lane = "text", autoplay, theme = null }) {
  const url = new URL(href);
  url.hash = ""; // a room presenter's page holds its key there (#key=): never in a shared link
  for (const key of ["t", "speed", "choice", "token", "lane", "autoplay", "theme"]) url.searchParams.delete(key);
  url.searchParams.set("t", typeof t === "string" ? t : (Math.round(t * 1000) / 1000).toString());
  if (speed !== 1) url.searchParams.set("speed", String(speed));
  if (choice !== null && choice !== undefined && token !== null && token !== undefined && token >= 0) {
    url.searchParams.set("choice", String(choice));
    url.searchParams.set("token", String(token));
    if (lane !== "text") url.searchParams.set("lane", lane);
  }
  if (autoplay) url.searchParams.set("autoplay", "1");
  if (THEMES.includes(theme)) url.searchParams.set("theme", theme);
  return url.toString();
}

/**
 * The moment to show and to put in a link for a paused screen: a time that reopens exactly the
 * same screen. The screen holds the events with times below `hi` and at or above `lo` (the
 * last one on it); a link's `t` is read back as Number(t) * 1000 ms and shows the events at or
 * before it. Prefer `time` rounded to the ms; at the very end (`time` is the last event's time,
 * say 1482.064 ms) rounding down would drop that event, so the next whole ms (1.483 s) is
 * taken, and finer decimals only when two events are less than a ms apart.
 * Returns {seconds: text for a link, ms: its value, decimals: for the clock}.
 */
export function momentFor(time, lo, hi) {
  const fits = (text) => {
    const ms = Number(text) * 1000;
    return ms >= lo && ms < hi;
  };
  for (let decimals = 3; decimals <= 9; decimals++) {
    const scale = 10 ** (decimals - 3); // units per ms
    for (const units of [Math.round(time * scale), Math.floor(time * scale), Math.ceil(lo * scale)]) {
      const text = (units / (1000 * scale)).toFixed(decimals);
      if (fits(text)) return { seconds: text.replace(/0+$/, "").replace(/\.$/, ""), ms: Number(text) * 1000, decimals };
    }
  }
  return { seconds: (lo / 1000).toString(), ms: lo, decimals: 3 }; // not reachable for sane times
}
