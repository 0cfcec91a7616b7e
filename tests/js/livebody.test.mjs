import assert from "node:assert/strict";
import { test } from "node:test";
import { buildRequest, curlPreview, previewRequest } from "../../static/js/livebody.js";

const VALUES = { base_url: "http://127.0.0.1:9 ", model: "claude-x", messages: [{ role: "user", content: "hi" }], api: "anthropic", api_key: "sk-ant-secret-0123456789" };

test("a request names its API (chat when none is chosen) and keeps the common form", () => {
  const request = buildRequest(VALUES);
  assert.equal(request.api, "anthropic");
  assert.equal(request.base_url, "http://127.0.0.1:9");
  assert.deepEqual(request.body, { model: "claude-x", messages: [{ role: "user", content: "hi" }], stream: true });
  assert.equal(buildRequest({ ...VALUES, api: "" }).api, "chat");
});

test("the preview asks the server without the key, and shows the key masked in the API's header", () => {
  const request = buildRequest({ ...VALUES, extra_headers: '{"anthropic-beta": "x"}' });
  assert.equal(previewRequest(request).api_key, undefined);
  assert.equal(JSON.stringify(previewRequest(request)).includes("secret"), false);
  const shown = {
    url: "http://127.0.0.1:9/v1/messages",
    headers: { Accept: "text/event-stream", "anthropic-version": "2023-06-01" },
    key_header: "x-api-key",
    key_prefix: "",
    body: { model: "claude-x", max_tokens: 1024, messages: [], stream: true },
  };
  const curl = curlPreview(request, shown);
  assert.ok(curl.startsWith("curl -N 'http://127.0.0.1:9/v1/messages'"));
  assert.ok(curl.includes("-H 'x-api-key: sk-…6789'") && !curl.includes("secret"));
  assert.ok(curl.includes("-H 'anthropic-version: 2023-06-01'") && curl.includes("-H 'anthropic-beta: x'"));
  assert.ok(curl.includes('"max_tokens": 1024'));
  const fromServer = curlPreview({ ...request, api_key: undefined, api_key_env: "ANTHROPIC_API_KEY" }, { ...shown, key_header: "Authorization", key_prefix: "Bearer " });
  assert.ok(fromServer.includes('-H "Authorization: Bearer $ANTHROPIC_API_KEY"'));
});
