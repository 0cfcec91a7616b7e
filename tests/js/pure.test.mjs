import assert from "node:assert/strict";
import { test } from "node:test";
import { bucket, clockTime, utf8, withGlyphs } from "../../static/js/format.js";
import { CLIENT_MESSAGES, ProtocolError, SERVER_MESSAGES, SUBPROTOCOL, decode, encode } from "../../static/js/protocol.js";
import { parseTime, readState, shareUrl } from "../../static/js/share.js";
import { tokenPieces } from "../../static/js/views/text.js";

test("protocol encodes only client types and decodes only server types", () => {
  assert.equal(SUBPROTOCOL, "streamscope.v5");
  assert.deepEqual(JSON.parse(encode("open", { source: { demo: "x" } })), { type: "open", source: { demo: "x" } });
  assert.throws(() => encode("hello"), ProtocolError);
  assert.equal(decode('{"type":"end","reason":"complete"}').reason, "complete");
  assert.throws(() => decode('{"type":"open"}'), ProtocolError);
  assert.throws(() => decode("not json"), ProtocolError);
  assert.ok(SERVER_MESSAGES.includes("events") && CLIENT_MESSAGES.includes("raw_request"));
});

test("share state reads seconds and m:ss and round-trips through a link", () => {
  assert.equal(parseTime("90"), 90);
  assert.equal(parseTime("1:30.5"), 90.5);
  assert.equal(parseTime("x"), null);
  const state = readState("?t=1:02&speed=2&autoplay=1&choice=1&token=7&theme=dark");
  assert.deepEqual(state, { t: 62, speed: "2", autoplay: true, choice: 1, token: 7, lane: "text", theme: "dark", m: null });
  const url = shareUrl("http://h/c/abc?t=9", { t: 12.3456, speed: 2, choice: 0, token: 3 });
  assert.equal(url, "http://h/c/abc?t=12.346&speed=2&choice=0&token=3");
  assert.equal(readState("?theme=<script>").theme, null);
});

test("token pieces split by logprob entries when the bytes add up, else one piece with bytes", () => {
  const entry = (token, bytes, logprob = -0.1) => ({ token, bytes, logprob, top_logprobs: [] });
  const split = tokenPieces("Hello", [entry("Hel", [72, 101, 108]), entry("lo", [108, 111])]);
  assert.deepEqual(split.map((p) => p.text), ["Hel", "lo"]);
  const emoji = tokenPieces("🚀", [entry("bytes:\\x9a\\x80", [154, 128])]);
  assert.equal(emoji.length, 1);
  assert.equal(emoji[0].text, "🚀");
  assert.equal(emoji[0].bytes, "9a 80");
  assert.deepEqual(tokenPieces("plain", null), [{ text: "plain", entries: [] }]);
});

test("formatting helpers", () => {
  assert.equal(clockTime(62345.6), "1:02.346");
  assert.equal(utf8([0xf0, 0x9f]), null);
  assert.equal(utf8([0x68, 0x69]), "hi");
  assert.equal(bucket(Math.log(0.95)), 5);
  assert.equal(bucket(Math.log(0.05)), 0);
  assert.equal(withGlyphs("a b\n"), "a·b↵\n");
});
