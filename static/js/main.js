// The replay page: mount the player and open its source. A stored capture that can no longer
// grow is fetched over HTTP (its timeline document, doclink.js); a demo, and a live run's
// recording still growing, come over the websocket (docs/protocol.md).

import { httpLink } from "./doclink.js";
import * as mine from "./mine.js";
import { mountPlayer } from "./page.js";
import { apiMarkers } from "./views/markers.js";

const root = document.getElementById("player");
const overHttp = root.dataset.timelineUrl ? { openLink: (...args) => httpLink(root.dataset, ...args) } : {};
const page = mountPlayer(root, overHttp);
const source = root.dataset.sourceKind === "demo" ? { demo: root.dataset.sourceId } : { capture: root.dataset.sourceId };
if (source.capture) page.markers.useSource(apiMarkers(source.capture, mine.find(source.capture)?.token));
page.connect({ type: "open", source });
