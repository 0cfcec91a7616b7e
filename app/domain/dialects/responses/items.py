"""OpenAI Responses output items and the deltas inside them (docs/dialects.md, "OpenAI
Responses"): ``output_item.added`` / ``done``, content and summary parts as opened, and the
text, refusal, reasoning, argument, annotation and progress events that fill them, each
read into the timeline by ``ItemReader`` (the state of the items is ``OutputReader``'s,
app/domain/dialects/responses/output.py; ``ResponsesInterpreter`` in responses.py reads the rest: snapshots,
errors, sequence numbers).
"""

from __future__ import annotations

from typing import Any

from ...events import BlockDelta, BlockStart, BlockStop, Citation, Logprobs, Payload, RawEvent
from ...sent import sent_items
from .output import Item, OutputReader, agrees, index_of
from .types import BLOCK_TEXT, PROGRESS, TOOL_ITEMS


class ItemReader(OutputReader):
    """The handlers of output item and delta events (responses.py dispatches to them)."""

    # ------------------------------------------------------------------ output items
    def _item_added(self, raw: RawEvent, value: dict[str, Any]) -> None:
        found = self._item_of(raw, value)
        if found is None:
            return
        index, item, kind = found
        if index in self._items:
            self.note(raw, "item_repeated", "warning", f"output {index} was added again")
        item_id = item.get("id")
        state = self._items[index] = Item(kind, id=item_id if isinstance(item_id, str) else None)
        self.add(BlockStart(choice=0, block=index, type=kind, value=item), raw)
        if kind in TOOL_ITEMS:
            self._start_call(raw, index, state, item)
            if isinstance(item.get("arguments"), str) and item["arguments"]:
                self._args(raw, state, item["arguments"])
        elif kind == "message" and isinstance(item.get("content"), list):
            for part_index, part in enumerate(item["content"]):
                self._part_text(raw, index, part_index, part)

    def _item_done(self, raw: RawEvent, value: dict[str, Any]) -> None:
        found = self._item_of(raw, value)
        if found is None:
            return
        index, item, kind = found
        state = self._items.get(index) or self._implicit(raw, index, kind, item)
        if state.type != kind:
            self.note(raw, "item_changed", "warning", f"output {index} opened as {state.type}")
        self.same_item(raw, value, item.get("id"))
        call_id = item.get("call_id")
        if (
            TOOL_ITEMS.get(kind) == "call_id"
            and isinstance(state.call_id, str)
            and state.call_id
            and isinstance(call_id, str)
            and call_id
            and call_id != state.call_id
        ):
            self.sight(
                raw,
                "call_id_changed",
                f"output {index}: call_id {call_id!r} at its done, {state.call_id!r} when added",
            )
        if state.call is not None and not state.ended:
            call_id, name = item.get(TOOL_ITEMS.get(kind, "id")), item.get("name")
            if (call_id, name) != (state.call_id, state.name) and call_id and name:
                state.call_id, state.name = call_id, name
                self._announce(raw, index, state)
            if not state.args and isinstance(item.get("arguments"), str) and item["arguments"]:
                self._args(raw, state, item["arguments"])
            self._end(raw, state)
        state.done = True
        self.add(BlockStop(choice=0, block=index, value=item), raw)

    def _item_of(
        self, raw: RawEvent, value: dict[str, Any]
    ) -> tuple[int, dict[str, Any], str] | None:
        """An output item event's index, item and type; None, said, when it has no index or
        no item."""
        index, item = index_of(value.get("output_index")), value.get("item")
        if index is None or not isinstance(item, dict):
            self.note(raw, "item_shape", "error", "an output item event without output_index/item")
            return None
        return index, item, str(item.get("type"))

    def _part_added(self, raw: RawEvent, value: dict[str, Any]) -> None:
        part = value.get("part")
        kind = part.get("type") if isinstance(part, dict) else None
        index = self._output(raw, value, "reasoning" if kind == "reasoning_text" else "message")
        part_index = index_of(value.get("content_index"))
        if index is not None and part_index is not None:
            self._part_text(raw, index, part_index, part)

    def _summary_part_added(self, raw: RawEvent, value: dict[str, Any]) -> None:
        index = self._output(raw, value, "reasoning")
        part_index = index_of(value.get("summary_index"))
        if index is None or part_index is None:
            return
        part = value.get("part")
        self._break(raw, index, "summary_text")
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            self._reasoning(raw, index, "summary_text", part_index, part["text"])

    def _part_text(self, raw: RawEvent, index: int, part_index: int, part: Any) -> None:
        """A content part as opened (or a message item's parts): the text it already holds."""
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "output_text" and isinstance(part.get("text"), str):
            self._text(raw, index, part_index, part["text"])
        elif kind == "refusal" and isinstance(part.get("refusal"), str):
            self._refusal(raw, index, part_index, part["refusal"])
        elif kind == "reasoning_text":
            self._break(raw, index, "reasoning_text")
            if isinstance(part.get("text"), str):
                self._reasoning(raw, index, "reasoning_text", part_index, part["text"])

    # ------------------------------------------------------------------ deltas
    def _text_delta(self, raw: RawEvent, value: dict[str, Any]) -> None:
        delta = self._delta(raw, value, "message")
        if delta is None:
            return
        index, part_index, text = delta
        self._text(raw, index, part_index, text)
        logprobs = value.get("logprobs")
        if logprobs:
            if isinstance(logprobs, list):
                entries = sent_items(self.text, ("logprobs",), logprobs)
                self.add(
                    Logprobs(choice=0, field="content", count=len(logprobs), entries=entries), raw
                )
            else:
                self.note(raw, "logprobs_shape", "warning", "logprobs is not a list; ignored")

    def _refusal_delta(self, raw: RawEvent, value: dict[str, Any]) -> None:
        delta = self._delta(raw, value, "message")
        if delta is not None:
            self._refusal(raw, *delta)

    def _summary_delta(self, raw: RawEvent, value: dict[str, Any]) -> None:
        delta = self._delta(raw, value, "reasoning", "summary_index")
        if delta is not None:
            index, part_index, text = delta
            self._reasoning(raw, index, "summary_text", part_index, text)

    def _reasoning_delta(self, raw: RawEvent, value: dict[str, Any]) -> None:
        delta = self._delta(raw, value, "reasoning")
        if delta is not None:
            index, part_index, text = delta
            self._reasoning(raw, index, "reasoning_text", part_index, text)

    def _block_text(self, raw: RawEvent, value: dict[str, Any]) -> None:
        item_type, name, part_key = BLOCK_TEXT[value["type"]]
        delta = self._delta(raw, value, item_type, part_key or "")
        if delta is not None and delta[2]:
            self._block_part(raw, name, *delta)

    def _command_added(self, raw: RawEvent, value: dict[str, Any]) -> None:
        """A shell call's next command: on a line of its own on the call's card."""
        index = self._output(raw, value, "shell_call")
        part_index, command = index_of(value.get("command_index")), value.get("command")
        if index is None or part_index is None or not isinstance(command, str):
            self.note(raw, "delta_shape", "error", f"{value['type']} without its index or command")
            return
        if part_index > 0:
            self.add(BlockDelta(choice=0, block=index, field="commands", text="\n"), raw)
        self._block_part(raw, "commands", index, part_index, command)

    def _shell_output(self, raw: RawEvent, value: dict[str, Any]) -> None:
        """What the client's shell printed, as it streams: kept, and shown with the
        shell_call_output item when it is done."""
        where = value.get("output_index")
        what = "shell output" if value["type"].endswith(".delta") else "shell output done"
        summary = f"{what} (output {where})" if where is not None else what
        self.add(Payload(category="tool_output", summary=summary, value=self.kept(value)), raw)

    def _args_delta(self, raw: RawEvent, value: dict[str, Any]) -> None:
        state, delta = self._tool(raw, value), value.get("delta")
        if state is None:
            return
        if not isinstance(delta, str):
            self.note(raw, "delta_shape", "error", f"{value['type']} without a text delta")
        elif delta:
            self._args(raw, state, delta)

    def _args_done(self, raw: RawEvent, value: dict[str, Any]) -> None:
        state, sent = self._tool(raw, value), value.get("arguments")
        if state is None:
            return
        if isinstance(sent, str):
            if not state.args and sent:
                self._args(raw, state, sent)
            elif not agrees(sent, state.args, state.resumed):
                self._mismatch(raw, value, "arguments")
        if state.call_id is not None:  # else its item's done names the call, then ends it
            self._end(raw, state)

    def _annotation(self, raw: RawEvent, value: dict[str, Any]) -> None:
        index = self._output(raw, value, "message")
        if index is not None:
            self.add(Citation(choice=0, block=index, value=value.get("annotation")), raw)

    def _progress(self, raw: RawEvent, value: dict[str, Any]) -> None:
        category, label = PROGRESS[value["type"]]
        where = value.get("output_index")
        summary = f"{label} (output {where})" if where is not None else label
        self.add(Payload(category=category, summary=summary, value=self.kept(value)), raw)
