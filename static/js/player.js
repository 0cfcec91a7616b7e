// Playback as an explicit state machine, driven by a speed-scaled clock (DOM-free).
//
// The player owns a cursor: how many timeline events are on screen. Each animation frame it
// moves the cursor to the events due at the clock's time and tells the renderer once, so
// tokens are appended once per frame whatever the rate. Seeking, stepping and speed changes
// are local: they never wait for the server.

import { Clock } from "./clock.js";
import { momentFor } from "./share.js";

export const State = Object.freeze({
  LOADING: "loading", // no events yet
  LIVE: "live", // following a live run's edge: every event is shown as it arrives
  PAUSED: "paused", // events loaded, clock stopped
  PLAYING: "playing", // clock running, cursor follows it
  ENDED: "ended", // cursor at the last event of a complete timeline
});

export const SPEEDS = Object.freeze([0.25, 0.5, 1, 1.5, 2, 3, 5, 10, "max"]);
export const MAX_SPEED_BATCH = 4000; // events per frame at "max" speed
export const SEEK_STEP_MS = 5000;

export class Player {
  /**
   * @param timeline  a Timeline
   * @param renderer  {moveTo(cursor, previous), tick(time, cursor)}
   * @param options   {now, requestFrame}
   */
  constructor(timeline, renderer, { now, requestFrame } = {}) {
    this.timeline = timeline;
    this.renderer = renderer;
    this.clock = new Clock(now);
    this.requestFrame = requestFrame ?? ((fn) => requestAnimationFrame(fn));
    this.state = State.LOADING;
    this.cursor = 0;
    this.speed = 1;
    this.loop = false;
    this.listeners = new Set();
    this._framePending = false;
  }

  reset() {
    this.clock.stop();
    this.clock.set(0);
    this.cursor = 0;
    this.state = State.LOADING;
    this._emit();
  }

  onChange(listener) {
    this.listeners.add(listener);
  }

  _emit() {
    for (const listener of this.listeners) listener(this);
  }

  time() {
    return this.speed === "max" ? this.timeline.timeOfCursor(this.cursor) : this.clock.time();
  }

  /** The moment to show and to put in a link ({seconds, ms, decimals}): while playing, the
   * clock's time; otherwise a time that reopens exactly this screen (share.js momentFor). */
  moment() {
    const time = this.time();
    if (this.state === State.PLAYING) return { seconds: (Math.round(time) / 1000).toString(), ms: time, decimals: 3 };
    const times = this.timeline.times;
    const lo = this.cursor > 0 ? times[this.cursor - 1] : 0;
    const hi = this.cursor < times.length ? times[this.cursor] : Infinity;
    return momentFor(time, lo, hi);
  }

  dataArrived() {
    if (this.state === State.LIVE) {
      if (!this.timeline.complete) {
        // One screen update per animation frame, however many messages arrive before it.
        if (!this._livePending) {
          this._livePending = true;
          this.requestFrame(() => this._liveFrame());
        }
        return;
      }
      this._liveFrame();
      return;
    }
    if (this.state === State.LOADING && this.timeline.length) this.state = State.PAUSED;
    if (this.state === State.ENDED && this.cursor < this.timeline.length) this.state = State.PAUSED;
    this._emit();
  }

  _liveFrame() {
    this._livePending = false;
    if (this.state !== State.LIVE) return;
    this.clock.set(this.timeline.duration);
    this._moveTo(this.timeline.length);
    if (this.timeline.complete) this.state = State.ENDED;
    this._emit();
  }

  /** Follow the live edge (a live run): show each event as it arrives. */
  follow() {
    this.clock.stop();
    this.state = State.LIVE;
    this.clock.set(this.timeline.duration);
    this._moveTo(this.timeline.length);
    this._emit();
  }

  play() {
    if (this.state === State.LOADING || this.state === State.LIVE) return;
    if (this.state === State.ENDED || this.cursor >= this.timeline.length) this.seek(0);
    this.state = State.PLAYING;
    this.clock.start();
    this._schedule();
    this._emit();
  }

  pause() {
    this.clock.stop();
    if (this.state === State.PLAYING || this.state === State.LIVE) this.state = State.PAUSED;
    this._emit();
  }

  get live() {
    return Boolean(this.timeline.capture?.live) && !this.timeline.complete;
  }

  toggle() {
    if (this.state === State.PLAYING || this.state === State.LIVE) this.pause();
    else this.play();
  }

  setSpeed(speed) {
    this.speed = speed;
    if (speed !== "max") this.clock.setSpeed(speed); // at "max" the clock follows the cursor
    this._emit();
  }

  faster() {
    const i = SPEEDS.indexOf(this.speed);
    this.setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, i + 1)]);
  }

  slower() {
    const i = SPEEDS.indexOf(this.speed);
    this.setSpeed(SPEEDS[Math.max(0, i - 1)]);
  }

  /** Jump to a media time (ms). */
  seek(ms) {
    const clamped = Math.max(0, Math.min(ms, this.timeline.duration));
    this.clock.set(clamped);
    this._moveTo(this.timeline.indexAtTime(clamped));
    if (this.state === State.LIVE) this.state = State.PAUSED; // scrubbing back leaves the live edge
    if (this.state === State.ENDED && this.cursor < this.timeline.length) this.state = State.PAUSED;
    this._emit();
  }

  seekBy(ms) {
    this.seek(this.time() + ms);
  }

  /** Put the cursor on an exact event count (stepping), and the clock on its time: `at` (ms)
   * when given and it is a time of that screen (between the cursor's last event and the next,
   * as a pause mid-stall is), else the time of the cursor's last event. */
  setCursor(cursor, at = null) {
    this.pause();
    const lo = this.timeline.timeOfCursor(cursor);
    const next = this.timeline.times[cursor] ?? Infinity;
    this.clock.set(at !== null && at >= lo && at < next ? at : lo);
    this._moveTo(cursor);
    this.state = cursor >= this.timeline.length && this.timeline.complete ? State.ENDED : State.PAUSED;
    this._emit();
  }

  stepForward() {
    this.setCursor(this.timeline.nextChunk(this.cursor));
  }

  stepBack() {
    this.setCursor(this.timeline.previousChunk(this.cursor));
  }

  toStart() {
    this.setCursor(0);
  }

  toEnd() {
    this.setCursor(this.timeline.length);
  }

  _moveTo(cursor) {
    const previous = this.cursor;
    if (cursor === previous) return;
    this.cursor = cursor;
    this.renderer.moveTo(cursor, previous);
  }

  _schedule() {
    if (this._framePending) return;
    this._framePending = true;
    this.requestFrame(() => this.frame());
  }

  /** One animation frame: bring the screen to the clock. */
  frame() {
    this._framePending = false;
    if (this.state !== State.PLAYING) return;
    const total = this.timeline.length;
    let target;
    if (this.speed === "max") {
      target = Math.min(total, this.cursor + MAX_SPEED_BATCH);
      this.clock.set(this.timeline.timeOfCursor(target));
    } else {
      target = this.timeline.indexAtTime(this.clock.time());
    }
    this._moveTo(target);
    if (this.cursor >= total && !this.timeline.complete && this.live) {
      this.follow(); // caught up with a live run: follow its edge again
      return;
    }
    if (this.cursor >= total && this.timeline.complete) {
      if (this.loop && total > 0) {
        this.seek(0);
      } else {
        this.clock.stop();
        this.clock.set(this.timeline.duration);
        this.state = State.ENDED;
        this._emit();
        return;
      }
    }
    this.renderer.tick?.(this.time(), this.cursor);
    this._schedule();
  }
}
