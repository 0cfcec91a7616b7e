// A speed-scaled playback clock: media time in ms, driven by a monotonic wall clock.
// Pure: the wall clock is injected, so tests use a fake one.

export class Clock {
  constructor(now = () => performance.now()) {
    this._now = now;
    this._speed = 1;
    this._running = false;
    this._base = 0; // media time when last (re)started or set
    this._wallStart = 0;
  }

  get speed() {
    return this._speed;
  }

  get running() {
    return this._running;
  }

  /** Current media time in ms. */
  time() {
    if (!this._running) return this._base;
    return this._base + (this._now() - this._wallStart) * this._speed;
  }

  start() {
    if (this._running) return;
    this._wallStart = this._now();
    this._running = true;
  }

  stop() {
    if (!this._running) return;
    this._base = this.time();
    this._running = false;
  }

  set(ms) {
    this._base = ms;
    this._wallStart = this._now();
  }

  /** Change speed without a jump in media time. */
  setSpeed(speed) {
    const current = this.time();
    this._speed = speed;
    this.set(current);
  }
}
