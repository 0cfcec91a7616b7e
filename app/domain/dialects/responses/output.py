"""The output items of an OpenAI Responses stream as they are read (docs/dialects.md, "OpenAI
Responses"): each item by output index, the tool call it is, and the text seen per part (for
the ``.done`` checks). Events name items by ``output_index``; an item never added (a resumed
stream starts inside it) is taken as the type the event implies. The interpreter
(``responses.py``) reads the payloads; this base turns what they carry into timeline events.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...events import (
    BlockDelta,
    RawEvent,
    ReasoningDelta,
    RefusalDelta,
    TextDelta,
    ToolCallArgs,
    ToolCallStart,
)
from ...interpret import PayloadInterpreter
from ...stream import Stream
from .final import PARAGRAPH
from .types import DONE_TEXT, TOOL_ITEMS


@dataclass(slots=True)
class Item:
    """One output item as read so far: its type and, for a tool call, its call."""

    type: str
    id: str | None = None  # the item's id, as added (or as the first event named it)
    call: int | None = None
    call_id: str | None = None
    name: str | None = None
    args: list[str] = field(default_factory=list)
    ended: bool = False
    done: bool = False
    resumed: bool = False  # never added: the stream started inside it


class OutputReader(PayloadInterpreter):
    """Items, tool calls and part texts; subclassed by the Responses interpreter."""

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self._items: dict[int, Item] = {}
        self._texts: dict[tuple[int, str, int], list[str]] = {}  # for the .done checks
        self._calls = 0
        self._reasoned = False

    def text_done(self, raw: RawEvent, value: dict[str, Any]) -> None:
        """A part's whole text: checked against its deltas, and read as its text when none
        came (a resumed stream, or a server that sends no deltas)."""
        name, key, part_key = DONE_TEXT[value["type"]]
        index, sent = index_of(value.get("output_index")), value.get(key)
        part_index = index_of(value.get(part_key)) if part_key else 0
        if index is None or part_index is None or not isinstance(sent, str):
            self.note(raw, "delta_shape", "error", f"{value['type']} without its index or text")
            return
        seen = self._texts.pop((index, name, part_index), None)
        if seen is None:
            if sent:
                _TEXT_EMITTERS[name](self, raw, index, part_index, sent)
                self._texts.pop((index, name, part_index), None)
        elif not agrees(sent, seen, index in self._items and self._items[index].resumed):
            self._mismatch(raw, value, key)

    def _text(self, raw: RawEvent, index: int, part_index: int, text: str) -> None:
        if text:
            raw.choices = raw.output = True
            self._keep(index, "text", part_index, text)
            events = self.stream.events  # self.add, written out: this runs per delta
            events.append(
                TextDelta(seq=len(events), raw=raw.index, t=raw.t, choice=0, text=text, block=index)
            )

    def _refusal(self, raw: RawEvent, index: int, part_index: int, text: str) -> None:
        if text:
            raw.choices = raw.output = True
            self._keep(index, "refusal", part_index, text)
            self.add(RefusalDelta(choice=0, text=text), raw)

    def _reasoning(self, raw: RawEvent, index: int, name: str, part_index: int, text: str) -> None:
        if text:
            raw.choices = raw.reasoning = True
            self._reasoned = True
            self._keep(index, name, part_index, text)
            self.add(ReasoningDelta(choice=0, text=text, field=name, block=index), raw)

    def _break(self, raw: RawEvent, index: int, name: str) -> None:
        """A reasoning part after the first starts a new paragraph (docs/dialects.md)."""
        if self._reasoned:
            self.add(
                ReasoningDelta(choice=0, text=PARAGRAPH, field=name, part="break", block=index), raw
            )

    def _block_part(self, raw: RawEvent, name: str, index: int, part_index: int, text: str) -> None:
        """Text of an item's field that is neither answer nor reasoning (code, input, a shell
        command, a diff): kept for its .done check, and shown on the item's card."""
        if text:
            self._keep(index, name, part_index, text)
            self.add(BlockDelta(choice=0, block=index, field=name, text=text), raw)

    def _keep(self, index: int, name: str, part_index: int, text: str) -> None:
        key = (index, name, part_index)
        kept = self._texts.get(key)
        if kept is None:
            self._texts[key] = [text]
        else:
            kept.append(text)

    def _delta(
        self, raw: RawEvent, value: dict[str, Any], implied: str, part_key: str = "content_index"
    ) -> tuple[int, int, str] | None:
        index, delta = value.get("output_index"), value.get("delta")
        if type(index) is not int or index not in self._items:  # else an item already read
            index = self._output(raw, value, implied)
            if index is None:
                return None
        if not isinstance(delta, str):
            self.note(raw, "delta_shape", "error", f"{value['type']} without a text delta")
            return None
        return index, index_of(value.get(part_key)) or 0, delta

    def _output(self, raw: RawEvent, value: dict[str, Any], implied: str) -> int | None:
        """The output index an event names; an item never added (a resumed stream) is
        taken as the type the event implies."""
        index = index_of(value.get("output_index"))
        if index is None:
            self.note(raw, "item_shape", "error", f"{value['type']} without a valid output_index")
            return None
        if index not in self._items:
            self._implicit(raw, index, implied, None)
        return index

    def _tool(self, raw: RawEvent, value: dict[str, Any]) -> Item | None:
        implied = "mcp_call" if value["type"].startswith("response.mcp") else "function_call"
        index = self._output(raw, value, implied)
        if index is None:
            return None
        state = self._items[index]
        if state.call is None:
            self.note(raw, "args_not_tool", "warning", f"call arguments for a {state.type} item")
            return None
        return state

    def _implicit(self, raw: RawEvent, index: int, kind: str, item: dict[str, Any] | None) -> Item:
        self.note(
            raw,
            "item_not_added",
            "info",
            f"output {index} ({kind}) was never added; read from here",
        )
        item_id = item.get("id") if item is not None else None
        state = self._items[index] = Item(
            kind, id=item_id if isinstance(item_id, str) else None, resumed=True
        )
        if kind in TOOL_ITEMS:
            self._start_call(raw, index, state, item or {})
        return state

    def _start_call(self, raw: RawEvent, index: int, state: Item, item: dict[str, Any]) -> None:
        state.call, state.call_id, state.name = self._calls, item.get(TOOL_ITEMS[state.type]), None
        state.name = item.get("name") if isinstance(item.get("name"), str) else None
        self._calls += 1
        self._announce(raw, index, state)

    def _announce(self, raw: RawEvent, index: int, state: Item) -> None:
        assert state.call is not None
        call_id = state.call_id if isinstance(state.call_id, str) else None
        start = ToolCallStart(
            choice=0, call=state.call, index=index, id=call_id, name=state.name, type=state.type
        )
        self.add(start, raw)

    def _args(self, raw: RawEvent, state: Item, text: str) -> None:
        assert state.call is not None
        raw.choices = raw.output = True
        state.args.append(text)
        self.add(ToolCallArgs(choice=0, call=state.call, text=text), raw)

    def _end(self, raw: RawEvent | None, state: Item) -> None:
        if state.call is None or state.ended:
            return
        state.ended = True
        call_id = state.call_id if isinstance(state.call_id, str) else None
        arguments = "".join(state.args)
        self.end_call(
            raw, choice=0, call=state.call, call_id=call_id, name=state.name, arguments=arguments
        )

    def same_item(self, raw: RawEvent, value: dict[str, Any], item_id: Any) -> None:
        """An event's ``item_id`` (or a done item's ``id``) against the id its output item
        was added with: another is sighted for the item-id-changed rule; an item added
        without one takes the first it is named by."""
        index = value.get("output_index")
        state = self._items.get(index) if type(index) is int else None
        if state is None or not isinstance(item_id, str):
            return
        if state.id is None:
            state.id = item_id
        elif item_id != state.id:
            self.sight(
                raw,
                "item_id_changed",
                f"{value.get('type')} for output {index} names item {item_id!r}, "
                f"added as {state.id!r}",
            )

    def _mismatch(self, raw: RawEvent, value: dict[str, Any], key: str) -> None:
        self.sight(
            raw,
            "done_mismatch",
            f"{value['type']} for output {value.get('output_index')}: its {key} differs from "
            "the deltas before it (the deltas are kept)",
        )


def _reason_emitter(name: str) -> Any:
    def emit(self: OutputReader, raw: RawEvent, index: int, part: int, text: str) -> None:
        self._reasoning(raw, index, name, part, text)

    return emit


def _block_emitter(name: str) -> Any:
    def emit(self: OutputReader, raw: RawEvent, index: int, part: int, text: str) -> None:
        self._block_part(raw, name, index, part, text)

    return emit


_TEXT_EMITTERS = {
    "text": OutputReader._text,
    "refusal": OutputReader._refusal,
    "summary_text": _reason_emitter("summary_text"),
    "reasoning_text": _reason_emitter("reasoning_text"),
    "code": _block_emitter("code"),
    "input": _block_emitter("input"),
    "commands": _block_emitter("commands"),
    "diff": _block_emitter("diff"),
}


def agrees(sent: str, seen: list[str], resumed: bool) -> bool:
    """A .done's whole text against the deltas seen: equal, or (in an item the stream started
    inside) ending with them."""
    text = "".join(seen)
    return sent == text or (resumed and sent.endswith(text))


def index_of(value: Any) -> int | None:
    return value if type(value) is int and value >= 0 else None
