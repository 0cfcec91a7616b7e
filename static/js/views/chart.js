// The timeline chart: one mark per chunk over time, height by the gap to the previous chunk,
// stalls in red, a line at the current moment. Clicking seeks. Marks are drawn once into an
// offscreen canvas; each frame only copies it and draws the line.

export class Chart {
  constructor(canvas, { onSeek }) {
    this.canvas = canvas;
    this.onSeek = onSeek;
    this.marks = [];
    this.duration = 0;
    this.base = null;
    canvas.addEventListener("click", (event) => {
      const box = canvas.getBoundingClientRect();
      const x = (event.clientX - box.left) / box.width;
      if (this.duration > 0) this.onSeek(x * this.duration);
    });
    canvas.tabIndex = 0;
  }

  setMarks(marks, duration) {
    this.marks = marks;
    this.duration = duration;
    this._drawBase();
  }

  _size() {
    const ratio = window.devicePixelRatio || 1;
    const width = Math.max(200, Math.floor(this.canvas.clientWidth * ratio));
    const height = Math.max(40, Math.floor(this.canvas.clientHeight * ratio));
    return { width, height, ratio };
  }

  _drawBase() {
    const { width, height } = this._size();
    this.canvas.width = width;
    this.canvas.height = height;
    const base = document.createElement("canvas");
    base.width = width;
    base.height = height;
    const ctx = base.getContext("2d");
    const style = getComputedStyle(this.canvas);
    const normal = style.getPropertyValue("--chart-mark").trim() || "#4a7bd0";
    const stall = style.getPropertyValue("--chart-stall").trim() || "#d33";
    this.nowColor = style.getPropertyValue("--chart-now").trim() || "#e80"; // read once, not per frame
    this.lastX = null;
    const maxGap = Math.max(1, ...this.marks.map((m) => Math.min(m.gap, 2000)));
    for (const mark of this.marks) {
      const x = this.duration > 0 ? Math.floor((mark.time / this.duration) * (width - 1)) : 0;
      const h = Math.max(2, Math.round((Math.min(mark.gap, 2000) / maxGap) * (height - 4)));
      ctx.fillStyle = mark.stall ? stall : normal;
      ctx.fillRect(x, height - h, mark.stall ? 3 : 1, h);
    }
    this.base = base;
  }

  draw(time) {
    if (!this.base) return;
    const x = this.duration > 0 ? Math.floor((time / this.duration) * (this.canvas.width - 1)) : 0;
    if (x === this.lastX) return; // the playhead has not moved a pixel
    this.lastX = x;
    const ctx = this.canvas.getContext("2d");
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    ctx.drawImage(this.base, 0, 0);
    if (this.duration > 0) {
      ctx.fillStyle = this.nowColor;
      ctx.fillRect(x, 0, 2, this.canvas.height);
    }
  }
}

/** Tick marks under the seek bar, one per chunk. */
export function drawTicks(canvas, marks, duration) {
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.max(100, Math.floor(canvas.clientWidth * ratio));
  canvas.height = Math.max(6, Math.floor(canvas.clientHeight * ratio));
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = getComputedStyle(canvas).getPropertyValue("--tick").trim() || "#888";
  for (const mark of marks) {
    const x = duration > 0 ? Math.floor((mark.time / duration) * (canvas.width - 1)) : 0;
    ctx.fillRect(x, 0, 1, canvas.height);
  }
}
