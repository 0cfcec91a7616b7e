// Findings (docs/protocol.md, `findings`), DOM-free: each stream's list as the server last sent
// it (a message replaces the stream's list), where each finding sits on the player's time axis,
// the page's wanted finding (`?finding=<rule>`) and the link that opens the page at one.

const RULE_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
const DOC_LINK = /^\/rules#[a-z0-9][a-z0-9-]{0,63}$/;
export const SEVERITIES = Object.freeze(["error", "warning", "info"]); // most severe first

/** The rule a link asks for (`?finding=`), or null. */
export function wantedFinding(search) {
  const value = new URLSearchParams(search).get("finding") ?? "";
  return RULE_ID.test(value) ? value : null;
}

/** The link that opens this page with a finding selected: the page's address with `finding=`
 * in place of a moment, a token or a marker (a theme stays). */
export function findingUrl(href, rule) {
  const url = new URL(href);
  url.hash = ""; // a room presenter's key (#key=) never goes into a link (share.js)
  for (const key of ["t", "choice", "token", "lane", "autoplay", "m", "finding"]) url.searchParams.delete(key);
  url.searchParams.set("finding", rule);
  return url.toString();
}

/** A finding's doc link when it is the catalogue's (`/rules#<id>`), else null. */
export function docLink(finding) {
  return typeof finding.doc === "string" && DOC_LINK.test(finding.doc) ? finding.doc : null;
}

/** Each stream's findings, as the latest message of each said. */
export class FindingsState {
  constructor() {
    this.reset();
  }

  reset() {
    this.byStream = new Map();
    this.final = new Map();
  }

  /** A `findings` message: the stream's whole list, replacing the last. */
  received(message) {
    const list = Array.isArray(message.findings) ? message.findings : [];
    this.byStream.set(message.stream, list.map((finding, at) => ({ ...finding, stream: message.stream, key: `${message.stream}-${at}` })));
    this.final.set(message.stream, Boolean(message.final));
  }

  /** Every finding, stream by stream, each stream's in its order. */
  all() {
    return [...this.byStream.keys()].sort((a, b) => a - b).flatMap((stream) => this.byStream.get(stream));
  }

  counts() {
    const out = { error: 0, warning: 0, info: 0 };
    for (const finding of this.all()) if (finding.severity in out) out[finding.severity]++;
    return out;
  }

  /** The first finding of a rule, or null. */
  ofRule(rule) {
    return this.all().find((finding) => finding.rule === rule) ?? null;
  }
}

/** Where a finding is on the player's axis (ms): its raw event's time, as the chart places
 * chunks (timeline.js chunkMarks); a finding of the whole stream at the stream's end. */
export function findingTime(finding, timeline) {
  const stream = timeline.stream(finding.stream);
  if (!stream) return 0;
  const offset = stream.offset ?? 0;
  if (!Number.isInteger(finding.raw) || finding.raw < 0) return offset + stream.lastTime;
  const local = stream.paced ? finding.raw * timeline.paceMs : stream.raw.t[finding.raw] ?? finding.t ?? stream.lastTime;
  return offset + local;
}

/** Words for the counts: "1 error, 2 warnings" (none: "none"). */
export function countWords(counts) {
  const words = [];
  for (const severity of SEVERITIES) {
    const n = counts[severity] ?? 0;
    if (n) words.push(`${n} ${severity === "info" ? "info" : severity + (n === 1 ? "" : "s")}`);
  }
  return words.length ? words.join(", ") : "none";
}
