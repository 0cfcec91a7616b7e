// The conform page (docs/conform.md, "In the page"): the live page's endpoint fields
// (endpoint.js), the cases of the chosen API, a start (POST /api/conform), then a progress row
// per case as it ends (GET /api/conform/<id>, polled) and the link to the report. The report's
// delete token stays in this browser (mine.js, under its own key). Report text is set as text.

import { clear, el } from "./dom.js";
import * as endpoint from "./endpoint.js";
import { progressOf } from "./conformstate.js";
import * as mine from "./mine.js";

const KEY = "streamscope.conform.form"; // the form without its key, for the next visit
const POLL_MS = 500;
const form = document.getElementById("conform-form");
const problem = form.querySelector('[data-testid="conform-form-error"]');
const status = form.querySelector('[data-testid="conform-status"]');
const runButton = form.querySelector('[data-testid="conform-run"]');
const progress = document.querySelector('[data-testid="conform-progress"]');
const rows = progress.querySelector("tbody");
const reportLink = progress.querySelector('[data-testid="conform-report-link"]');
const choices = [...form.querySelectorAll('[data-testid="conform-case-choice"]')];

function say(text) {
  status.textContent = text;
}

/** Only the cases the chosen API has a form in can be chosen. */
function showCases() {
  const api = form.elements.api.value;
  for (const choice of choices) {
    const speaks = choice.dataset.apis.split(" ").includes(api);
    choice.hidden = !speaks;
    choice.querySelector("input").disabled = !speaks;
  }
}

function chosenCases() {
  return choices.filter((c) => !c.hidden && c.querySelector("input").checked).map((c) => c.dataset.case);
}

function remember() {
  const saved = { api: form.elements.api.value, base_url: form.elements.base_url.value, model: form.elements.model.value, api_key_env: form.elements.api_key_env.value, expires: form.elements.expires.value };
  localStorage.setItem(KEY, JSON.stringify(saved));
}

function restore() {
  const saved = endpoint.savedForm(KEY);
  if (!saved || typeof saved !== "object") return;
  for (const name of ["api", "base_url", "model", "api_key_env", "expires"]) {
    const field = form.elements[name];
    if (field && typeof saved[name] === "string" && (field.tagName !== "SELECT" || [...field.options].some((o) => o.value === saved[name]))) field.value = saved[name];
  }
}

/** The progress rows: one per planned case, its verdict and why once it has ended. */
function showProgress(answer) {
  const { rows: lines, text } = progressOf(answer);
  clear(rows);
  for (const line of lines) {
    const row = el("tr", { "data-testid": "conform-progress-row", dataset: { case: line.case, verdict: line.verdict } });
    row.append(el("th", { scope: "row" }, line.case), el("td", { "data-field": "verdict" }, line.verdict === "running" ? "…" : line.verdict), el("td", { "data-field": "why" }, line.why));
    rows.appendChild(row);
  }
  progress.dataset.state = answer.state;
  say(text);
}

async function follow(id) {
  for (;;) {
    let answer;
    try {
      const response = await fetch(`/api/conform/${encodeURIComponent(id)}`, { headers: { Accept: "application/json" } });
      answer = await response.json();
      if (!response.ok) {
        say(answer?.error?.message ?? `the server answered ${response.status}`);
        break;
      }
    } catch (error) {
      say(`no answer from Streamscope (${error.message}); the report's link still works`);
      break;
    }
    showProgress(answer);
    if (answer.state !== "running") break;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  runButton.disabled = false;
}

async function start() {
  const only = chosenCases();
  if (!only.length) {
    problem.textContent = "Choose at least one case.";
    return;
  }
  const body = { api: form.elements.api.value, base_url: form.elements.base_url.value, model: form.elements.model.value, expires: form.elements.expires.value, only, ...endpoint.keyFields(form) };
  problem.textContent = "";
  runButton.disabled = true;
  say("Starting…");
  let response;
  let answer;
  try {
    response = await fetch("/api/conform", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    answer = await response.json();
  } catch (error) {
    problem.textContent = `No answer from Streamscope (${error.message}).`;
    runButton.disabled = false;
    say("");
    return;
  }
  if (response.status !== 202) {
    problem.textContent = answer?.error?.message ?? `The server answered ${response.status}.`;
    runButton.disabled = false;
    say("");
    return;
  }
  mine.remember({ id: answer.id, url: answer.url, created: Date.now(), token: answer.delete_token, title: `${body.base_url} (${body.model})` }, mine.REPORTS);
  reportLink.href = answer.url;
  progress.hidden = false;
  showProgress(answer);
  follow(answer.id);
}

form.addEventListener("change", (event) => {
  if (event.target.name === "preset") endpoint.applyPreset(form, event.target);
  if (event.target.name === "preset" || event.target.name === "api_key_env") endpoint.pinBaseUrl(form);
  if (event.target.name === "preset" || event.target.name === "api") showCases();
  remember();
});
form.addEventListener("input", remember);
form.addEventListener("click", (event) => {
  const action = event.target.closest("[data-action]")?.dataset.action;
  if (action === "list-models") endpoint.listModels(form, "conform", say);
  if (action === "all-cases" || action === "no-cases") for (const choice of choices) choice.querySelector("input").checked = action === "all-cases";
});
form.addEventListener("submit", (event) => {
  event.preventDefault();
  start();
});

restore();
endpoint.pinBaseUrl(form);
showCases();
