"""What the page shows of Ollama (labels.py): one answer, and what the server's own timings on
its done line mean (metrics.server)."""

from __future__ import annotations

from ..labels import Labels

SERVER_METRICS = (
    ("total_duration_ms", "total_duration: the server's whole time on the request."),
    ("load_duration_ms", "load_duration: loading the model."),
    ("prompt_eval_duration_ms", "prompt_eval_duration: evaluating the prompt (prefill)."),
    ("eval_duration_ms", "eval_duration: generating."),
    ("prompt_eval_tokens_per_s", "prompt_eval_count / prompt evaluation seconds."),
    (
        "eval_tokens_per_s",
        "eval_count / generation seconds: the server's decode rate, beside the wire's decode rate.",
    ),
)

LABELS = Labels(server_metrics=SERVER_METRICS)
