// A conformance report's page (docs/conform.md, "In the page"): while it runs, it is read
// again until it ends; the browser that started it (its delete token in mine.js) may delete
// it; a second report's link or id opens the comparison, /conform/<a>/<b>.

import { compareUrl, otherId } from "./conformstate.js";
import * as mine from "./mine.js";

const POLL_MS = 1000;
const card = document.getElementById("conform-report");
const id = card.dataset.report;
const status = card.querySelector('[data-testid="conform-report-status"]');
const deleteButton = card.querySelector('[data-testid="conform-delete"]');
const compareForm = card.querySelector('[data-testid="conform-compare-form"]');

async function waitForEnd() {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    try {
      const response = await fetch(`/api/conform/${encodeURIComponent(id)}`, { headers: { Accept: "application/json" } });
      if (!response.ok) return;
      const answer = await response.json();
      if (answer.state !== "running" || (answer.report?.cases?.length ?? 0) !== card.querySelectorAll('[data-testid="conform-case"]').length) {
        location.reload();
        return;
      }
    } catch {
      return;
    }
  }
}

const mineEntry = mine.find(id, mine.REPORTS);
if (mineEntry?.token) {
  deleteButton.hidden = false;
  deleteButton.addEventListener("click", async () => {
    const response = await fetch(`/api/conform/${encodeURIComponent(id)}`, { method: "DELETE", headers: { "X-Delete-Token": mineEntry.token } });
    if (response.status === 204 || response.status === 404) {
      mine.forget(id, mine.REPORTS);
      status.textContent = "Deleted: this report and its captures are gone.";
      deleteButton.hidden = true;
      card.dataset.state = "deleted";
    } else {
      const answer = await response.json().catch(() => null);
      status.textContent = answer?.error?.message ?? `The server answered ${response.status}.`;
    }
  });
}

compareForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const other = otherId(compareForm.elements.other.value);
  if (!other) {
    status.textContent = "That is not a report's link or id.";
    return;
  }
  location.href = compareUrl(id, other);
});

if (card.dataset.state === "running") waitForEnd();
