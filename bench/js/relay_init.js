// bench_relay.py's instrumentation, added with page.add_init_script (through the DevTools
// protocol, so the page's CSP, which forbids eval, does not apply): it runs before any page
// script. Everything it records lives on window.__relay.
(() => {
  if (window.__relay) return;
  // Wall clock with sub-ms resolution: Date.now() at one of its ticks, then performance.now().
  const calibrate = () => {
    const d0 = Date.now();
    let d1;
    while ((d1 = Date.now()) === d0);
    return d1 - performance.now();
  };
  const offset = calibrate();
  const wall = () => offset + performance.now();
  const R = (window.__relay = {
    offset, calibrate,
    tokens: [],       // {i, msg, ins, raf} in order of insertion
    other: 0,         // token elements whose text is not "t<i> "
    frames: [],       // [frame time, tokens first shown in that frame]
    messages: 0,
    dispatched: [],   // token index -> when the websocket message carrying it was dispatched
    unparsed: [],     // [dispatch time, text] of events messages not yet looked at
    observing: false,
  });

  // Stamp websocket messages as they are dispatched: this listener is added in the
  // constructor, so it runs before the page's own, in the same task.
  const Native = window.WebSocket;
  class StampedWebSocket extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        R.messages++;
        // Kept as is (parsed when a token shows up, or at the end): nothing slow in here.
        if (typeof event.data === "string" && event.data.startsWith('{"type":"events"')) R.unparsed.push([wall(), event.data]);
      });
    }
  }
  window.WebSocket = StampedWebSocket;

  const nativeFrame = window.requestAnimationFrame.bind(window);
  let pending = []; // inserted outside a frame, waiting for the next one
  let inFrame = false;
  const seen = new WeakSet();
  const TOKEN = /^t(\d+) $/;
  const take = (el, now, batch) => {
    if (seen.has(el)) return;
    seen.add(el);
    const m = TOKEN.exec(el.textContent);
    if (!m) {
      R.other++;
      return;
    }
    const i = Number(m[1]);
    const rec = { i, msg: null, ins: now, raf: inFrame ? now : null };
    R.tokens.push(rec);
    if (inFrame) {
      batch.push(rec);
      return;
    }
    if (!pending.length) nativeFrame(frame);
    pending.push(rec);
  };
  const handle = (records) => {
    const now = wall();
    const batch = [];
    for (const r of records) {
      for (const node of r.addedNodes) {
        if (node.nodeType !== 1) continue;
        if (node.matches('[data-testid="token"]')) take(node, now, batch);
        else for (const el of node.querySelectorAll('[data-testid="token"]')) take(el, now, batch);
      }
    }
    if (batch.length) R.frames.push([now, batch.length]);
  };
  const observer = new MutationObserver(handle);
  // Inserted outside a frame: shown by the next frame, stamped at the start of its callbacks.
  const frame = () => {
    const t = wall();
    const batch = pending;
    pending = [];
    for (const rec of batch) rec.raf = t;
    if (batch.length) R.frames.push([t, batch.length]);
  };
  // Inserted by a frame callback: shown by that frame. The page's callbacks are wrapped so that
  // their insertions are taken (takeRecords) and stamped before the frame's style, layout and
  // paint.
  window.requestAnimationFrame = (callback) =>
    nativeFrame((stamp) => {
      try {
        callback(stamp);
      } finally {
        const records = observer.takeRecords();
        if (records.length) {
          inFrame = true;
          try {
            handle(records);
          } finally {
            inFrame = false;
          }
        }
      }
    });
  R.attach = (element) => {
    const streams = element || document.querySelector('[data-testid="streams"]');
    if (!streams) return false;
    observer.disconnect();
    observer.observe(streams, { childList: true, subtree: true });
    R.observing = true;
    return true;
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => R.attach());
  else R.attach();
})();
