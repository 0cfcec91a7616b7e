// The client judges panel of a stored capture (docs/judges.md): the verdicts kept with the
// capture, if any, and a button that runs the judges now. Every text from a verdict is set with
// textContent: verdicts quote the capture's own bytes.

const panel = document.querySelector('[data-testid="judges"]');
const MAX_SHOWN = 300; // characters of a value the list shows

if (panel) {
  const id = panel.dataset.id;
  const url = `/api/captures/${encodeURIComponent(id)}/judges`;
  const button = panel.querySelector('[data-testid="judges-run"]');
  const status = panel.querySelector('[data-testid="judges-status"]');
  const list = panel.querySelector('[data-testid="judge-list"]');

  if (panel.dataset.judged === "1") load(url, list, status); // verdicts kept: show them
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = "Running the clients on this capture…";
    try {
      const response = await fetch(url, { method: "POST" });
      const answer = await response.json().catch(() => null);
      if (!response.ok) {
        status.textContent = (answer && answer.error && answer.error.message) || `The server answered ${response.status}.`;
        return;
      }
      show(answer.streams, list, status);
    } catch (error) {
      status.textContent = `Not run: ${error.message}`;
    } finally {
      button.disabled = false;
    }
  });
}

async function load(url, list, status) {
  const response = await fetch(url).catch(() => null);
  if (!response || !response.ok) return; // none run yet: the button says what to do
  const answer = await response.json().catch(() => null);
  if (answer && Array.isArray(answer.streams)) show(answer.streams, list, status);
}

export function show(streams, list, status) {
  list.replaceChildren();
  let count = 0;
  streams.forEach((verdicts, stream) => {
    for (const verdict of verdicts) {
      list.append(item(verdict, stream, streams.length > 1));
      count += 1;
    }
  });
  status.textContent = count
    ? `${count} verdict${count === 1 ? "" : "s"}.`
    : "No client judge reads these streams (their dialect, or they are not server-sent events).";
}

function item(verdict, stream, many) {
  const li = document.createElement("li");
  li.className = `judge judge-${String(verdict.verdict).replace(/[^a-z]+/g, "-")}`;
  li.dataset.testid = "judge";
  li.dataset.client = String(verdict.client);
  li.dataset.version = String(verdict.version ?? "");
  li.dataset.verdict = String(verdict.verdict);
  li.dataset.stream = String(stream);
  const who = document.createElement("strong");
  who.textContent = `${many ? `Stream ${stream + 1} · ` : ""}${verdict.client}${verdict.version ? ` ${verdict.version}` : ""}`;
  const api = document.createElement("span");
  api.className = "hint";
  api.textContent = ` (${verdict.api})`;
  const said = document.createElement("span");
  said.className = "judge-verdict";
  said.textContent = `: ${verdict.verdict}`;
  li.append(who, api, said);
  const detail = describe(verdict);
  if (detail) {
    const more = document.createElement("div");
    more.className = "judge-detail";
    more.textContent = detail;
    li.append(more);
  }
  return li;
}

function describe(verdict) {
  if (verdict.verdict === "differs") {
    return `${verdict.field}: Streamscope read ${shown(verdict.ours)}, the client read ${shown(verdict.theirs)}`;
  }
  return verdict.error ? clip(String(verdict.error)) : "";
}

function shown(value) {
  return clip(JSON.stringify(value ?? null));
}

function clip(text) {
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}
