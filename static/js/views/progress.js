// Where playback is in one stream: the last of its events on screen. Views read it at flush()
// (a metric shown once its moment has been played, a missing finish reason read as "none" once
// the stream's end has been played), so none of them keeps its own copy of the cursor.

export class Progress {
  constructor(timeline, index) {
    this.timeline = timeline;
    this.index = index;
    this.last = null; // the stream's last event on screen
  }

  get stream() {
    return this.timeline.stream(this.index);
  }

  apply(event) {
    this.last = event;
  }

  /** Events from `seq` on are gone: the last one left is the one before (binary search). */
  rewind(seq) {
    const events = this.stream.events;
    let lo = 0;
    let hi = events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (events[mid].seq < seq) lo = mid + 1;
      else hi = mid;
    }
    this.last = lo > 0 ? events[lo - 1] : null;
  }

  /** Whether the moment `ms` of this stream (ms from its request start) has been played. */
  reached(ms) {
    const stream = this.stream;
    return this.last !== null && stream.offset !== null && this.last.time >= stream.offset + ms;
  }

  /** Whether the stream is complete and its last event is on screen. */
  ended() {
    const stream = this.stream;
    const done = this.timeline.complete || stream.summary !== null;
    const events = stream.events;
    return done && (events.length === 0 || this.last === events[events.length - 1]);
  }
}
