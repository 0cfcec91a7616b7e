// The endpoint fields shared by the live page and the conform page (templates/_endpoint.html):
// a preset fills the base URL, the API and the key variable the server ties to it; a key from
// the server pins the base URL under the one it is tied to; "List models" asks the server
// (POST /api/models) and fills the model's list. Every text from the server is shown as text.

import { clear, el } from "./dom.js";
import { showProblem } from "./problem.js";

/** A key from the server goes only to the base URL the server ties it to (or one under it):
 * choosing one pins the base URL (read-only) there; "(none)" frees it again. */
export function pinBaseUrl(form) {
  const option = form.elements.api_key_env.selectedOptions[0];
  const pinned = option?.dataset.baseUrl;
  const current = form.elements.base_url.value;
  const under = pinned && (current === pinned || current.startsWith(`${pinned.replace(/\/+$/, "")}/`));
  if (pinned && !under) form.elements.base_url.value = pinned;
  form.elements.base_url.readOnly = Boolean(pinned);
}

/** The preset chosen in `select`: its base URL, API and key variable (when the server offers it). */
export function applyPreset(form, select) {
  if (!select.value) return;
  form.elements.base_url.value = select.value;
  form.elements.api.value = select.selectedOptions[0].dataset.api || form.elements.api.options[0].value;
  const env = select.selectedOptions[0].dataset.env;
  const offered = env && [...form.elements.api_key_env.options].some((o) => o.value === env);
  form.elements.api_key_env.value = offered ? env : "";
}

/** The key fields as a request sends them: the server's variable, else the typed key. */
export function keyFields(form) {
  const env = form.elements.api_key_env.value;
  const key = form.elements.api_key.value;
  return env ? { api_key_env: env } : key ? { api_key: key } : {};
}

/** What a page kept of its form under `key` in localStorage, or null (none, or not JSON). */
export function savedForm(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "null");
  } catch {
    return null;
  }
}

/** The model list's error ({code, message, upstream?}), or none. */
export function showModelsError(node, error) {
  if (error) showProblem(node, error, "Models: ");
  else clear(node);
  node.hidden = !error;
}

/** The upstream's models into the datalist `#<prefix>-models`; `say(text)` tells the count. */
export async function listModels(form, prefix, say) {
  const errorNode = form.querySelector(`[data-testid="${prefix}-models-error"]`);
  const body = { base_url: form.elements.base_url.value, api: form.elements.api.value, ...keyFields(form) };
  let response;
  let answer;
  try {
    response = await fetch("/api/models", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    answer = await response.json();
  } catch (error) {
    showModelsError(errorNode, { message: `no answer from Streamscope (${error.message})` });
    return;
  }
  if (!response.ok) {
    showModelsError(errorNode, answer?.error ?? { message: `the server answered ${response.status}` });
    return;
  }
  const datalist = document.getElementById(`${prefix}-models`);
  clear(datalist);
  for (const id of answer.models) datalist.appendChild(el("option", { value: id }));
  showModelsError(errorNode, null);
  say(`${answer.models.length} models: ${answer.models.slice(0, 8).join(", ")}${answer.models.length > 8 ? "…" : ""}`);
}
