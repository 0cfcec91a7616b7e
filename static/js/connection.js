// The websocket connection: speaks the protocol (protocol.js) and hands messages on.

import { SUBPROTOCOL, VERSION, decode, encode } from "./protocol.js";

/** The server speaks another protocol version: reconnecting cannot help (reload the page). */
export class VersionMismatch extends Error {}

export class Connection {
  constructor(url, handlers) {
    this.url = url;
    this.handlers = handlers; // {message(msg), closed(event), failed(error: ProtocolError, VersionMismatch or a socket error)}
    this.socket = null;
  }

  /** Connect and send `first` ({type, ...fields}): "open" a source or "start" a live run. */
  openWith(first) {
    const { type, ...fields } = first;
    const socket = new WebSocket(this.url, SUBPROTOCOL);
    this.socket = socket;
    socket.addEventListener("open", () => socket.send(encode(type, fields)));
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = decode(event.data);
      } catch (error) {
        this.handlers.failed?.(error);
        return;
      }
      if (message.type === "hello" && message.version !== VERSION) {
        this.handlers.failed?.(new VersionMismatch(`the server speaks protocol version ${message.version} and this page version ${VERSION}: reload the page`));
        socket.close();
        return;
      }
      this.handlers.message(message);
    });
    socket.addEventListener("close", (event) => this.handlers.closed?.(event));
    socket.addEventListener("error", () => this.handlers.failed?.(new Error("websocket error")));
  }

  send(type, fields) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(encode(type, fields));
  }

  close() {
    this.socket?.close();
  }
}

export function websocketUrl(path = "/ws") {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}`;
}
