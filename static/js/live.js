// The live page: the request form (presets, messages, parameters, model list, curl preview,
// remembered settings without the key) and a run's controls; the player follows the run.

import { clear, el } from "./dom.js";
import * as endpoint from "./endpoint.js";
import { EXAMPLE_TOOLS, FormError, buildRequest, curlPreview, previewRequest, remembered } from "./livebody.js";
import * as mine from "./mine.js";
import { mountPlayer } from "./page.js";

const KEY = "streamscope.live";
const form = document.getElementById("live-form");
const list = form.querySelector(".message-list");
const preview = form.querySelector('[data-testid="live-preview"]');
const problem = form.querySelector('[data-testid="live-form-error"]');
const runButton = form.querySelector('[data-testid="live-run"]');
const stopButton = form.querySelector('[data-testid="live-stop"]');
const share = form.querySelector('[data-testid="live-share"]');
const modelsError = form.querySelector('[data-testid="live-models-error"]');
const root = document.getElementById("player");
const PREVIEW_DELAY = 150; // ms after the last change before the server is asked
let running = false;
let previewTimer = null;
let previewNumber = 0;

function addMessage(role = "user", content = "") {
  const item = el("li", { class: "message", "data-testid": "live-message" });
  const select = el("select", { "aria-label": "role", "data-field": "role" });
  for (const name of ["system", "user", "assistant"]) select.appendChild(el("option", { value: name, selected: name === role }, name));
  const text = el("textarea", { rows: "2", "aria-label": "content", "data-field": "content", spellcheck: "false" });
  text.value = content;
  const remove = el("button", { type: "button", class: "btn small", "data-action": "remove-message", "aria-label": "Remove this message" }, "✕");
  item.append(select, text, remove);
  list.appendChild(item);
}

function values() {
  const data = Object.fromEntries(new FormData(form).entries());
  data.logprobs = form.elements.logprobs.checked;
  data.include_usage = form.elements.include_usage.checked;
  data.messages = [...list.children].map((item) => ({
    role: item.querySelector('[data-field="role"]').value,
    content: item.querySelector('[data-field="content"]').value,
  }));
  return data;
}

function restore() {
  const saved = endpoint.savedForm(KEY);
  const messages = saved?.messages?.length ? saved.messages : [{ role: "system", content: "You are a helpful assistant." }, { role: "user", content: "Say hello in five words." }];
  for (const message of messages) addMessage(message.role, message.content);
  if (!saved) return;
  for (const [name, value] of Object.entries(saved)) {
    const field = form.elements[name];
    if (!field || name === "messages" || name === "api_key") continue;
    if (field.type === "checkbox") field.checked = Boolean(value);
    else field.value = value;
  }
}

function refresh() {
  const current = values();
  localStorage.setItem(KEY, JSON.stringify(remembered(current)));
  clearTimeout(previewTimer);
  previewNumber += 1; // an answer to an earlier preview is not shown
  let request;
  try {
    request = buildRequest(current);
    problem.textContent = "";
  } catch (error) {
    if (!(error instanceof FormError)) throw error;
    preview.textContent = `(not ready: ${error.message})`;
    preview.dataset.state = "ready";
    return;
  }
  preview.dataset.state = "pending";
  previewTimer = setTimeout(() => showPreview(request, previewNumber), PREVIEW_DELAY);
}

/** The request as the chosen API sends it: the server writes the body and says where it goes
 * and in which header the key goes (POST /api/live/preview); the key never leaves the page. */
async function showPreview(request, number) {
  let text;
  try {
    const response = await fetch("/api/live/preview", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(previewRequest(request)) });
    const answer = await response.json();
    text = response.ok ? curlPreview(request, answer) : `(not ready: ${answer?.error?.message ?? `the server answered ${response.status}`})`;
  } catch (error) {
    text = `(no preview: no answer from Streamscope, ${error.message})`;
  }
  if (number !== previewNumber) return;
  preview.textContent = text;
  preview.dataset.state = "ready";
}

function showModelsError(error) {
  endpoint.showModelsError(modelsError, error);
}

function showShareLink(url, ended) {
  clear(share);
  share.append(ended ? "Share the recording: " : "Share while it streams: ", el("a", { href: url, "data-testid": "live-share-link" }, new URL(url, location.href).href));
}

function setRunning(on) {
  running = on;
  runButton.disabled = on;
  stopButton.disabled = !on;
}

let runToken = null; // the run's delete token: a Stop on another process needs it (docs/protocol.md, "stop")
const page = mountPlayer(root, {
  onMessage(message) {
    if (message.type === "status" && message.state === "started") {
      runToken = message.delete_token;
      root.dataset.shareUrl = message.url;
      showShareLink(message.url, false);
      mine.remember({ id: message.capture, title: `Live run ${new Date().toLocaleString()}`, url: message.url, created: Date.now(), token: message.delete_token });
    }
    if (message.type === "end" || message.type === "error") setRunning(false);
    if (message.type === "end" && root.dataset.shareUrl) showShareLink(root.dataset.shareUrl, true);
  },
});

form.addEventListener("input", refresh);
form.addEventListener("change", (event) => {
  if (event.target.name === "preset") endpoint.applyPreset(form, event.target);
  if (event.target.name === "preset" || event.target.name === "api_key_env") endpoint.pinBaseUrl(form);
  refresh();
});
form.addEventListener("click", (event) => {
  const action = event.target.closest("[data-action]")?.dataset.action;
  if (action === "add-message") addMessage();
  if (action === "remove-message") event.target.closest("li").remove();
  if (action === "example-tools") form.elements.tools.value = JSON.stringify(EXAMPLE_TOOLS, null, 2);
  if (action === "list-models") endpoint.listModels(form, "live", (text) => page.say(text));
  if (action === "stop") page.send("stop", runToken ? { delete_token: runToken } : {});
  if (action) refresh();
});
form.addEventListener("submit", (event) => {
  event.preventDefault();
  let request;
  try {
    request = buildRequest(values());
  } catch (error) {
    if (!(error instanceof FormError)) throw error;
    problem.textContent = error.message;
    return;
  }
  clear(share);
  delete root.dataset.shareUrl;
  showModelsError(null);
  problem.textContent = "";
  setRunning(true);
  page.say("Starting…");
  page.connect({ type: "start", ...request });
});

restore();
endpoint.pinBaseUrl(form);
refresh();
