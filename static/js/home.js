// Home page: upload by file picker, drag and drop anywhere, or pasted text, with a progress
// bar; once the capture is read the player opens by itself at its share link, where the
// format, streams, diagnostics, what was redacted and (once) the delete token are shown.
// A refused upload says why here. "My captures" lists this browser's uploads.

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
    if (request.status === 201) opened(answer);
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
  // A wrong guess of the format or the dialect is fixed here; empty means "detect".
  for (const name of ["format", "dialect"]) {
    const value = document.getElementById(`upload-${name}`).value;
    if (value) body.append(name, value);
  }
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
  // The diagnostics the message does not already say.
  for (const d of error.diagnostics || []) {
    if (d.message !== error.message) result.appendChild(el("span", { class: "diag" }, ` · ${d.severity}: ${d.message}`));
  }
}

function opened(answer) {
  mine.remember({ id: answer.id, title: answer.title, url: answer.url, created: Date.now(), token: answer.delete_token });
  sessionStorage.setItem(`streamscope.fresh.${answer.id}`, "1"); // the player shows the token once
  clear(result);
  result.dataset.state = "done";
  const streams = answer.streams.length;
  result.appendChild(el("p", { "data-testid": "upload-format" }, `Read as ${answer.format}: ${streams} stream${streams === 1 ? "" : "s"}. Opening the player…`));
  location.assign(answer.url);
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
