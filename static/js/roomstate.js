// What a presenter room mirrors (docs/protocol.md `present`, docs/teaching.md), DOM-free: the
// state read from a player, the action that changed it, and when to send it.

export const FIELDS = Object.freeze(["playing", "t", "cursor", "speed", "token", "tool", "theme", "zoom"]);
export const SEND_EVERY_MS = 50; // a presenter sends at most one state per this (the server allows 20/s)

/** The state of a player page: `player` (player.js), the selected token ({lane, choice,
 * token} or null), the selected tool call, the theme, the text size (a number: 1, 1.25, ...,
 * zoom.js). The time is whole ms. */
export function stateOf(player, { token = null, tool = null, theme = null, zoom = 1 } = {}) {
  const playing = player.state === "playing";
  return {
    playing,
    t: Math.max(0, Math.round(player.time())),
    cursor: playing ? null : player.cursor,
    speed: player.speed,
    token,
    tool,
    theme,
    zoom,
  };
}

function same(a, b) {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** The action that turns `before` into `after` (`hint`: a step the transport just made), or
 * null when nothing a viewer sees changed. */
export function actionFor(before, after, hint = null) {
  if (!before) return hint ?? "seek";
  if (before.playing !== after.playing) return after.playing ? "play" : "pause";
  if (before.speed !== after.speed) return "speed";
  if (before.theme !== after.theme) return "theme";
  if (before.zoom !== after.zoom) return "zoom";
  if (!same(before.token, after.token)) return "token";
  if (!same(before.tool, after.tool)) return "tool";
  // While playing, the player says nothing unless it was moved (a seek, a step, a loop).
  if (before.cursor !== after.cursor || before.t !== after.t) return hint ?? "seek";
  return null;
}

/** At most one call of `send` per `every` ms, always with the latest value: the first at
 * once, the next at the end of the interval (pure: the timer functions are injected). */
export class Throttle {
  constructor(send, { every = SEND_EVERY_MS, now = () => performance.now(), later = (fn, ms) => setTimeout(fn, ms) } = {}) {
    this.send = send;
    this.every = every;
    this.now = now;
    this.later = later;
    this.last = -Infinity;
    this.pending = null;
    this.timer = false;
  }

  push(value) {
    this.pending = value;
    if (this.timer) return;
    const wait = this.last + this.every - this.now();
    if (wait <= 0) this._flush();
    else {
      this.timer = true;
      this.later(() => {
        this.timer = false;
        this._flush();
      }, wait);
    }
  }

  _flush() {
    if (this.pending === null) return;
    const value = this.pending;
    this.pending = null;
    this.last = this.now();
    this.send(value);
  }
}
