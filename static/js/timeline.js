// The loaded capture as a playback timeline (DOM-free).
//
// Events of every stream are laid end to end on one time axis: a timed stream uses its real
// offsets (ms from the request start), a stream without timing is paced at `paceMs` per raw
// event and says so; the next stream starts `gapMs` after the previous one ends. Each event
// gets `stream` and `time` (ms on that axis). Events arrive in batches (and, live, as they
// happen), so everything here is incremental.

import { RAW_COLUMNS, UNTIMED_PACE_MS } from "./protocol.js";

export const STREAM_GAP_MS = 600;

export class Timeline {
  constructor({ paceMs = UNTIMED_PACE_MS, gapMs = STREAM_GAP_MS } = {}) {
    this.paceMs = paceMs;
    this.gapMs = gapMs;
    this.reset();
  }

  /** Forget everything (a new live run on the same page). */
  reset() {
    this.capture = null;
    this.streams = [];
    this.events = [];
    this.times = [];
    this.complete = false;
    this._offset = 0;
    this._streamEnd = 0;
  }

  setCapture(capture) {
    this.capture = capture;
    this.paceMs = capture.pace_ms ?? this.paceMs;
    this.streams = capture.streams.map((info) => ({
      index: info.index,
      info,
      timed: info.timed,
      // Replayed on its raw events' times: measured ones, or a HAR entry's first and last byte
      // with the events spread between (its metrics stay the entry's own: docs/formats.md).
      paced: !(info.timed || info.timing === "har"),
      raw: Object.fromEntries(RAW_COLUMNS.map((column) => [column, []])),
      events: [],
      summary: null,
      offset: null,
      lastTime: 0,
    }));
  }

  stream(index) {
    return this.streams[index];
  }

  addRawMeta(message) {
    const raw = this.streams[message.stream].raw;
    for (const column of RAW_COLUMNS) {
      const values = message[column];
      for (let i = 0; i < values.length; i++) raw[column][message.start + i] = values[i];
    }
  }


  addEvents(streamIndex, events) {
    const stream = this.streams[streamIndex];
    if (stream.offset === null) {
      const previous = this.events.length ? this._streamEnd + this.gapMs : 0;
      stream.offset = previous;
    }
    for (const event of events) {
      event.stream = streamIndex;
      event.local = stream.events.length;
      event.g = this.events.length;
      event.time = stream.offset + this._localTime(stream, event);
      stream.lastTime = event.time - stream.offset;
      stream.events.push(event);
      this.events.push(event);
      this.times.push(event.time);
    }
    this._streamEnd = Math.max(this._streamEnd, stream.offset + stream.lastTime);
  }

  _localTime(stream, event) {
    if (!stream.paced) {
      const t = event.t ?? (event.raw >= 0 ? stream.raw.t[event.raw] : null);
      return t ?? stream.lastTime;
    }
    return event.raw >= 0 ? event.raw * this.paceMs : stream.lastTime;
  }

  setSummary(message) {
    this.streams[message.stream].summary = message;
  }

  get length() {
    return this.events.length;
  }

  get duration() {
    return this.times.length ? this.times[this.times.length - 1] : 0;
  }

  /** Number of events whose time is at or before `ms` (binary search). */
  indexAtTime(ms) {
    const times = this.times;
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (times[mid] <= ms) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  timeOfCursor(cursor) {
    return cursor > 0 ? this.times[cursor - 1] : 0;
  }

  _key(index) {
    const event = this.events[index];
    return event.raw >= 0 ? `${event.stream}:${event.raw}` : `${event.stream}:end:${index}`;
  }

  /** Cursor after applying the next whole chunk (all events of the next raw event). */
  nextChunk(cursor) {
    if (cursor >= this.events.length) return cursor;
    const key = this._key(cursor);
    let next = cursor + 1;
    while (next < this.events.length && this._key(next) === key) next++;
    return next;
  }

  /** Cursor with the last applied chunk removed. */
  previousChunk(cursor) {
    if (cursor <= 0) return 0;
    const key = this._key(cursor - 1);
    let previous = cursor - 1;
    while (previous > 0 && this._key(previous - 1) === key) previous--;
    return previous;
  }

  /** Chunk marks for the chart: time, gap to the previous chunk with choices, stall flag. */
  chunkMarks(stallMs) {
    const marks = [];
    for (const stream of this.streams) {
      const { t, choices } = stream.raw;
      let previous = null;
      for (let i = 0; i < choices.length; i++) {
        if (!choices[i]) continue;
        const local = stream.paced ? i * this.paceMs : t[i] ?? 0;
        const gap = previous === null ? local : local - previous;
        marks.push({ time: (stream.offset ?? 0) + local, gap, stall: stream.timed && previous !== null && gap >= stallMs, stream: stream.index, raw: i });
        previous = local;
      }
    }
    return marks;
  }
}
