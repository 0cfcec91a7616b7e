// Issue 11, items 11, 15 and 17: the status line follows the player; errors show a summary, the
// upstream's status and title, and the rest behind a toggle, as text.
import assert from "node:assert/strict";
import { test } from "node:test";
import { State } from "../../static/js/player.js";
import { problemParts } from "../../static/js/problem.js";
import { stateSentence } from "../../static/js/status.js";
import { themeCookie } from "../../static/js/theme.js";

test("a /api/models error with its upstream: message, status, type and title; the body for the toggle", () => {
  const error = {
    code: "bad_upstream",
    message: "HTTP 404 from host: an HTML page titled 'Not Found', not the models list",
    upstream: { status: 404, content_type: "text/html", title: "Not Found", body: "<html><title>Not Found</title><script>x()</script></html>" },
  };
  const parts = problemParts(error);
  assert.equal(parts.summary, error.message);
  assert.deepEqual(parts.facts, ["HTTP 404", "text/html", "page title “Not Found”"]);
  assert.equal(parts.body, error.upstream.body);
  assert.match(parts.bodyLabel, /as text/);
});

test("without `upstream`, a pasted page is cut from the summary and kept for the toggle", () => {
  const message = "HTTP 502 from upstream, an HTML page, not a stream: <html><body><h1>502</h1></body></html>";
  const parts = problemParts(message);
  assert.equal(parts.summary, "HTTP 502 from upstream, an HTML page, not a stream");
  assert.equal(parts.body, "<html><body><h1>502</h1></body></html>");
  assert.deepEqual(parts.facts, []);
  const long = problemParts({ message: `${"x".repeat(300)}\nmore` });
  assert.equal(long.summary.length, 201);
  assert.equal(long.body, `${"x".repeat(300)}\nmore`);
  assert.deepEqual(problemParts({ message: "connection refused by 127.0.0.1:9" }), { summary: "connection refused by 127.0.0.1:9", facts: [], body: null, bodyLabel: "Show the whole message" });
});

test("the status line says the player's state", () => {
  const moment = { ms: 1483, decimals: 3 };
  assert.equal(stateSentence(State.PLAYING, { speed: 2, moment }), "Playing at 2×.");
  assert.equal(stateSentence(State.PLAYING, { speed: "max", moment }), "Playing at maximum speed.");
  assert.equal(stateSentence(State.PAUSED, { speed: 1, moment }), "Paused at 0:01.483.");
  assert.equal(stateSentence(State.ENDED, { speed: 1, moment }), "Played to the end.");
});

test("the theme cookie remembers light or dark, and forgets for the OS setting", () => {
  assert.equal(themeCookie("dark"), "streamscope_theme=dark; path=/; max-age=31536000; SameSite=Lax");
  assert.match(themeCookie(null), /^streamscope_theme=; path=\/; max-age=0/);
  assert.match(themeCookie("<x>"), /max-age=0/);
});
