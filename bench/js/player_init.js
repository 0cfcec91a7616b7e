// bench_player.py's instrumentation, added with page.add_init_script (through the DevTools
// protocol, so the page's CSP, which forbids eval, does not apply): it runs before any page
// script. Everything it records lives on window.__bench.
(() => {
  if (window.__bench) return;
  const B = (window.__bench = {
    longtasks: [], longtaskError: null, loadedAt: null, jump: null, keys: [],
    frame: { on: false, stamps: [], samples: [] },
  });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) B.longtasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: "longtask", buffered: true });
  } catch (e) {
    B.longtaskError = String(e);
  }
  const settledNow = () => {
    const s = window.streamscope;
    if (!s) return false;
    const r = s.renderer, n = s.timeline.length;
    return !r.busy && r.rendered === n && r.target === n && !document.querySelector("[data-rendering]");
  };
  const check = () => {
    const J = B.jump;
    if (!J || J.t0 === null || J.settled !== null) return;
    if (!settledNow()) return;
    J.settled = performance.now();
    requestAnimationFrame(() => { J.painted = performance.now(); });
  };
  B.check = check;
  new MutationObserver((records) => {
    const now = performance.now();
    for (const r of records) {
      const el = r.target;
      if (r.attributeName === "data-loaded" && el.dataset.loaded === "true" && B.loadedAt === null) B.loadedAt = now;
      if (r.attributeName === "data-rendering") {
        if (B.jump && B.jump.t0 !== null) {
          if (el.hasAttribute("data-rendering")) B.jump.renderingOn = now;
          else B.jump.renderingOff = now;
        }
        check();
      }
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-loaded", "data-rendering"] });
  window.addEventListener("keydown", (e) => {
    B.keys.push({ key: e.key, t: performance.now() });
    const J = B.jump;
    if (J && J.t0 === null && e.key === J.key) J.t0 = performance.now();
  }, true);
  // Bubbling listener on window: runs after the page's document listener, still in the task.
  window.addEventListener("keydown", () => check());
  // rAF loop: registered before the player's and renderer's callbacks, so it runs first in
  // each frame and sees the screen as the previous frame left it.
  const loop = (stamp) => {
    const F = B.frame;
    if (F.on) {
      F.stamps.push(stamp);
      const s = window.streamscope;
      if (s && F.sample) {
        const r = s.renderer, tl = s.timeline, p = s.player;
        const clock = p.time();
        const next = r.rendered < tl.length ? tl.times[r.rendered] : Infinity;
        F.samples.push(clock > next ? clock - next : 0);
      }
    }
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  B.busy = (ms) => setTimeout(() => { const end = performance.now() + ms; while (performance.now() < end); }, 0);
})();
