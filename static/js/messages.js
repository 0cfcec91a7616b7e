// The server's messages (docs/protocol.md) as calls on the player page's parts: the timeline
// grows, the renderer and raw view learn of new streams and events, the status line and alert
// say how loading went and how the recording ended, and a share link's moment is applied once
// everything is there.

import { SERVER_MESSAGES } from "./protocol.js";
import { State } from "./player.js";
import { drawTicks } from "./views/chart.js";
import { parseSpeed } from "./views/transport.js";

const END_WORDS = {
  error: "ended with an error",
  cancelled: "was stopped",
  disconnected: "lost its connection",
  client_stalled: "was stopped: the app that made the call read nothing",
};

/** How a recording ended when it did not end well (a live run's `end`, or a stored recording's
 * end reason in its streams' summaries), or null. */
export function endProblem(message, summaries) {
  if (message.reason !== "complete") return message.reason === "done" ? null : { reason: message.reason, error: message.error ?? null };
  const ended = summaries.find((s) => s && s.end_reason && s.end_reason !== "done");
  return ended ? { reason: ended.end_reason, error: ended.end_error ?? null } : null;
}

/** What the streams no known dialect reads say of themselves (their `unknown_dialect`
 * diagnostic: what the payloads look like and how to read them as a dialect), one a stream,
 * so that the page says it first; empty when every stream was read. */
export function unreadNotes(summaries) {
  const several = summaries.length > 1;
  const notes = [];
  for (const summary of summaries) {
    const found = (summary?.diagnostics ?? []).find((d) => d.code === "unknown_dialect");
    if (found) notes.push(several ? `Stream ${summary.index + 1}: ${found.message}` : found.message);
  }
  return notes;
}

export class PageMessages {
  /** `parts`: {timeline, renderer, player, rawView, status, transport, chart, selection};
   * `wanted`: a share link's state (share.js readState). */
  constructor(root, parts, wanted) {
    this.root = root;
    const { status, ...rest } = parts;
    Object.assign(this, rest);
    this.line = status; // the status line and alert (`status` is the message's name here)
    this.wanted = wanted;
    this.totalsDirty = false;
    this.logprobsOnly = root.querySelectorAll("[data-logprobs-only]");
  }

  handle(message) {
    // A room's own messages (room, mirror) are the room page's (room.js): none here.
    if (SERVER_MESSAGES.includes(message.type)) this[message.type]?.(message);
  }

  /** A new source: forget what the last one showed. */
  reset() {
    delete this.root.dataset.logprobs;
    for (const node of this.logprobsOnly) node.hidden = true;
  }

  /** Raw totals and the duration, when events brought new raw events (at most once per change). */
  updateTotals() {
    if (!this.totalsDirty) return;
    this.totalsDirty = false;
    this.rawView.setTotals(this.timeline.streams.map((s) => s.raw.t.length));
    this.transport.setDuration(this.timeline.duration);
  }

  hello(message) {
    if (Number.isInteger(message.max_raw_request)) this.rawView.maxRequest = message.max_raw_request;
  }

  capture(message) {
    this.timeline.setCapture(message);
    for (const info of message.streams) this.renderer.addStream(info);
    this.rawView.setTotals(message.streams.map((s) => s.raw));
    this.root.dataset.live = message.live ? "true" : "false";
    if (message.live) {
      this.player.follow();
      this.line.start(this.player);
      this.line.say("Live: following the stream as it arrives.");
    } else {
      const streams = message.streams.length;
      this.line.say(`Loading ${message.format ?? "capture"}: ${streams} stream${streams === 1 ? "" : "s"}…`);
    }
    for (const d of message.diagnostics) this.line.say(`${d.severity}: ${d.message}`, d.severity);
  }

  /** Raw event positions, times and names (a replay's whole list, or a live run's new ones). */
  raw_meta(message) {
    this.timeline.addRawMeta(message);
    this.totalsDirty = true;
    if (this.player.state !== State.LIVE) this.updateTotals();
  }

  events(message) {
    this.timeline.addEvents(message.stream, message.events);
    this._showLogprobsUi(message.events);
    if (this.player.state !== State.LIVE) this.updateTotals();
    this.player.dataArrived();
  }

  /** The probability legend and colour toggle only for captures with logprobs. */
  _showLogprobsUi(events) {
    if (this.root.dataset.logprobs === "true" || !events.some((event) => event.kind === "logprobs")) return;
    this.root.dataset.logprobs = "true";
    for (const node of this.logprobsOnly) node.hidden = false;
  }

  summary(message) {
    this.timeline.setSummary(message);
    this.renderer.view(message.stream)?.setSummary(message);
  }

  raw(message) {
    this.rawView.received(message);
  }

  status(message) {
    const warning = message.state === "retrying" || message.state === "fallback";
    this.line.say(message.message ?? message.state, warning ? "warning" : "info");
  }

  end(message) {
    const { timeline, line: status } = this;
    timeline.complete = true;
    this._drawOverview();
    this.player.dataArrived();
    this.renderer.refresh();
    this.root.dataset.loaded = "true";
    this.root.dataset.endReason = message.reason;
    const problem = endProblem(message, timeline.streams.map((s) => s.summary));
    if (problem) {
      const kind = problem.reason === "cancelled" ? "info" : "error";
      const words = `The recording ${END_WORDS[problem.reason] ?? `ended: ${problem.reason}`}`;
      if (problem.error) {
        status.alert(problem.error, { prefix: `${words}: `, kind });
        status.sayProblem(`Recording ended: ${problem.reason}: `, problem.error, kind);
      } else {
        status.alert(`${words}.`, { kind });
        status.say(`Recording ended: ${problem.reason}.`, kind);
      }
    } else if (message.reason === "complete") {
      const unread = unreadNotes(timeline.streams.map((s) => s.summary));
      if (unread.length) status.say(`${unread.join(". ")}. Ready: ${counts(timeline)}.`, "warning");
      else status.say(`Ready: ${counts(timeline)}.`);
    } else status.say(`Run finished: ${counts(timeline)}.`);
    status.start(this.player);
    this._applyWanted();
  }

  error(message) {
    this.line.alert(message, { prefix: "Error: " });
    this.line.sayProblem("Error: ", message);
    this.root.dataset.loaded = "error";
  }

  _drawOverview() {
    const { timeline } = this;
    const marks = timeline.chunkMarks(timeline.capture?.stall_ms ?? 250);
    this.chart.setMarks(marks, timeline.duration);
    drawTicks(this.root.querySelector(".seek .ticks"), marks, timeline.duration);
    this.transport.setDuration(timeline.duration);
  }

  /** A share link's moment, speed, token and autoplay. */
  _applyWanted() {
    const { wanted, player } = this;
    if (wanted.speed !== null) player.setSpeed(parseSpeed(wanted.speed));
    this.transport.update();
    if (wanted.t !== null) player.seek(wanted.t * 1000);
    if (wanted.token !== null) this.selection.restore(wanted);
    if (wanted.autoplay) player.play();
  }
}

/** The two counts, each named: raw events (what the raw view lists: SSE events, lines, frames)
 * and the timeline events read from them (docs/timeline.md), which differ. */
export function counts(timeline) {
  const raw = timeline.streams.reduce((sum, s) => sum + s.raw.t.length, 0);
  return `${raw} raw event${raw === 1 ? "" : "s"}, read as ${timeline.length} timeline event${timeline.length === 1 ? "" : "s"}`;
}
