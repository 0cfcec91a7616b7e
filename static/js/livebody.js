// Building a live run's request from the form's values, and its curl preview (pure). The
// request is in the common form (docs/live.md); the server writes it as the chosen API's
// body (app/live/apibodies.py) and says what it would send (POST /api/live/preview), which the
// preview shows.

import { DEFAULT_API } from "./protocol.js";

export class FormError extends Error {
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

export const EXAMPLE_TOOLS = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather for a city",
      parameters: {
        type: "object",
        properties: { city: { type: "string" }, units: { type: "string", enum: ["c", "f"] } },
        required: ["city"],
      },
    },
  },
];

function json(field, text, expect) {
  if (!text || !text.trim()) return undefined;
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new FormError(field, `${field} is not valid JSON: ${error.message}`);
  }
  if (expect === "object" && (value === null || typeof value !== "object" || Array.isArray(value))) throw new FormError(field, `${field} must be a JSON object`);
  if (expect === "array" && !Array.isArray(value)) throw new FormError(field, `${field} must be a JSON list`);
  return value;
}

function number(field, value, integer = false) {
  if (value === undefined || value === null || String(value).trim() === "") return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || (integer && !Number.isInteger(parsed))) throw new FormError(field, `${field} must be a ${integer ? "whole " : ""}number`);
  return parsed;
}

export function buildRequest(v) {
  if (!v.base_url || !/^https?:\/\/[^/]/.test(v.base_url)) throw new FormError("base_url", "the base URL must start with http:// or https://");
  if (!v.model || !v.model.trim()) throw new FormError("model", "choose a model");
  const messages = (v.messages || []).filter((m) => m.content.trim() !== "");
  if (!messages.length) throw new FormError("messages", "write at least one message");
  const body = { model: v.model.trim(), messages, stream: true };
  const numbers = { temperature: false, top_p: false, max_tokens: true, seed: true, n: true };
  for (const [field, integer] of Object.entries(numbers)) {
    const value = number(field, v[field], integer);
    if (value !== undefined) body[field] = value;
  }
  if (v.stop && v.stop.trim()) body.stop = v.stop.trim().startsWith("[") ? json("stop", v.stop, "array") : v.stop;
  if (v.logprobs) {
    body.logprobs = true;
    const top = number("top_logprobs", v.top_logprobs, true);
    if (top !== undefined) body.top_logprobs = top;
  }
  if (v.include_usage) body.stream_options = { include_usage: true };
  const tools = json("tools", v.tools, "array");
  if (tools) body.tools = tools;
  if (v.tool_choice && v.tool_choice.trim()) {
    const choice = v.tool_choice.trim();
    body.tool_choice = ["auto", "none", "required"].includes(choice) ? choice : { type: "function", function: { name: choice } };
  }
  if (v.response_format) body.response_format = { type: v.response_format };
  Object.assign(body, json("extra body", v.extra_body, "object") || {});
  const headers = json("extra headers", v.extra_headers, "object") || {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== "string") throw new FormError("extra headers", `header ${name} must be text`);
  }
  const request = { api: v.api || DEFAULT_API, base_url: v.base_url.trim(), headers, body };
  if (v.api_key_env) request.api_key_env = v.api_key_env;
  else if (v.api_key) request.api_key = v.api_key;
  return request;
}

export function maskKey(key) {
  if (!key) return "";
  return key.length <= 8 ? "****" : `${key.slice(0, 3)}…${key.slice(-4)}`;
}

function quote(text) {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/** The curl command for a request, from what the server says it would send (``shown``: its
 * url, the API's headers, the header the key goes in and its form, the body); the key is
 * masked, or a server variable's name stands for it. */
export function curlPreview(request, shown) {
  const lines = [`curl -N ${quote(shown.url)}`, `  -H ${quote("Content-Type: application/json")}`];
  for (const [name, value] of Object.entries(shown.headers || {})) lines.push(`  -H ${quote(`${name}: ${value}`)}`);
  if (request.api_key_env) lines.push(`  -H "${shown.key_header}: ${shown.key_prefix}$${request.api_key_env}"`);
  else if (request.api_key) lines.push(`  -H ${quote(`${shown.key_header}: ${shown.key_prefix}${maskKey(request.api_key)}`)}`);
  for (const [name, value] of Object.entries(request.headers || {})) lines.push(`  -H ${quote(`${name}: ${value}`)}`);
  lines.push(`  -d ${quote(JSON.stringify(shown.body, null, 2))}`);
  return lines.join(" \\\n");
}

/** What the server is asked to preview: the request without its key. */
export function previewRequest(request) {
  const { api_key: _key, ...rest } = request;
  return rest;
}

/** What is remembered between visits: everything but the key. */
export function remembered(values) {
  const { api_key: _key, ...rest } = values;
  return rest;
}
