// The exported player (docs/teaching.md, "Static export"): the same page, fed from the
// timeline document inline in the file instead of a server. The document sits in a
// non-executable JSON script element and is read with JSON.parse, so capture text never
// becomes markup or code.

import { DocumentLink } from "./doclink.js";
import { mountPlayer } from "./page.js";

const data = JSON.parse(document.getElementById("streamscope-data").textContent);
const root = document.getElementById("player");
const page = mountPlayer(root, { openLink: (...args) => new DocumentLink(async () => data.timeline, ...args) });
page.markers.useSource({ owner: false, load: async () => data.markers ?? [] });
page.connect({ type: "open", source: { export: true } });
