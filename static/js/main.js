// The replay page: mount the player and open its source.

import { mountPlayer } from "./page.js";

const root = document.getElementById("player");
const page = mountPlayer(root);
const source = root.dataset.sourceKind === "demo" ? { demo: root.dataset.sourceId } : { capture: root.dataset.sourceId };
page.connect({ type: "open", source });
