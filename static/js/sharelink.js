// "Copy link at this moment": the page's share link with the moment on screen (a time that
// reopens exactly this screen), the speed, the selected token and the theme (share.js).

import { shareUrl } from "./share.js";
import { currentTheme } from "./theme.js";

export class ShareLinks {
  constructor(root, { player, selection, status }) {
    this.root = root;
    this.player = player;
    this.selection = selection;
    this.status = status;
  }

  /** The link: a live run's page links to its recording (data-share-url), others to themselves. */
  url() {
    const base = this.root.dataset.shareUrl ? new URL(this.root.dataset.shareUrl, location.href).href : location.href;
    const token = this.selection.ref() ?? { lane: "text", choice: null, token: null };
    return shareUrl(base, { t: this.player.moment().seconds, speed: this.player.speed, ...token, theme: currentTheme() });
  }

  copy() {
    const url = this.url();
    this.root.dataset.copied = url;
    const done = () => this.status.say(`Link copied: ${url}`);
    const shown = () => this.status.say(`Copy this link: ${url}`);
    if (navigator.clipboard?.writeText) navigator.clipboard.writeText(url).then(done, shown);
    else shown();
    return url;
  }
}
