// Issue 11, item 21: connection failures are shown to the user, not dropped. A fake WebSocket
// stands in for the browser's (node has none); everything above it is the page's own code.
import { VERSION } from "../../static/js/protocol.js";
import assert from "node:assert/strict";
import { test } from "node:test";
import { ResumingConnection } from "../../static/js/resume.js";
import { Timeline } from "../../static/js/timeline.js";

class FakeSocket {
  static OPEN = 1;
  static all = [];

  constructor(url, protocol) {
    this.url = url;
    this.protocol = protocol;
    this.readyState = FakeSocket.OPEN;
    this.listeners = {};
    this.sent = [];
    FakeSocket.all.push(this);
  }

  addEventListener(type, fn) {
    (this.listeners[type] ??= []).push(fn);
  }

  emit(type, event = {}) {
    for (const fn of this.listeners[type] ?? []) fn(event);
  }

  send(data) {
    this.sent.push(JSON.parse(data));
  }

  close(code = 1000) {
    this.readyState = 3;
    this.emit("close", { code, reason: "" });
  }
}

globalThis.WebSocket = FakeSocket;
globalThis.location = { protocol: "http:", host: "127.0.0.1:5000" };

function connect() {
  FakeSocket.all = [];
  const said = [];
  const failed = [];
  const delivered = [];
  const link = new ResumingConnection(new Timeline(), (m) => delivered.push(m), {
    say: (text, kind) => said.push([text, kind]),
    failed: (text) => failed.push(text),
    state() {},
    reconnected() {},
  }, { delays: [0, 0] });
  link.start({ type: "open", source: { demo: "plain-text" } });
  FakeSocket.all[0].emit("open");
  return { link, said, failed, delivered };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

test("a server speaking another protocol version is said once, with no reconnecting", async () => {
  const { failed, said } = connect();
  FakeSocket.all[0].emit("message", { data: JSON.stringify({ type: "hello", version: VERSION + 1 }) });
  await settle();
  assert.equal(FakeSocket.all.length, 1, "no new connection");
  assert.equal(failed.length, 1);
  assert.match(failed[0], new RegExp(`protocol version ${VERSION + 1} .* version ${VERSION}: reload the page`));
  assert.deepEqual(said, []);
});

test("a message the page cannot read is said, and the connection goes on", async () => {
  const { failed, delivered } = connect();
  const socket = FakeSocket.all[0];
  socket.emit("message", { data: "{not json" });
  socket.emit("message", { data: JSON.stringify({ type: "nope" }) });
  socket.emit("message", { data: JSON.stringify({ type: "hello", version: VERSION }) });
  assert.equal(failed.length, 2);
  assert.match(failed[0], /cannot read \(not JSON/);
  assert.match(failed[1], /unknown message type: nope/);
  assert.deepEqual(delivered.map((m) => m.type), ["hello"]);
});

test("a connection that keeps dropping says why, then that it gave up", async () => {
  const { said, failed } = connect();
  FakeSocket.all[0].close(1006);
  await settle();
  assert.match(said[0][0], /Connection lost \(no answer from the server, code 1006\): reconnecting \(attempt 1 of 2\)/);
  FakeSocket.all[1].close(1011);
  await settle();
  FakeSocket.all[2].close(1006);
  await settle();
  assert.equal(FakeSocket.all.length, 3);
  assert.deepEqual(failed, ["could not reconnect after 2 attempts (no answer from the server, code 1006); reload the page to try again"]);
});
