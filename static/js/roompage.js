// The room page (/r/<room>): the player joins the room; the presenter's link carries the key
// in its fragment (#key=...), which never leaves the browser except in this page's own
// websocket messages (docs/security.md, "Presenter rooms").

import { mountPlayer } from "./page.js";
import { Room } from "./room.js";

const root = document.getElementById("player");
const bar = document.querySelector('[data-testid="room-bar"]');
const key = new URLSearchParams(location.hash.slice(1)).get("key");
// A room shows where the presenter is: a marker's link (?m=, its chapter list makes them) does
// not move a page that follows.
const here = new URL(location.href);
if (here.searchParams.has("m")) {
  here.searchParams.delete("m");
  history.replaceState(history.state, "", here);
}
let room = null;
const page = mountPlayer(root, { onMessage: (message) => room?.message(message) });
room = new Room(root, bar, page, { room: root.dataset.sourceId, key });
page.room = room;
page.connect({ type: "join", room: root.dataset.sourceId, ...(key ? { key } : {}) });
