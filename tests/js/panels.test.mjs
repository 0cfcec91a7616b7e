// Issue 11, items 12, 13 and 21: one contract for every view of a stream; metrics appear at
// their moment; probabilities too small to round read "<0.01%".
import assert from "node:assert/strict";
import { test } from "node:test";
import { percent } from "../../static/js/format.js";
import { Timeline } from "../../static/js/timeline.js";
import { metricShown } from "../../static/js/views/metrics.js";
import { PANELS } from "../../static/js/views/panels.js";
import { Progress } from "../../static/js/views/progress.js";

test("every view in the panel list keeps the one contract", () => {
  assert.ok(PANELS.length >= 7);
  for (const View of PANELS) {
    for (const method of ["apply", "rewind", "flush", "setSummary"]) {
      assert.equal(typeof View.prototype[method], "function", `${View.name}.${method}`);
    }
  }
});

function stream(times) {
  const tl = new Timeline({ gapMs: 600 });
  tl.setCapture({ pace_ms: 40, streams: [{ index: 0, timed: true }, { index: 1, timed: true }] });
  tl.addEvents(0, [{ kind: "diagnostic", seq: 0, raw: -1, t: null }]);
  tl.addEvents(1, times.map((t, i) => ({ kind: "text", seq: i, raw: i, t, choice: 0, text: "x" })));
  return { tl, progress: new Progress(tl, 1) };
}

test("metrics appear once their moment is played: TTFT at the first token, the rest at the end", () => {
  const { tl, progress } = stream([120.5, 300, 450.25]); // stream 1 starts 600 ms after stream 0
  const metrics = { timed: true, ttft_ms: 120.5, ttfo_ms: 300, e2el_ms: 450.25, itl_p50_ms: 165 };
  const shown = (key) => metricShown(key, metrics, true, progress);
  assert.equal(shown("ttft_ms"), false);
  progress.apply(tl.stream(1).events[0]);
  assert.deepEqual(["ttft_ms", "ttfo_ms", "e2el_ms", "itl_p50_ms", "output_tokens"].map(shown), [true, false, false, false, false]);
  progress.apply(tl.stream(1).events[2]);
  assert.equal(shown("e2el_ms"), false, "the stream is not complete yet");
  tl.complete = true;
  assert.deepEqual(["ttfo_ms", "e2el_ms", "itl_p50_ms", "stalls"].map(shown), [true, true, true, true]);
  progress.rewind(1);
  assert.equal(progress.last, tl.stream(1).events[0]);
  assert.deepEqual(["ttft_ms", "ttfo_ms", "e2el_ms"].map(shown), [true, false, false]);
  progress.rewind(0);
  assert.equal(shown("ttft_ms"), false);
  assert.equal(metricShown("ttft_ms", null, false, progress), true, "untimed: 'unknown' from the start");
  assert.equal(metricShown("ttft_ms", null, true, progress), false, "no summary yet: not yet");
});

test("tiny probabilities do not read 0%", () => {
  assert.equal(percent(Math.exp(-12)), "<0.01%");
  assert.equal(percent(0.00012), "0.01%");
  assert.equal(percent(0.5), "50%");
  assert.equal(percent(0.0042), "0.42%");
  assert.equal(percent(0), "0%");
});

test("how a recording ended: a live run's end, or a stored recording's summaries", async () => {
  const { endProblem } = await import("../../static/js/messages.js");
  assert.equal(endProblem({ reason: "done" }, []), null);
  assert.deepEqual(endProblem({ reason: "cancelled" }, []), { reason: "cancelled", error: null });
  assert.deepEqual(endProblem({ reason: "error", error: "idle timeout" }, []), { reason: "error", error: "idle timeout" });
  const refused = { end_reason: "error", end_error: "connection refused by 127.0.0.1:9" };
  assert.deepEqual(endProblem({ reason: "complete" }, [null, refused]), { reason: "error", error: refused.end_error });
  assert.equal(endProblem({ reason: "complete" }, [{ end_reason: "done" }, { end_reason: null }]), null);
});
