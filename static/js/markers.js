// Markers (docs/teaching.md, "Markers"), DOM-free: the automatic ones computed from the
// timeline of any dialect, where each marker sits on the player's time axis, jumping between
// them, and the link that opens one (`?m=<id>`).
//
// A marker here is {id, kind: "auto" | "user", label, note, time (ms on the player's axis)}.
// User markers come from the store ({t} in seconds, or {event, stream}); automatic ones from the
// timeline's typed events (docs/timeline.md), which every dialect maps onto.

const NEAR_MS = 0.5; // a marker this close to the playhead is the one it is at

// An event's label, when the dialect gave one (an integer reason's name: "STOP (1)").
function finishWord(event) {
  if (typeof event.label === "string") return event.label;
  const reason = event.reason;
  return typeof reason === "string" || typeof reason === "number" ? String(reason) : "finish";
}

/** The automatic markers of a complete timeline, in time order: first token, first reasoning
 * token, each tool call's start and end, each stall at or over the threshold, the first error,
 * and each output's finish (or the stream's end when none came). */
export function autoMarkers(timeline, stallMs = timeline.capture?.stall_ms ?? 250) {
  const out = [];
  const several = timeline.streams.length > 1;
  for (const stream of timeline.streams) {
    const prefix = several ? `Stream ${stream.index + 1}: ` : "";
    const add = (key, label, time, note = "") => out.push({ id: `auto-${stream.index}-${key}`, kind: "auto", label: prefix + label, note, time });
    const seen = new Set();
    let finished = false;
    for (const event of stream.events) {
      const call = `${event.choice ?? 0}-${event.call}`;
      if ((event.kind === "text" || event.kind === "refusal") && event.text && !seen.has("token")) {
        seen.add("token");
        add("first-token", "First token", event.time);
      } else if (event.kind === "reasoning" && event.text && !seen.has("reasoning")) {
        seen.add("reasoning");
        add("first-reasoning", "First reasoning token", event.time);
      } else if (event.kind === "tool_start" && !seen.has(`start ${call}`)) {
        seen.add(`start ${call}`);
        add(`tool-${call}-start`, `Tool call starts: ${event.name ?? "(no name)"}`, event.time);
      } else if (event.kind === "tool_end" && !seen.has(`end ${call}`)) {
        seen.add(`end ${call}`);
        add(`tool-${call}-end`, `Tool call ends: ${event.name ?? "(no name)"} (${event.status})`, event.time, event.error ?? "");
      } else if (event.kind === "error" && !seen.has("error")) {
        seen.add("error");
        add("first-error", "First error", event.time, event.message ?? "");
      } else if (event.kind === "finish" && !seen.has(`finish ${event.choice}`)) {
        seen.add(`finish ${event.choice}`);
        finished = true;
        const which = stream.events.some((e) => e.kind === "finish" && e.choice !== event.choice) ? ` (output ${event.choice})` : "";
        add(`finish-${event.choice}`, `Finish${which}: ${finishWord(event)}`, event.time);
      }
    }
    const last = stream.events[stream.events.length - 1];
    if (!finished && last) add("end", "End of stream", last.time);
  }
  for (const mark of timeline.chunkMarks(stallMs)) {
    if (!mark.stall) continue;
    const prefix = several ? `Stream ${mark.stream + 1}: ` : "";
    out.push({ id: `auto-${mark.stream}-stall-${mark.raw}`, kind: "auto", label: `${prefix}Stall: ${Math.round(mark.gap)} ms`, note: "", time: mark.time });
  }
  return byTime(out);
}

/** A stored marker on the player's axis: its event's time, or its `t` (seconds) within the
 * timeline; null when its event is not in the timeline. */
export function placeUserMarker(marker, timeline) {
  let time;
  if (typeof marker.t === "number") time = Math.min(marker.t * 1000, timeline.duration);
  else {
    const events = timeline.stream(marker.stream ?? 0)?.events ?? [];
    const event = events[marker.event]?.seq === marker.event ? events[marker.event] : events.find((e) => e.seq === marker.event);
    if (!event) return null;
    time = event.time;
  }
  return { id: String(marker.id), kind: "user", label: String(marker.label ?? ""), note: String(marker.note ?? ""), time };
}

export function byTime(markers) {
  return markers.map((m, i) => [m, i]).sort((a, b) => a[0].time - b[0].time || a[1] - b[1]).map(([m]) => m);
}

/** The next marker after `now` (ms), or null. */
export function nextMarker(markers, now) {
  return markers.find((m) => m.time > now + NEAR_MS) ?? null;
}

/** The last marker before `now` (ms), or null. */
export function previousMarker(markers, now) {
  let found = null;
  for (const m of markers) if (m.time < now - NEAR_MS) found = m;
  return found;
}

/** The link that opens this page at a marker: the page's address with `m=` in place of a
 * moment or a token (a theme stays). */
export function markerUrl(href, id) {
  const url = new URL(href);
  url.hash = ""; // a room presenter's key (#key=) never goes into a link (share.js)
  for (const key of ["t", "choice", "token", "lane", "autoplay", "m"]) url.searchParams.delete(key);
  url.searchParams.set("m", id);
  return url.toString();
}
