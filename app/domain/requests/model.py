"""A stream's request as the page and ``inspect --json`` show it (docs/timeline.md, "The
request"): one shape for every dialect, read from the dialect's own body by its reader.

``RequestView`` holds how the request was sent (method, URL: secrets already scrubbed by the
capture's reader), where it was known from, the parameters that shape a stream (each under a
common ``name``, with the dialect's own ``field`` for it and the value as sent), the tools
offered (name, description, JSON schema) and the messages by role, each a list of parts: text,
a tool call with its arguments, a tool result with the call's id, reasoning, or something else
named by what it is. What a reader does not know is left out, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# A part of a message: what it is for.
PART_KINDS: tuple[str, ...] = (
    "text",  # text the role wrote
    "tool_call",  # a call of a tool, with its arguments
    "tool_result",  # what a call gave back, with the call's id
    "thinking",  # reasoning sent back to the model
    "other",  # anything else (an image, a document, a file): named, not shown
)
# The parameters that shape a stream, by the name every dialect's are shown under.
PARAM_NAMES: tuple[str, ...] = (
    "model",
    "stream",
    "stream_options",
    "n",
    "max_tokens",
    "temperature",
    "tool_choice",
    "response_format",
    "logprobs",
    "top_logprobs",
    "reasoning",
    "include",
)
TOOL_CHOICE = "tool_choice"  # (named once: a code-shaped string the docs test would read)
TOOL_RESULT = "tool_result"
MAX_TEXT = 20_000  # characters of one part's text shown; the rest is counted


@dataclass(frozen=True)
class Param:
    name: str  # one of PARAM_NAMES
    field: str  # where the dialect's body has it (dotted: "generationConfig.maxOutputTokens")
    value: Any  # as sent

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "field": self.field, "value": self.value}


@dataclass(frozen=True)
class Tool:
    name: str | None
    kind: str | None = None  # the dialect's tool type ("function", "web_search_20250305")
    description: str | None = None
    schema: Any = None  # the tool's JSON schema for its arguments, as sent

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "description": self.description,
            "schema": self.schema,
        }


@dataclass(frozen=True)
class Part:
    kind: str  # one of PART_KINDS
    text: str | None = None  # text, a tool result's content, reasoning, what "other" is
    name: str | None = None  # the tool called (tool_call), or answered (tool_result)
    id: str | None = None  # the call's id (tool_call, tool_result)
    arguments: str | None = None  # a call's arguments, as JSON text
    error: bool = False  # a tool result marked as an error

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "text": self.text,
            "name": self.name,
            "id": self.id,
            "arguments": self.arguments,
            "error": self.error,
        }


@dataclass(frozen=True)
class Message:
    role: str  # as the dialect names it: system, user, assistant, tool, model, developer...
    parts: tuple[Part, ...]

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role, "parts": [p.to_json() for p in self.parts]}


@dataclass(frozen=True)
class RequestView:
    """``source``: where the request was known from (``recording``: a live run, a proxied call
    or a timed capture's header; ``har``: a HAR entry's ``postData``). ``dialect``: whose
    reader read the body. ``note``: why the body could not be read, or what is missing."""

    method: str | None
    url: str | None
    source: str
    dialect: str | None
    params: tuple[Param, ...] = ()
    tools: tuple[Tool, ...] = ()
    messages: tuple[Message, ...] = ()
    note: str | None = None

    def param(self, name: str) -> Any:
        """The value of a parameter by its common name; None when not sent."""
        return next((p.value for p in self.params if p.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "url": self.url,
            "source": self.source,
            "dialect": self.dialect,
            "params": [p.to_json() for p in self.params],
            "tools": [t.to_json() for t in self.tools],
            "messages": [m.to_json() for m in self.messages],
            "note": self.note,
        }


@dataclass
class Draft:
    """What a reader builds: the parts of a view without how it was sent."""

    params: list[Param] = field(default_factory=list)
    tools: list[Tool] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
