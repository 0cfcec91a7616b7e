// "Present" and "Compare with…" on every player page (docs/teaching.md). Present makes a room
// for this capture (POST /api/rooms) and opens its presenter link; Compare with… is a plain
// form (GET /compare?a=&b=). On the live page both wait for the run to end: a room or a
// compare plays a recording, and the run's capture is known once it has started.

const box = document.querySelector('[data-testid="teach"]');
const root = document.getElementById("player");
const present = box?.querySelector('[data-testid="present"]');
const status = box?.querySelector('[data-testid="present-status"]');
const form = box?.querySelector('[data-testid="compare-form"]');

/** The capture a live run records, from its share link ("/c/<id>"), once the run has ended. */
export function recordedRef(dataset) {
  if (!dataset.shareUrl || dataset.loaded !== "true") return "";
  const match = /\/c\/([\w-]+)$/.exec(dataset.shareUrl);
  return match ? match[1] : "";
}

function setRef(ref) {
  box.dataset.ref = ref;
  form.elements.a.value = ref;
  if (present) present.disabled = !ref;
  form.querySelector('button[type="submit"]').disabled = !ref;
}

async function makeRoom() {
  const ref = box.dataset.ref;
  if (!ref) return;
  present.disabled = true;
  status.textContent = "Opening a room…";
  let response;
  let answer;
  try {
    response = await fetch("/api/rooms", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ capture: ref }) });
    answer = await response.json();
  } catch (error) {
    status.textContent = `No room: no answer from Streamscope (${error.message}).`;
    present.disabled = false;
    return;
  }
  if (!response.ok) {
    status.textContent = `No room: ${answer?.error?.message ?? `the server answered ${response.status}`}.`;
    present.disabled = false;
    return;
  }
  location.assign(answer.presenter_url); // the presenter's page; it shows the viewer link
}

if (box && root) {
  present?.addEventListener("click", makeRoom);
  if (root.dataset.sourceKind === "live") {
    setRef("");
    new MutationObserver(() => setRef(recordedRef(root.dataset))).observe(root, { attributes: true, attributeFilter: ["data-share-url", "data-loaded"] });
  }
}
