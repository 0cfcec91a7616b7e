// Filtering raw events by their text (pure). The texts live on the server (the raw view asks
// for them a window at a time), so a filter reads the stream through in pages of at most
// `max_raw_request` events, one page at a time, and keeps only the indices that match: its
// memory grows with the matches, not with the capture.

export class RawSearch {
  constructor(query, stream) {
    this.query = query;
    this.needle = query.toLowerCase();
    this.stream = stream;
    this.next = 0; // raw events before this one have been read
    this.waiting = null; // start of the page asked for
    this.emptyTotal = null; // the total when the server had nothing more (a live run catching up)
    this.matches = []; // raw indices, ascending
  }

  test(item) {
    return item.text.toLowerCase().includes(this.needle) || (item.event ?? "").toLowerCase().includes(this.needle);
  }

  /** The next page to ask for ({start, count}), or null: one is on its way, or none is left. */
  want(total, max) {
    if (this.waiting !== null || this.next >= total) return null;
    if (this.emptyTotal !== null && total <= this.emptyTotal) return null;
    this.waiting = this.next;
    this.askedTotal = total;
    return { start: this.next, count: Math.min(max, total - this.next) };
  }

  /** A `raw` answer: taken (true) when it is the page asked for. */
  take(message) {
    if (message.stream !== this.stream || message.start !== this.waiting) return false;
    this.waiting = null;
    for (const item of message.items) {
      if (this.test(item)) this.matches.push(item.index);
    }
    if (message.items.length === 0) this.emptyTotal = this.askedTotal;
    this.next = message.start + message.items.length;
    return true;
  }

  done(total) {
    return this.next >= total;
  }

  /** The position in `matches` of the last match at or before `raw` (-1 when none is). */
  positionOf(raw) {
    let lo = 0;
    let hi = this.matches.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.matches[mid] <= raw) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }
}
