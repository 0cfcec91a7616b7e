// A connection that comes back: when the socket drops unexpectedly, it reconnects with
// backoff and asks for what the page lacks (`open` with `resume`, docs/protocol.md), so the
// page gets no duplicates and no gaps. A live run's starter comes back as a follower of its
// recording (the server stops a run whose starter went away).

import { Connection, websocketUrl } from "./connection.js";

export const RETRY_DELAYS = [250, 500, 1000, 2000, 4000, 8000, 8000, 8000];

/** Where to resume: the last stream that has events, and how many it has. */
export function resumePoint(timeline) {
  let stream = 0;
  timeline.streams.forEach((s, i) => {
    if (s.events.length) stream = i;
  });
  return { stream, events: timeline.streams[stream]?.events.length ?? 0 };
}

export class ResumingConnection {
  /**
   * @param timeline  the page's Timeline (what it already has)
   * @param deliver   called with each message the page should handle
   * @param report    {say(text, kind), state(name or null), reconnected()}
   */
  constructor(timeline, deliver, report) {
    this.timeline = timeline;
    this.deliver = deliver;
    this.report = report;
    this.connection = null;
  }

  start(first) {
    this.stop();
    this.first = first; // open a source, or start a run
    this.captureId = null; // a live run's capture, once started
    this.attempt = 0;
    this.resuming = false;
    this._open(first);
  }

  send(type, fields) {
    this.connection?.send(type, fields);
  }

  stop() {
    if (this.connection) {
      this.connection.closing = true;
      this.connection.close();
    }
  }

  _open(message) {
    const socket = new Connection(websocketUrl(), {
      message: (incoming) => this._message(socket, incoming),
      closed: (event) => {
        if (socket !== this.connection || socket.closing) return; // replaced or closed on purpose
        if (event.code === 1000 && this.timeline.complete) return; // the server finished cleanly
        this._reopen();
      },
      failed: () => {},
    });
    this.connection = socket;
    socket.openWith(message);
  }

  _message(socket, incoming) {
    if (incoming.type === "hello" && this.attempt > 0) {
      this.attempt = 0;
      this.report.reconnected();
    }
    if (incoming.type === "status" && incoming.state === "started") this.captureId = incoming.capture;
    if (incoming.type === "error") socket.closing = true; // the server refused: do not retry
    if (this.resuming && incoming.type === "capture") {
      this.resuming = false; // the page already has it; only what is missing follows
      return;
    }
    if (this.timeline.complete && (incoming.type === "summary" || incoming.type === "end")) return;
    this.deliver(incoming);
  }

  _reopen() {
    const first = this.first;
    const source = first.type === "open" ? first.source : this.captureId ? { capture: this.captureId } : null;
    if (!source) {
      this.report.say("The connection was lost before the run started.", "error");
      return;
    }
    this.attempt += 1;
    if (this.attempt > RETRY_DELAYS.length) {
      this.report.say("Could not reconnect. Reload the page to try again.", "error");
      this.report.state(null);
      return;
    }
    this.report.state("reconnecting");
    this.report.say(`Connection lost: reconnecting (attempt ${this.attempt})…`, "warning");
    setTimeout(() => {
      this.resuming = Boolean(this.timeline.capture);
      this._open(this.resuming ? { type: "open", source, resume: resumePoint(this.timeline) } : { type: "open", source });
    }, RETRY_DELAYS[this.attempt - 1]);
  }
}
