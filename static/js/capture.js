// A stored capture's page: dates in local time, and for its uploader (this browser holds the
// delete token) the title form and the delete button. The token is shown once after upload.

import * as mine from "./mine.js";

const info = document.querySelector('[data-testid="capture-info"]');
const id = info.dataset.id;
for (const time of info.querySelectorAll("time[data-ts]")) {
  const date = new Date(Number(time.dataset.ts) * 1000);
  time.dateTime = date.toISOString();
  time.textContent = date.toLocaleString();
}

const entry = mine.find(id);
if (entry) {
  const owner = info.querySelector('[data-testid="owner-tools"]');
  owner.hidden = false;
  const status = document.querySelector('[data-testid="player-status"]');
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
      mine.remember({ ...entry, title: answer.title });
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
