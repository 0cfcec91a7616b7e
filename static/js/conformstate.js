// The conform pages' pure parts (docs/conform.md, "In the page"), DOM-free: the progress rows
// and the line that says where a battery is, from `GET /api/conform/<id>`; a report's id from
// its link or the id itself; the comparison's address.

const ID = /^[A-Za-z0-9_-]{1,64}$/;

/** One row per planned case (its verdict and why once it has ended, else `running`, or
 * `not run` once the battery has ended without it), and the line that says where it is. */
export function progressOf(answer) {
  const cases = Array.isArray(answer?.report?.cases) ? answer.report.cases : [];
  const done = new Map(cases.map((entry) => [entry.case, entry]));
  const planned = Array.isArray(answer?.planned) ? answer.planned : [];
  const rows = planned.map((name) => {
    const entry = done.get(name);
    if (!entry) return { case: name, verdict: answer.state === "running" ? "running" : "not run", why: "" };
    return { case: name, verdict: String(entry.verdict), why: String(entry.why ?? "") };
  });
  const summary = answer?.report?.summary;
  const server = answer?.report?.server;
  let text;
  if (answer?.state === "running") text = `Running: ${done.size} of ${planned.length} cases done.`;
  else if (answer?.state === "failed") text = `The battery failed: ${answer.error ?? "no reason given"}`;
  else if (server?.reached === false) text = `The server could not be reached: ${server.error}`;
  else if (summary) text = `Done: ${summary.pass} pass, ${summary.warn} warn, ${summary.fail} fail, ${summary.unsupported} unsupported.`;
  else text = "Done.";
  return { rows, text };
}

/** The other report's id, from its link (…/conform/<id>, a query or fragment aside) or the id
 * itself; null if neither. */
export function otherId(text) {
  const value = String(text).trim().replace(/[?#].*$/, "").replace(/\/+$/, "");
  const last = value.split("/").pop();
  return ID.test(last) ? last : null;
}

/** The comparison of report `a` (before) with report `b` (after). */
export function compareUrl(a, b) {
  return `/conform/${encodeURIComponent(a)}/${encodeURIComponent(b)}`;
}
