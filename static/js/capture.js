// A stored capture's page: dates in local time, and for its uploader (this browser holds the
// delete token) the title form and the delete button. The token is shown once after upload.
// A browser without the token has a field for one from elsewhere (the uploader's other
// browser): checked with the server, then kept in this browser like an upload's.

import * as mine from "./mine.js";

const info = document.querySelector('[data-testid="capture-info"]');
const id = info.dataset.id;
for (const time of info.querySelectorAll("time[data-ts]")) {
  const date = new Date(Number(time.dataset.ts) * 1000);
  time.dateTime = date.toISOString();
  time.textContent = date.toLocaleString();
}

const status = document.querySelector('[data-testid="player-status"]');
const claim = info.querySelector('[data-testid="token-form"]');
const found = mine.find(id);
if (found) showOwner(found);
else claim.hidden = false;

claim.addEventListener("submit", async (event) => {
  event.preventDefault();
  const token = String(new FormData(claim).get("token") || "").trim();
  const said = claim.querySelector('[data-testid="token-status"]');
  if (!token) {
    said.textContent = "Paste the delete token first.";
    return;
  }
  // The title as it is: a PATCH that changes nothing, answered 200 only for the right token.
  const title = info.querySelector('[data-testid="title-input"]').value;
  const response = await fetch(`/api/captures/${id}`, {
    method: "PATCH",
    headers: { "Content-Type": "application/json", "X-Delete-Token": token },
    body: JSON.stringify({ title }),
  });
  if (!response.ok) {
    said.textContent = response.status === 403 ? "That is not this capture's delete token." : `Not checked: the server answered ${response.status}.`;
    return;
  }
  const answer = await response.json();
  const entry = { id, title: answer.title, url: location.pathname, created: Date.now(), token };
  mine.remember(entry);
  claim.hidden = true;
  status.textContent = "Delete token accepted: this browser keeps it.";
  showOwner(entry);
});

function showOwner(found) {
  let entry = found;
  const owner = info.querySelector('[data-testid="owner-tools"]');
  owner.hidden = false;
  if (sessionStorage.getItem(`streamscope.fresh.${id}`)) {
    sessionStorage.removeItem(`streamscope.fresh.${id}`);
    const token = owner.querySelector('[data-testid="delete-token"]');
    token.textContent = `Delete token (shown once; this browser keeps it): ${entry.token}`;
    token.hidden = false;
  }
  owner.querySelector("form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const title = new FormData(event.target).get("title");
    const response = await fetch(`/api/captures/${id}`, {
      method: "PATCH",
      headers: { "Content-Type": "application/json", "X-Delete-Token": entry.token },
      body: JSON.stringify({ title }),
    });
    const answer = await response.json();
    if (response.ok) {
      document.querySelector('[data-testid="player-title"]').textContent = answer.title;
      document.title = `${answer.title} · Streamscope`;
      entry = { ...entry, title: answer.title };
      mine.remember(entry);
      status.textContent = "Title saved.";
    } else status.textContent = `Not saved: ${answer.error.message}`;
  });
  owner.querySelector('[data-testid="delete-capture"]').addEventListener("click", async () => {
    if (!confirm("Delete this capture for everyone who has the link?")) return;
    const response = await fetch(`/api/captures/${id}`, { method: "DELETE", headers: { "X-Delete-Token": entry.token } });
    if (response.status === 204 || response.status === 404) {
      mine.forget(id);
      location.href = "/";
    } else status.textContent = `Not deleted: the server answered ${response.status}`;
  });
}
