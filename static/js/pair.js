// Two timelines on one clock (the compare page, docs/teaching.md), DOM-free. Each side shows
// the events due at the clock's time plus its shift: 0 for both when they are lined up at the
// request start; at the first token, the side whose first token came later is shifted by the
// difference, so both first tokens show at the same moment. It offers what the transport
// (views/transport.js) drives a player with: play, pause, seek, step, speed, start, end.

import { Clock } from "./clock.js";
import { SPEEDS, State } from "./player.js";
import { momentFor } from "./share.js";

export const OUTPUT_KINDS = new Set(["text", "reasoning", "refusal", "tool_args"]);
export const MAX_SPEED = 1000; // "max" plays a thousand times faster than real time
const BEFORE = 1e-6; // ms: a moment just before an event

/** Does an event belong to the output a side compares? (Events of no output, such as usage or
 * the end of the stream, belong to every one.) */
export function kept(event, choice) {
  return event.choice === undefined || event.choice === null || event.choice === choice;
}

/** The time of a timeline's first output (text, reasoning, refusal or tool arguments), or null. */
export function firstOutputTime(timeline) {
  const found = timeline.events.find((event) => OUTPUT_KINDS.has(event.kind));
  return found ? found.time : null;
}

/** Each side's shift for an alignment ("start" or "first-token"). A side without output is
 * not shifted. */
export function shiftsFor(timelines, align) {
  const firsts = timelines.map(firstOutputTime);
  if (align !== "first-token" || firsts.some((t) => t === null)) return timelines.map(() => 0);
  const earliest = Math.min(...firsts);
  return firsts.map((t) => t - earliest);
}

export class PairedPlayer {
  /** `sides`: [{timeline, renderer: {moveTo(cursor)}}]; `screen`: {tick()} once per frame. */
  constructor(sides, screen, { now, requestFrame } = {}) {
    this.sides = sides.map((side) => ({ ...side, shift: 0, cursor: 0 }));
    this.screen = screen;
    this.clock = new Clock(now);
    this.requestFrame = requestFrame ?? ((fn) => requestAnimationFrame(fn));
    this.state = State.LOADING;
    this.speed = 1;
    this.loop = false;
    this.live = false;
    this.listeners = new Set();
    this._framePending = false;
  }

  onChange(listener) {
    this.listeners.add(listener);
  }

  _emit() {
    for (const listener of this.listeners) listener(this);
  }

  /** Events on screen on both sides (for the status line's "paused at" key). */
  get cursor() {
    return this.sides.reduce((sum, side) => sum + side.cursor, 0);
  }

  get duration() {
    return Math.max(0, ...this.sides.map((side) => side.timeline.duration - side.shift));
  }

  time() {
    return this.clock.time();
  }

  /** Both sides are here: ready to play. */
  dataArrived() {
    if (this.state === State.LOADING && this.sides.every((side) => side.timeline.complete)) {
      this.state = State.PAUSED;
      this._moveTo(this.time());
    }
    this._emit();
  }

  /** Line the sides up anew (shifts in ms), keeping the clock where it is. */
  setShifts(shifts) {
    shifts.forEach((shift, i) => (this.sides[i].shift = shift));
    this.seek(Math.min(this.time(), this.duration));
  }

  moment() {
    const time = this.time();
    if (this.state === State.PLAYING) return { seconds: (Math.round(time) / 1000).toString(), ms: time, decimals: 3 };
    let lo = 0;
    let hi = Infinity;
    for (const { timeline, shift, cursor } of this.sides) {
      if (cursor > 0) lo = Math.max(lo, timeline.times[cursor - 1] - shift);
      if (cursor < timeline.length) hi = Math.min(hi, timeline.times[cursor] - shift);
    }
    return momentFor(time, Math.min(lo, time), Math.max(hi, time + BEFORE));
  }

  play() {
    if (this.state === State.LOADING) return;
    if (this.state === State.ENDED || this.time() >= this.duration) this.seek(0);
    this.state = State.PLAYING;
    this.clock.start();
    this._schedule();
    this._emit();
  }

  pause() {
    this.clock.stop();
    if (this.state === State.PLAYING) this.state = State.PAUSED;
    this._emit();
  }

  toggle() {
    if (this.state === State.PLAYING) this.pause();
    else this.play();
  }

  follow() {} // never live: both sides are recordings

  setSpeed(speed) {
    this.speed = speed;
    this.clock.setSpeed(speed === "max" ? MAX_SPEED : speed);
    this._emit();
  }

  faster() {
    this.setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, SPEEDS.indexOf(this.speed) + 1)]);
  }

  slower() {
    this.setSpeed(SPEEDS[Math.max(0, SPEEDS.indexOf(this.speed) - 1)]);
  }

  seek(ms) {
    const clamped = Math.max(0, Math.min(ms, this.duration));
    this.clock.set(clamped);
    this._moveTo(clamped);
    if (this.state === State.ENDED && clamped < this.duration) this.state = State.PAUSED;
    this._emit();
  }

  seekBy(ms) {
    this.seek(this.time() + ms);
  }

  /** To the next chunk of either side (whichever comes first on the clock). */
  stepForward() {
    let next = Infinity;
    for (const { timeline, shift, cursor } of this.sides) {
      const after = timeline.nextChunk(cursor);
      if (after > cursor) next = Math.min(next, timeline.timeOfCursor(after) - shift);
    }
    this._stepTo(next === Infinity ? this.duration : Math.max(0, next));
  }

  /** Back to just before the last chunk shown on either side. */
  stepBack() {
    let last = -Infinity;
    for (const { timeline, shift, cursor } of this.sides) {
      if (cursor > 0) last = Math.max(last, timeline.times[timeline.previousChunk(cursor)] - shift);
    }
    this._stepTo(last === -Infinity ? 0 : Math.max(0, last - BEFORE));
  }

  _stepTo(ms) {
    this.clock.stop();
    this.state = State.PAUSED;
    this.seek(ms);
    if (ms >= this.duration) this.state = State.ENDED;
    this._emit();
  }

  toStart() {
    this._stepTo(0);
  }

  toEnd() {
    this._stepTo(this.duration);
  }

  _moveTo(ms) {
    for (const side of this.sides) {
      const cursor = side.timeline.indexAtTime(ms + side.shift);
      if (cursor !== side.cursor) {
        side.cursor = cursor;
        side.renderer.moveTo(cursor);
      }
    }
  }

  _schedule() {
    if (this._framePending) return;
    this._framePending = true;
    this.requestFrame(() => this.frame());
  }

  /** One animation frame: both sides to the clock. */
  frame() {
    this._framePending = false;
    if (this.state !== State.PLAYING) return;
    const time = this.clock.time();
    if (time >= this.duration) {
      this._moveTo(this.duration);
      if (this.loop && this.duration > 0) this.seek(0);
      else {
        this.clock.stop();
        this.clock.set(this.duration);
        this.state = State.ENDED;
        this._emit();
        return;
      }
    } else this._moveTo(time);
    this.screen.tick?.();
    this._schedule();
  }
}

