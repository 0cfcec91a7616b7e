// A run's page (docs/runs.md): its calls as a waterfall (each a bar from its start to its end,
// its first token marked), the gaps between them as the app's own time, and the totals; followed
// live (GET /api/proxy/runs/<run> every POLL_MS while the run has a call in progress, and
// every IDLE_MS after, since the agent loop may make another call). Each call opens in the
// player. Run data reaches the page only as text (dom.js); the bars' sizes are set through
// the CSSOM (the page's CSP allows no inline style).

import { clear, el } from "./dom.js";

const POLL_MS = 700;
const IDLE_MS = 2000;
const root = document.querySelector('[data-testid="run"]');
const run = root.dataset.run;
const waterfall = document.querySelector('[data-testid="run-waterfall"]');
const totals = document.querySelector('[data-testid="run-totals"] tbody');
const status = document.querySelector('[data-testid="run-status"]');
const token = new URLSearchParams(location.search).get("proxy_token") ?? sessionStorage.getItem("streamscope.proxy_token");

function ms(value) {
  if (value === null || value === undefined) return "–";
  return value < 1000 ? `${value.toFixed(0)} ms` : `${(value / 1000).toFixed(2)} s`;
}

function count(value) {
  return value === null || value === undefined ? "–" : String(value);
}

function percent(value, whole) {
  return `${whole > 0 ? Math.min(100, Math.max(0, (value / whole) * 100)) : 0}%`;
}

function bar(startMs, durationMs, whole, cls) {
  const track = el("div", { class: "run-track" });
  const span = el("div", { class: cls });
  span.style.marginLeft = percent(startMs, whole);
  span.style.width = percent(durationMs, whole);
  track.appendChild(span);
  return [track, span];
}

function callRow(call, whole) {
  const row = el("div", { class: "run-row", "data-testid": "run-call", "data-index": call.index, "data-state": call.state ?? "" });
  const label = el("div", { class: "run-label" });
  const name = `#${call.index + 1} ${call.model ?? call.path ?? ""}`;
  if (typeof call.url === "string" && call.url.startsWith("/c/")) {
    label.appendChild(el("a", { href: call.url, "data-testid": "run-call-link" }, name));
  } else {
    label.appendChild(el("span", {}, name));
  }
  const tools = (call.tool_calls ?? []).map((t) => t.name ?? "?");
  const facts = [
    `start ${ms(call.start_ms)}`,
    `TTFT ${ms(call.ttft_ms)}`,
    `duration ${ms(call.duration_ms)}`,
    `tokens ${count(call.input_tokens)} in / ${count(call.output_tokens)} out`,
    `stop ${call.stop ?? "–"}`,
    `findings ${count(call.findings)}`,
  ];
  label.appendChild(el("div", { class: "hint", "data-testid": "run-call-facts" }, facts.join(" · ")));
  if (tools.length) label.appendChild(el("div", { class: "hint", "data-testid": "run-call-tools" }, `tool calls: ${tools.join(", ")}`));
  const [track, span] = bar(call.start_ms, call.duration_ms, whole, "run-bar");
  if (typeof call.ttft_ms === "number" && call.duration_ms > 0) {
    const mark = el("div", { class: "run-ttft", title: `first token at ${ms(call.ttft_ms)}` });
    mark.style.left = percent(call.ttft_ms, call.duration_ms);
    span.appendChild(mark);
  }
  row.append(label, track);
  return row;
}

function gapRow(gap, whole) {
  const row = el("div", { class: "run-row run-gap-row", "data-testid": "run-gap", "data-after": gap.after });
  row.appendChild(el("div", { class: "run-label hint" }, `app time ${ms(gap.duration_ms)} (tools running)`));
  row.appendChild(bar(gap.start_ms, gap.duration_ms, whole, "run-gap")[0]);
  return row;
}

function show(view) {
  const whole = view.totals.duration_ms || 1;
  clear(waterfall);
  view.calls.forEach((call, i) => {
    if (i > 0) {
      const gap = view.gaps.find((g) => g.after === i - 1);
      if (gap) waterfall.appendChild(gapRow(gap, whole));
    }
    waterfall.appendChild(callRow(call, whole));
  });
  clear(totals);
  const t = view.totals;
  const tr = el("tr");
  for (const [field, value] of [
    ["calls", count(t.calls)],
    ["duration_ms", ms(t.duration_ms)],
    ["model_ms", ms(t.model_ms)],
    ["app_ms", ms(t.app_ms)],
    ["input_tokens", count(t.input_tokens)],
    ["output_tokens", count(t.output_tokens)],
  ]) {
    tr.appendChild(el("td", { "data-field": field }, value));
  }
  totals.appendChild(tr);
  status.textContent = `${t.calls} call${t.calls === 1 ? "" : "s"}${view.live ? ", in progress" : ""}`;
  status.dataset.live = String(view.live);
}

async function poll() {
  let wait = IDLE_MS;
  try {
    const answer = await fetch(`/api/proxy/runs/${encodeURIComponent(run)}`, { headers: token ? { "X-Streamscope-Proxy-Token": token } : {}, cache: "no-store" });
    const body = await answer.json();
    if (!answer.ok) {
      status.textContent = body?.error?.message ?? `the server answered ${answer.status}`;
    } else {
      show(body);
      if (body.live) wait = POLL_MS;
    }
  } catch (error) {
    status.textContent = `cannot reach the server (${error.message}); trying again`;
  } finally {
    setTimeout(poll, wait);
  }
}

poll();
