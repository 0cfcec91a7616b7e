// Messages from a timeline document instead of a websocket (docs/protocol.md, "The timeline
// document"): the exported player reads its own, inline. It delivers what a replay's
// connection would (`hello`, then the document's messages in order) and answers the raw
// view's `raw_request` from the document's raw texts, so the page cannot tell the difference.

import { VERSION } from "./protocol.js";

export const MAX_RAW_REQUEST = 500;

export class DocumentLink {
  /** `load()`: a promise of the document; the rest as ResumingConnection's (resume.js). */
  constructor(load, timeline, deliver, report) {
    this.load = load;
    this.deliver = deliver;
    this.report = report;
    this.raw = new Map(); // stream -> raw items, by index
  }

  async start() {
    let doc;
    try {
      doc = await this.load();
    } catch (error) {
      this.report.failed(`the timeline could not be read (${error.message})`);
      return;
    }
    if (doc?.version !== VERSION || !Array.isArray(doc.messages)) {
      this.report.failed(`this file holds a timeline of protocol version ${doc?.version} and its player reads version ${VERSION}`);
      return;
    }
    for (const message of doc.raw ?? []) {
      const items = this.raw.get(message.stream) ?? [];
      message.items.forEach((item, i) => (items[message.start + i] = item));
      this.raw.set(message.stream, items);
    }
    this.deliver({ type: "hello", version: VERSION, server: "exported file", max_message: 0, max_raw_request: MAX_RAW_REQUEST });
    for (const message of doc.messages) this.deliver(message);
  }

  send(type, fields) {
    if (type !== "raw_request") return;
    const items = this.raw.get(fields.stream) ?? [];
    const count = Math.min(fields.count, MAX_RAW_REQUEST);
    // Answered on the next turn, as a server's answer would be.
    setTimeout(() => this.deliver({ type: "raw", stream: fields.stream, start: fields.start, items: items.slice(fields.start, fields.start + count) }), 0);
  }

  stop() {}
}
