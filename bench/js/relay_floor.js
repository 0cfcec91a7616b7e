({ baseUrl, model, subprotocol }) => {
  // bench_relay.py's floor (page.evaluate): a minimal page on the same origin starts the same
  // kind of run and shows it, one <span> per token, in the message handler.
  const R = window.__relay;
  const root = document.createElement("div");
  root.setAttribute("data-testid", "streams");
  document.body.replaceChildren(root);
  // Text in blocks of about 2 KB, as the player's text areas do (.block: content-visibility).
  let block = null;
  let chars = 0;
  R.attach(root);
  R.floorSent = {};
  R.floorEnd = null;
  const ws = new WebSocket(`ws://${location.host}/ws`, subprotocol);
  ws.addEventListener("open", () =>
    ws.send(JSON.stringify({ type: "start", base_url: baseUrl, headers: {},
      body: { model, messages: [{ role: "user", content: "Count." }] } })));
  ws.addEventListener("message", (event) => {
    const m = JSON.parse(event.data);
    if (m.type === "events") {
      const sent = new Map();
      for (const e of m.events) if (e.kind === "extra" && e.fields.x_sent_ms !== undefined) sent.set(e.raw, e.fields.x_sent_ms);
      for (const e of m.events) {
        if (e.kind !== "text") continue;
        const span = document.createElement("span");
        span.setAttribute("data-testid", "token");
        span.textContent = e.text;
        if (!block || chars + e.text.length > 2048) {
          block = document.createElement("div");
          block.className = "block";
          root.appendChild(block);
          chars = 0;
        }
        block.appendChild(span);
        chars += e.text.length;
        const k = /^t(\d+) $/.exec(e.text);
        if (k) R.floorSent[k[1]] = sent.get(e.raw) ?? null;
      }
    } else if (m.type === "end" || m.type === "error") {
      R.floorEnd = m.reason || m.code || "error";
    }
  });
}
