// The proxy page: the calls an app made through the recording proxy, newest first, updated as
// they happen (GET /api/proxy/calls every POLL_MS); each opens in the player, which follows a
// call on the live edge while it streams. The proxy's token, when the page was opened with
// ?proxy_token=, is sent in the X-Streamscope-Proxy-Token header and never put in a link (a run's page
// finds it in this tab's sessionStorage).
// Call data reaches the page only as text (dom.js).

import { clear, el } from "./dom.js";

const POLL_MS = 700;
const table = document.querySelector('[data-testid="proxy-calls"] tbody');
const status = document.querySelector('[data-testid="proxy-status"]');
const empty = document.querySelector('[data-testid="proxy-empty"]');
const token = new URLSearchParams(location.search).get("proxy_token");
// A run's page (run.js) asks for its run with the same token, kept for this tab only.
if (token) sessionStorage.setItem("streamscope.proxy_token", token);

function ms(value) {
  if (value === null || value === undefined) return "–";
  return value < 1000 ? `${value.toFixed(0)} ms` : `${(value / 1000).toFixed(2)} s`;
}

function when(seconds) {
  return new Date(seconds * 1000).toLocaleTimeString();
}

const COLUMNS = [
  ["started", (call) => when(call.started)],
  ["method", (call) => call.method],
  ["path", (call) => call.path],
  ["model", (call) => call.model ?? "–"],
  ["status", (call) => call.status ?? "–"],
  ["dialect", (call) => call.dialect ?? "–"],
  ["ttft_ms", (call) => ms(call.ttft_ms)],
  ["duration_ms", (call) => ms(call.duration_ms)],
  ["tokens", (call) => call.tokens ?? "–"],
  ["findings", (call) => call.findings ?? "–"],
  ["run", (call) => call.run ?? "–"],
  ["state", (call) => (call.recording_end && call.recording_end !== call.state ? `${call.state} (recording: ${call.recording_end})` : call.state)],
];

function row(call) {
  const tr = el("tr", { "data-testid": "proxy-call", "data-id": call.id, "data-state": call.state });
  for (const [field, value] of COLUMNS) {
    const td = el("td", { "data-field": field });
    if (field === "path" && call.url) {
      td.appendChild(el("a", { href: call.url, "data-testid": "proxy-call-link" }, value(call)));
    } else if (field === "run" && call.run) {
      const href = `/proxy/runs/${encodeURIComponent(call.run)}`;
      td.appendChild(el("a", { href, "data-testid": "proxy-run-link" }, value(call)));
    } else {
      td.textContent = String(value(call));
    }
    if (field === "state" && call.error) td.title = call.error;
    if (field === "findings" && call.finding_counts) {
      const { error = 0, warning = 0, info = 0 } = call.finding_counts;
      td.title = `${error} error${error === 1 ? "" : "s"}, ${warning} warning${warning === 1 ? "" : "s"}, ${info} info`;
      td.dataset.errors = String(error);
    }
    tr.appendChild(td);
  }
  return tr;
}

function show(calls) {
  clear(table);
  for (const call of calls) table.appendChild(row(call));
  empty.hidden = calls.length > 0;
  const streaming = calls.filter((call) => call.state === "streaming" || call.state === "connecting").length;
  status.textContent = `${calls.length} call${calls.length === 1 ? "" : "s"}${streaming ? `, ${streaming} in progress` : ""}`;
}

async function poll() {
  try {
    const answer = await fetch("/api/proxy/calls", { headers: token ? { "X-Streamscope-Proxy-Token": token } : {}, cache: "no-store" });
    const body = await answer.json();
    if (!answer.ok) {
      status.textContent = body?.error?.message ?? `the server answered ${answer.status}`;
      return;
    }
    show(body.calls);
  } catch (error) {
    status.textContent = `cannot reach the server (${error.message}); trying again`;
  } finally {
    setTimeout(poll, POLL_MS);
  }
}

poll();
