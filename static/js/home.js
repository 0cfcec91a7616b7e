// Home page: upload by file picker, drag and drop anywhere, or pasted text, with a progress
// bar; the answer (format, streams, diagnostics, what was redacted, the delete token) is
// shown, then the player link. "My captures" lists this browser's uploads.

import { clear, el } from "./dom.js";
import * as mine from "./mine.js";

const form = document.getElementById("upload-form");
const fileInput = document.getElementById("upload-file");
const textInput = document.getElementById("upload-text");
const progress = document.getElementById("upload-progress");
const result = document.getElementById("upload-result");

function upload(body) {
  const request = new XMLHttpRequest();
  request.open("POST", "/api/captures");
  request.responseType = "json";
  request.setRequestHeader("Accept", "application/json");
  progress.hidden = false;
  progress.value = 0;
  request.upload.addEventListener("progress", (event) => {
    if (event.lengthComputable) progress.value = Math.round((event.loaded / event.total) * 100);
  });
  request.addEventListener("load", () => {
    progress.hidden = true;
    const answer = request.response || {};
    if (request.status === 201) shown(answer);
    else failed(answer.error || { code: `http_${request.status}`, message: `the server answered ${request.status}` });
  });
  request.addEventListener("error", () => {
    progress.hidden = true;
    failed({ code: "network", message: "the upload did not reach the server" });
  });
  result.textContent = "Uploading…";
  request.send(body);
}

function fields() {
  const body = new FormData();
  body.append("title", document.getElementById("upload-title").value);
  body.append("expires", document.getElementById("upload-expires").value);
  return body;
}

function uploadFile(file) {
  const body = fields();
  body.append("file", file, file.name);
  upload(body);
}

function failed(error) {
  clear(result);
  result.dataset.state = "error";
  result.appendChild(el("strong", {}, "Not opened: "));
  result.appendChild(document.createTextNode(`${error.message} (${error.code})`));
  for (const d of error.diagnostics || []) result.appendChild(el("span", { class: "diag" }, ` · ${d.severity}: ${d.message}`));
}

function shown(answer) {
  clear(result);
  result.dataset.state = "done";
  const streams = answer.streams.length;
  result.appendChild(el("p", { "data-testid": "upload-format" }, `Read as ${answer.format}${answer.compression ? ` (${answer.compression})` : ""}: ${streams} stream${streams === 1 ? "" : "s"}.`));
  const list = el("ul", { "data-testid": "upload-streams" });
  for (const s of answer.streams) list.appendChild(el("li", {}, `Stream ${s.index + 1}: ${s.model ?? "unknown model"}, ${s.choices} choice(s), finish ${s.finish_reasons.join(", ") || "none"}`));
  result.appendChild(list);
  const redacted = answer.redacted.map((r) => `${r.count} × ${r.kind}`).join(", ");
  result.appendChild(el("p", { "data-testid": "upload-redacted" }, redacted ? `Removed before storing: ${redacted}.` : "Nothing secret-looking was found."));
  if (answer.diagnostics.length) {
    const diags = el("ul", { class: "diagnostics", "data-testid": "upload-diagnostics" });
    for (const d of answer.diagnostics.slice(0, 20)) diags.appendChild(el("li", {}, `${d.severity}: ${d.message}${d.line ? ` (line ${d.line})` : ""}`));
    result.appendChild(diags);
  }
  result.appendChild(el("p", { class: "token", "data-testid": "upload-delete-token" }, `Delete token (shown once, kept in this browser): ${answer.delete_token}`));
  result.appendChild(el("a", { href: answer.url, class: "btn play", "data-testid": "upload-open" }, "Open the player"));
  mine.remember({ id: answer.id, title: answer.title, url: answer.url, created: Date.now(), token: answer.delete_token });
  sessionStorage.setItem(`streamscope.fresh.${answer.id}`, "1");
  renderMine();
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const file = fileInput.files[0];
  if (file) uploadFile(file);
  else if (textInput.value.trim()) {
    const body = fields();
    body.append("text", textInput.value);
    upload(body);
  } else failed({ code: "no_file", message: "choose a file, drop one on the page, or paste the stream text" });
});

document.addEventListener("dragover", (event) => {
  event.preventDefault();
  document.body.classList.add("dragging");
});
document.addEventListener("dragleave", (event) => {
  if (event.relatedTarget === null) document.body.classList.remove("dragging");
});
document.addEventListener("drop", (event) => {
  event.preventDefault();
  document.body.classList.remove("dragging");
  const file = event.dataTransfer?.files?.[0];
  if (file) uploadFile(file);
});

function renderMine() {
  const list = document.getElementById("mine-list");
  clear(list);
  const entries = mine.load();
  document.getElementById("mine-empty").hidden = entries.length > 0;
  for (const entry of entries) {
    const item = el("li", { "data-testid": "my-capture", dataset: { id: entry.id } });
    item.appendChild(el("a", { href: entry.url }, entry.title));
    item.appendChild(el("span", { class: "demo-source" }, new Date(entry.created).toLocaleString()));
    list.appendChild(item);
  }
}
renderMine();
