// Messages from a timeline document instead of a websocket (docs/protocol.md, "The timeline
// document"): the exported player reads its own, inline; the player page fetches a stored
// capture's over HTTP (httpLink). It delivers what a replay's connection would (`hello`, then
// the document's messages in order) and answers the raw view's `raw_request` from the
// document's raw texts or from the server's raw pages, so the page cannot tell the difference.

import { MAX_RAW_REQUEST, VERSION } from "./protocol.js";

export const GONE = "this capture was deleted or has expired";

/** The capture is no longer there (404): said as the websocket says it, an `error` message. */
export class Gone extends Error {}

export class DocumentLink {
  /** `load()`: a promise of the document; the rest as ResumingConnection's (resume.js);
   * `fetchRaw({stream, start, count})`: a promise of the `raw` message answering a
   * raw_request (without it, the document's own raw texts answer). */
  constructor(load, timeline, deliver, report, { fetchRaw = null, server = "exported file" } = {}) {
    this.load = load;
    this.deliver = deliver;
    this.report = report;
    this.fetchRaw = fetchRaw;
    this.server = server;
    this.raw = new Map(); // stream -> raw items, by index
    this.run = 0; // which start() the answers arriving belong to
  }

  async start() {
    const run = ++this.run;
    let doc;
    try {
      doc = await this.load();
    } catch (error) {
      if (run === this.run) this._failed(error, "the timeline could not be read");
      return;
    }
    if (run !== this.run) return;
    if (doc?.version !== VERSION || !Array.isArray(doc.messages)) {
      this.report.failed(`this file holds a timeline of protocol version ${doc?.version} and its player reads version ${VERSION}`);
      return;
    }
    for (const message of doc.raw ?? []) {
      const items = this.raw.get(message.stream) ?? [];
      message.items.forEach((item, i) => (items[message.start + i] = item));
      this.raw.set(message.stream, items);
    }
    this.deliver({ type: "hello", version: VERSION, server: this.server, max_message: 0, max_raw_request: MAX_RAW_REQUEST });
    for (const message of doc.messages) this.deliver(message);
  }

  send(type, fields) {
    if (type !== "raw_request") return;
    const count = Math.min(fields.count, MAX_RAW_REQUEST);
    const run = this.run;
    if (this.fetchRaw) {
      this.fetchRaw({ stream: fields.stream, start: fields.start, count }).then(
        (message) => run === this.run && this.deliver(message),
        (error) => run === this.run && this._failed(error, "raw events could not be read"),
      );
      return;
    }
    const items = this.raw.get(fields.stream) ?? [];
    // Answered on the next turn, as a server's answer would be.
    setTimeout(() => this.deliver({ type: "raw", stream: fields.stream, start: fields.start, items: items.slice(fields.start, fields.start + count) }), 0);
  }

  stop() {
    this.run++;
  }

  _failed(error, what) {
    if (error instanceof Gone) this.deliver({ type: "error", code: "no_capture", message: GONE });
    else this.report.failed(`${what} (${error.message})`);
  }
}

/** A stored capture replayed over HTTP: its timeline document at its immutable URL and its raw
 * texts a page at a time (`timelineUrl`, `rawUrl`: the player's data attributes, pages.py). The
 * browser's cache and any proxy in front keep both; no websocket is opened. A request that
 * did not reach the server, or met a proxy without a server behind it (502, 503, 504), is
 * tried again after each of `delays` ms, as a dropped websocket reconnects (resume.js). */
export function httpLink({ timelineUrl, rawUrl }, timeline, deliver, report, { delays = RETRY_DELAYS } = {}) {
  const get = (url) => fetchJson(url, delays, report);
  const fetchRaw = ({ stream, start, count }) => get(`${rawUrl}&stream=${stream}&start=${start}&count=${count}`);
  return new DocumentLink(() => get(timelineUrl), timeline, deliver, report, { fetchRaw, server: "streamscope over HTTP" });
}

export const RETRY_DELAYS = [250, 1000, 4000];
const TRANSIENT = new Set([502, 503, 504]);

async function fetchJson(url, delays, report) {
  for (let attempt = 0; ; attempt++) {
    let response = null;
    let problem;
    try {
      response = await fetch(url, { headers: { Accept: "application/json" } });
      if (response.status === 404) throw new Gone(GONE);
      if (response.ok) return await response.json();
      problem = new Error(`the server answered ${response.status}`);
    } catch (error) {
      if (error instanceof Gone || response?.ok) throw error; // gone, or not JSON: no retry
      problem = error;
    }
    if ((response && !TRANSIENT.has(response.status)) || attempt >= delays.length) throw problem;
    report.say(`Reading the timeline failed (${problem.message}): trying again (attempt ${attempt + 1} of ${delays.length})…`, "warning");
    await new Promise((resolve) => setTimeout(resolve, delays[attempt]));
  }
}
