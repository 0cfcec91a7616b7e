"""Trigger and near miss of the Gemini rules (docs/rules.md)."""

from tests.rules.kit import findings, rules_of, sse


def chunk(text: str, finish: str | None = None) -> dict:
    candidate: dict = {"content": {"role": "model", "parts": [{"text": text}]}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-2.0-flash"}


def test_finish_every_chunk_triggers_on_a_finish_on_every_chunk():
    body = sse(chunk("Hel", "STOP"), chunk("lo", "STOP"), chunk("!", "STOP"), done=False)
    (found,) = [f for f in findings(body) if f.rule == "finish-every-chunk"]
    assert found.raw == 0 and found.count == 2
    assert "finishReason 'STOP' on 3 chunks" in found.message


def test_finish_every_chunk_near_miss_a_finish_on_the_last_chunk_only():
    body = sse(chunk("Hel"), chunk("lo"), chunk("!", "STOP"), done=False)
    assert "finish-every-chunk" not in rules_of(body)
