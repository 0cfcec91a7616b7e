// A connection that comes back: when the socket drops unexpectedly, it reconnects with
// backoff and asks for what the page lacks (`open` with `resume`, docs/protocol.md), so the
// page gets no duplicates and no gaps. A live run's starter comes back as a follower of its
// recording (the server stops a run whose starter went away).

import { Connection, VersionMismatch, websocketUrl } from "./connection.js";
import { ProtocolError } from "./protocol.js";

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
   * @param report    {say(text, kind), failed(text), state(name or null), reconnected()}:
   *                  `failed` says what the user must know (a message the page cannot read,
   *                  a server speaking another protocol version, reconnecting given up)
   */
  constructor(timeline, deliver, report, { delays = RETRY_DELAYS } = {}) {
    this.delays = delays;
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
        this._reopen(event);
      },
      failed: (error) => this._failed(socket, error),
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

  /** A message the page cannot read is said (and skipped); another protocol version is said
   * and ends the connection for good; a socket error is followed by its close (reconnecting). */
  _failed(socket, error) {
    if (error instanceof VersionMismatch) {
      socket.closing = true; // reconnecting would meet the same server
      this.report.state(null);
      this.report.failed(error.message);
    } else if (error instanceof ProtocolError) {
      this.report.failed(`the server sent a message this page cannot read (${error.message})`);
    }
  }

  _reopen(event) {
    const first = this.first;
    const source = first.type === "open" ? first.source : this.captureId ? { capture: this.captureId } : null;
    const why = closeReason(event);
    if (!source && first.type !== "join") {
      this.report.failed(`the connection was lost before the run started (${why})`);
      return;
    }
    this.attempt += 1;
    if (this.attempt > this.delays.length) {
      this.report.state(null);
      this.report.failed(`could not reconnect after ${this.delays.length} attempts (${why}); reload the page to try again`);
      return;
    }
    this.report.state("reconnecting");
    this.report.say(`Connection lost (${why}): reconnecting (attempt ${this.attempt} of ${this.delays.length})…`, "warning");
    setTimeout(() => {
      this.resuming = Boolean(this.timeline.capture);
      const again = first.type === "join" ? { ...first } : { type: "open", source }; // a room: join it again
      this._open(this.resuming ? { ...again, resume: resumePoint(this.timeline) } : again);
    }, this.delays[this.attempt - 1]);
  }
}

/** A websocket close in words: its code, and its reason when the server gave one. */
export function closeReason(event) {
  const code = event?.code ?? 1006;
  const words = code === 1006 ? "no answer from the server" : event.reason || "closed";
  return `${words}, code ${code}`;
}
