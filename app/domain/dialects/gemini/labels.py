"""What the page shows of Gemini (labels.py): numbered candidates, the model its
``modelVersion`` names, each run of parts' role, executable code as a server call's card with
the code execution result after it as that call's result, and grounding: the candidate's
grounding chunks as its numbered sources, which each grounding support cites by index."""

from __future__ import annotations

from typing import Any

from ...events import BlockStart, Citation, Event, Extra
from ..labels import Labels, View
from ..viewparts import citation, line, plain_citation, source, span, text_of

ROLES = {
    "text": "text",
    "thought": "reasoning",
    "functionCall": "tool_call",
    "executableCode": "server_call",
    "codeExecutionResult": "tool_result",
}

LABELS = Labels(output="Candidate", numbered=True, model=("model", "modelVersion"))


def view(event: Event) -> View | None:
    if isinstance(event, BlockStart):
        return _block(event.type, event.value)
    if isinstance(event, Citation):
        return _citation(event.value)
    if isinstance(event, Extra) and event.choice is not None:
        return _sources(event.fields.get("groundingMetadata"))
    return None


def _block(kind: str, value: Any) -> View | None:
    role = ROLES.get(kind)
    if role is None:
        return None
    value = value if isinstance(value, dict) else {}
    if kind == "executableCode":
        code = value.get("executableCode")
        code = code if isinstance(code, dict) else {}
        language = code.get("language")
        text = code.get("code")
        return {
            "role": role,
            "item": True,
            "name": f"executableCode ({_string(language)})" if language else "executableCode",
            "id": None,
            "code": "" if text is None else _string(text),
            "status": "code",  # the whole part at once: it streams no more
        }
    if kind == "codeExecutionResult":
        lines = result_lines(value.get("codeExecutionResult"))
        return {"role": role, "result": {"for": "previous", "lines": lines}}
    return {"role": role}


def result_lines(result: Any) -> list[dict[str, Any]]:
    if not isinstance(result, dict):
        return [line("result", "" if result is None else result)]
    lines = []
    if "outcome" in result:
        lines.append(line("outcome", _string(result["outcome"])))
    if "output" in result:
        lines.append(line("output", result["output"]))
    return lines


def _sources(grounding: Any) -> View | None:
    """The candidate's grounding chunks, as the sources its supports cite by index."""
    if not isinstance(grounding, dict):
        return None
    chunks = grounding.get("groundingChunks")
    found = []
    for chunk in chunks if isinstance(chunks, list) else []:
        inner = None
        if isinstance(chunk, dict):
            inner = chunk.get("web")
            inner = chunk.get("retrievedContext") if inner is None else inner
        found.append(source(chunk if inner is None else inner))
    return {"sources": found}


def _citation(value: Any) -> View:
    """A grounding support cites chunks by index, on a segment of the answer; a citation
    metadata entry names its source itself."""
    if not isinstance(value, dict):
        return plain_citation(value)
    segment = value.get("segment")
    indices = value.get("groundingChunkIndices")
    if not isinstance(segment, dict) and not isinstance(indices, list):
        return plain_citation(value)
    kind = text_of(value.get("type"))
    if kind is None:
        kind = "grounding" if segment not in (None, False, 0, "") else "citation"
    segment = segment if isinstance(segment, dict) else {}
    indices = indices if isinstance(indices, list) else []
    refs = [i if isinstance(i, int) and not isinstance(i, bool) else None for i in indices]
    at = span(segment.get("startIndex"), segment.get("endIndex"))
    found = citation(kind, [], None, text_of(segment.get("text")), at, refs=refs)
    return found | {"missing": "(grounding chunk not sent)"}


def _string(value: Any) -> str:
    """``String(value)`` as the page wrote it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else str(value)
