// The replay page: mount the player and open its source.

import * as mine from "./mine.js";
import { mountPlayer } from "./page.js";
import { apiMarkers } from "./views/markers.js";

const root = document.getElementById("player");
const page = mountPlayer(root);
const source = root.dataset.sourceKind === "demo" ? { demo: root.dataset.sourceId } : { capture: root.dataset.sourceId };
if (source.capture) page.markers.useSource(apiMarkers(source.capture, mine.find(source.capture)?.token));
page.connect({ type: "open", source });
