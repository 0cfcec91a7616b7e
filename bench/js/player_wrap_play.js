() => {
  // bench_player.py (page.evaluate): wrap renderer.moveTo at run time to record when the last
  // token is applied and how late each frame's earliest new event is. Nothing in static/ changes.
  const { renderer: r, timeline: tl, player: p } = window.streamscope;
  const B = window.__bench;
  let last = -1;
  for (let g = tl.length - 1; g >= 0; g--) {
    if (tl.events[g].kind === "text" || tl.events[g].kind === "logprobs") { last = g; break; }
  }
  B.play = { lastTokenG: last, lastTokenTime: tl.times[last], duration: tl.duration, length: tl.length,
             appliedAt: null, lateness: [], applied: [], calls: 0 };
  const moveTo = r.moveTo;
  r.moveTo = function (cursor, previous) {
    const from = this.rendered;
    moveTo.call(this, cursor, previous);
    const P = B.play;
    if (p.state === "playing" && this.rendered > from) {
      P.calls++;
      P.lateness.push(p.time() - tl.times[from]);
      P.applied.push(performance.now(), tl.times[from]);
      if (P.appliedAt === null && this.rendered > P.lastTokenG) P.appliedAt = performance.now();
    }
  };
  return B.play;
}
