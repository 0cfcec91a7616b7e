// Formatting numbers, times and bytes for display (pure).

export function clockTime(ms, decimals = 3) {
  if (!Number.isFinite(ms) || ms < 0) ms = 0;
  const minutes = Math.floor(ms / 60000);
  const seconds = (ms - minutes * 60000) / 1000;
  return `${minutes}:${seconds.toFixed(decimals).padStart(decimals + 3, "0")}`;
}

export function milliseconds(value) {
  if (value === null || value === undefined) return "unknown";
  return `${value.toLocaleString("en-US", { maximumFractionDigits: 1 })} ms`;
}

export function rate(value) {
  if (value === null || value === undefined) return "unknown";
  return `${value.toLocaleString("en-US", { maximumFractionDigits: 1 })} /s`;
}

/** A probability as a percentage; below 0.01% it says so rather than rounding to "0%". */
export function percent(p) {
  if (p > 0 && p < 0.0001) return "<0.01%";
  return `${(p * 100).toLocaleString("en-US", { maximumFractionDigits: p < 0.01 ? 2 : 1 })}%`;
}

export function hexBytes(bytes) {
  return (bytes || []).map((b) => b.toString(16).padStart(2, "0")).join(" ");
}

const DECODER = new TextDecoder("utf-8", { fatal: true });

/** Decode UTF-8 bytes, or null when they are not valid UTF-8 on their own. */
export function utf8(bytes) {
  if (!Array.isArray(bytes)) return null;
  if (bytes.every((b) => b < 0x80)) return String.fromCharCode(...bytes); // ASCII: most tokens
  try {
    return DECODER.decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}

/** Probability bucket 0..5 for colouring (>= 90%, 70, 50, 30, 10, below). */
export function bucket(logprob) {
  const p = Math.exp(logprob);
  if (p >= 0.9) return 5;
  if (p >= 0.7) return 4;
  if (p >= 0.5) return 3;
  if (p >= 0.3) return 2;
  if (p >= 0.1) return 1;
  return 0;
}

const GLYPHS = { " ": "·", "\n": "↵\n", "\t": "→", "\r": "␍", "\u00a0": "⍽" };

export function withGlyphs(text) {
  return text.replace(/[ \n\t\r\u00a0]/g, (c) => GLYPHS[c]);
}

export function hasWhitespace(text) {
  return /[ \n\t\r\u00a0]/.test(text);
}
