() => {
  // bench_relay.py (page.evaluate): what window.__relay recorded, and each token's x_sent_ms
  // from the page's own timeline (or, on the floor page, from what the floor script kept).
  const R = window.__relay;
  for (const [t, text] of R.unparsed) for (const m of text.matchAll(/"text":"t(\d+) "/g)) R.dispatched[Number(m[1])] = t;
  R.unparsed = [];
  for (const rec of R.tokens) rec.msg = R.dispatched[rec.i] ?? null;
  const sent = {};
  if (window.streamscope) {
    const bySent = new Map();
    const events = window.streamscope.timeline.events;
    for (const e of events) if (e.kind === "extra" && e.fields && e.fields.x_sent_ms !== undefined) bySent.set(e.raw, e.fields.x_sent_ms);
    for (const e of events) {
      const m = e.kind === "text" ? /^t(\d+) $/.exec(e.text) : null;
      if (m) sent[m[1]] = bySent.get(e.raw) ?? null;
    }
  } else Object.assign(sent, R.floorSent || {});
  return {
    tokens: R.tokens, other: R.other, frames: R.frames, messages: R.messages, sent,
    drift: R.calibrate() - R.offset,
    dom: [...document.querySelectorAll('[data-testid="token"]')].map((e) => e.textContent),
  };
}
