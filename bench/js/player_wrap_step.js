() => {
  // bench_player.py (page.evaluate): wrap the renderer's _apply and _step at run time to
  // split each frame of a jump into JS applying events and the rest. Nothing in static/ changes.
  const r = window.streamscope.renderer;
  if (r.__benchWrapped) return;
  r.__benchWrapped = true;
  const B = window.__bench;
  B.slices = [];
  const apply = r._apply, step = r._step;
  r._apply = function (cursor) {
    const from = this.rendered, t = performance.now();
    apply.call(this, cursor);
    if (B.sliceOn) B.slices.push({ kind: "apply", start: t, ms: performance.now() - t, events: this.rendered - from });
  };
  r._step = function () {
    const t = performance.now();
    step.call(this);
    if (B.sliceOn) B.slices.push({ kind: "step", start: t, ms: performance.now() - t });
  };
}
