// The websocket wire protocol, mirrored from app/protocol.py (docs/protocol.md).
// tests/test_protocol.py fails when this file, the Python module and the doc disagree.

export const VERSION = 5;
export const SUBPROTOCOL = `streamscope.v${VERSION}`;

export const SERVER_MESSAGES = Object.freeze([
  "hello",
  "capture",
  "raw_meta",
  "events",
  "summary",
  "findings",
  "raw",
  "status",
  "end",
  "error",
  "room",
  "mirror",
]);

// A status message's state: the run's own, then a viewer's on another process (fallback: the
// stored recording while Redis is away; live: the live edge again; a room's pages too).
export const STATUS_STATES = Object.freeze(["started", "connecting", "retrying", "streaming", "fallback", "live"]);

export const CLIENT_MESSAGES = Object.freeze(["open", "start", "raw_request", "stop", "join", "present"]);

// A raw_meta message's columns, one value per raw event in each.
export const RAW_COLUMNS = Object.freeze(["t", "line", "kind", "choices", "event"]);

// Raw texts in one `raw` message (asked for, sent, or in a document), and the pace of a stream
// without timing when the capture message says none (its `pace_ms`).
export const MAX_RAW_REQUEST = 500;
export const UNTIMED_PACE_MS = 40;
export const DEFAULT_API = "chat"; // the API a start message without `api` speaks

export class ProtocolError extends Error {}

/** Build a client message; throws on a type outside the closed set. */
export function encode(type, fields = {}) {
  if (!CLIENT_MESSAGES.includes(type)) throw new ProtocolError(`not a client message: ${type}`);
  return JSON.stringify({ type, ...fields });
}

/** Parse a server message; throws ProtocolError on anything outside the protocol. */
export function decode(text) {
  let message;
  try {
    message = JSON.parse(text);
  } catch (err) {
    throw new ProtocolError(`not JSON: ${err.message}`);
  }
  if (message === null || typeof message !== "object" || !SERVER_MESSAGES.includes(message.type)) {
    throw new ProtocolError(`unknown message type: ${message && message.type}`);
  }
  return message;
}
