// The player's status line and alert. The status line says what is happening now (loading,
// playing, paused at a moment, a link copied) and the next change of the player's state
// replaces it, so it never goes stale. The alert keeps what stays true until the page opens
// something else: a recording that ended in an error, a connection that failed.

import { clockTime } from "./format.js";
import { State } from "./player.js";
import { problemParts, showProblem } from "./problem.js";

/** The status line for a player state (pure). */
export function stateSentence(state, { speed, moment }) {
  switch (state) {
    case State.PLAYING:
      return `Playing at ${speed === "max" ? "maximum speed" : `${speed}×`}.`;
    case State.PAUSED:
      return `Paused at ${clockTime(moment.ms, moment.decimals)}.`;
    case State.ENDED:
      return "Played to the end.";
    case State.LIVE:
      return "Live: following the stream as it arrives.";
    default:
      return "Loading…";
  }
}

export class StatusLine {
  constructor(line, alertBox) {
    this.line = line;
    this.alertBox = alertBox;
    this.ready = false;
    this.key = null;
  }

  say(text, kind = "info") {
    this.line.textContent = text;
    this.line.dataset.kind = kind;
  }

  /** A problem for the status line: its one-line summary only. */
  sayProblem(prefix, error, kind = "error") {
    this.say(`${prefix}${problemParts(error).summary}`, kind);
  }

  /** From now on each change of the player's state is said (before, loading messages are). */
  start(player) {
    this.ready = true;
    this.key = this._key(player);
  }

  playerChanged(player) {
    if (!this.ready) return;
    const key = this._key(player);
    if (key === this.key) return;
    this.key = key;
    this.say(stateSentence(player.state, { speed: player.speed, moment: player.moment() }));
  }

  _key(player) {
    if (player.state === State.PAUSED) return `paused ${player.cursor} ${player.moment().seconds}`;
    return player.state === State.PLAYING ? `playing ${player.speed}` : player.state;
  }

  alert(error, { prefix = "", kind = "error" } = {}) {
    showProblem(this.alertBox, error, prefix);
    this.alertBox.dataset.kind = kind;
    this.alertBox.hidden = false;
  }

  /** Something else is opened: nothing said so far holds. */
  reset() {
    this.ready = false;
    this.key = null;
    this.alertBox.hidden = true;
    this.alertBox.replaceChildren();
  }
}
