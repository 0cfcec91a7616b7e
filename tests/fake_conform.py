"""The fake upstream's ``conform`` model: a chat-completions server that does what the request
asks, as a clean OpenAI-compatible server would, for ``streamscope conform``'s chat battery
(docs/conform.md). ``tests/fake_upstream.py`` routes ``model: "conform"`` here.

What the body asks is honoured: ``n`` choices (interleaved), ``max_tokens`` (one word is one
token; cut with ``length``), ``stop`` (cut before the sequence, ``stop``), ``logprobs`` and
``top_logprobs`` (with ``bytes``), ``stream_options.include_usage`` (one last chunk with
``choices: []``), ``tools`` with ``tool_choice`` (one call per city the prompt names, arguments
streamed in pieces, ``tool_calls``; a text answer once the last message is a tool result, or
with ``tool_choice: "none"``), ``response_format`` ``json_schema`` (a JSON answer, in pieces),
``reasoning_effort`` (``reasoning_content`` deltas before the answer). A body that is not a
valid request (``messages`` not a non-empty list, a negative ``max_tokens``) gets a 400 with an
OpenAI error body; ``conform:refuse=n,logprobs`` answers a body with any of those fields
with OpenAI's 400 for an unsupported parameter. The prompt picks the text: ``Repeat exactly: X`` repeats X one character a
chunk (so emoji and CJK arrive split over chunks), ``Count`` counts to 300, anything else gets a
short greeting. Every request has its own chunk id, and chunks are 2 ms apart. The same model
answers ``POST /v1/messages`` in Anthropic's events (``AnthropicConform``; there
``conform:usage=absent`` and ``conform:usage=zero`` break its usage), ``POST /v1/responses``
in OpenAI Responses' (``ResponsesConform``) and ``POST /v1/completions`` in legacy
completions' (``CompletionsConform``).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from typing import Any

CITIES = ("Paris", "Tokyo", "Lima")
GAP_S = 0.002
_ids = itertools.count(1)
_ids_lock = threading.Lock()


def _next_id() -> int:
    with _ids_lock:
        return next(_ids)


def user_text(messages: list[Any]) -> str:
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else json.dumps(content)
    return ""


def answer_pieces(prompt: str, body: dict[str, Any]) -> list[str]:
    """The answer's text, one piece a chunk (a piece is a token)."""
    format_ = body.get("response_format")
    if isinstance(format_, dict) and format_.get("type") in ("json_schema", "json_object"):
        return ['{"city', '": "Par', 'is", "popul', 'ation": 2102', "650}"]
    if prompt.startswith("Repeat exactly:"):
        return list(prompt.removeprefix("Repeat exactly:").strip())
    if "Count" in prompt:
        return [f"{i} " for i in range(1, 301)]
    return ["Hello", "!", " How", " can", " I", " help", " you", " today", "?"]


def invalid(body: dict[str, Any]) -> str | None:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty array"
    max_tokens = body.get("max_tokens")
    if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 1):
        return "'max_tokens' must be a positive integer"
    return None


def logprob_entries(piece: str, top: int) -> list[dict[str, Any]]:
    """One token's logprobs entry with ``top`` alternatives, each with its bytes."""

    def entry(token: str, logprob: float) -> dict[str, Any]:
        return {"token": token, "logprob": logprob, "bytes": list(token.encode())}

    alternatives = [entry(piece, -0.01)] + [entry(f"alt{k}", -3.0 - k) for k in range(top)]
    return [{**entry(piece, -0.01), "top_logprobs": alternatives[:top]}]


class ConformRoutes:
    """Mixed into the fake's handler: ``_do_conform``."""

    def _do_conform(self, arg: str, body: dict) -> None:
        refused = [name for name in arg.removeprefix("refuse=").split(",") if name in body]
        if arg.startswith("refuse=") and refused:
            error = {
                "error": {
                    "message": f"Unsupported parameter: '{refused[0]}'",
                    "type": "invalid_request_error",
                    "param": refused[0],
                    "code": "unsupported_parameter",
                }
            }
            self._whole(400, "application/json", json.dumps(error).encode())
            return
        problem = invalid(body)
        if problem is not None:
            error = {
                "error": {
                    "message": problem,
                    "type": "invalid_request_error",
                    "param": "messages" if "messages" in problem else "max_tokens",
                    "code": None,
                }
            }
            self._whole(400, "application/json", json.dumps(error).encode())
            return
        self._start()
        for event in ConformAnswer(body).events():
            self._write(event)
            if not self._sleep(GAP_S):
                return
        self._finish()

    def _wire_conform(self, arg: str) -> None:
        """The conform model in another dialect (Anthropic Messages, OpenAI Responses)."""
        wire = self.wire
        body = self.noted["body"]
        if wire.name not in WIRE_ANSWERS:
            self._wire_error(404, f"the conform model does not speak {wire.name}")
            return
        answer_of, invalid_of = WIRE_ANSWERS[wire.name]
        anthropic = wire.name == "anthropic"
        problem = invalid_of(body)
        if problem is not None:
            said = {"type": "invalid_request_error", "message": problem}
            error = {"type": "error", "error": said} if anthropic else {"error": said}
            self._whole(400, "application/json", json.dumps(error).encode())
            return
        answer = AnthropicConform(body, arg) if anthropic else answer_of(body)
        self._start(content_type=wire.content_type)
        for payload in answer.payloads():
            self._write(wire.event(payload))
            if not self._sleep(GAP_S):
                return
        self._finish()


class ConformAnswer:
    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body
        self.id = f"chatcmpl-conform-{_next_id()}"
        self.n = int(body.get("n") or 1)
        self.prompt = user_text(body["messages"])

    def chunk(self, choices: list[dict[str, Any]], **extra: Any) -> bytes:
        payload = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": "conform",
            "choices": choices,
            **extra,
        }
        return b"data: " + json.dumps(payload).encode() + b"\n\n"

    def choice(self, index: int, delta: dict[str, Any], finish: str | None = None, **extra: Any):
        return {"index": index, "delta": delta, "finish_reason": finish, **extra}

    def events(self) -> list[bytes]:
        body = self.body
        out = [
            self.chunk([self.choice(i, {"role": "assistant", "content": ""})])
            for i in range(self.n)
        ]
        if body.get("reasoning_effort"):
            for piece in ("The user ", "wants a ", "greeting."):
                out += [
                    self.chunk([self.choice(i, {"reasoning_content": piece})])
                    for i in range(self.n)
                ]
        calls = self.tool_calls()
        if calls:
            out += self.call_chunks(calls)
            finish, tokens = "tool_calls", sum(len(args) // 4 + 1 for _, args in calls)
        else:
            pieces, finish = self.limited(answer_pieces(self.prompt, body))
            top = body.get("top_logprobs") or 0
            for piece in pieces:
                for i in range(self.n):
                    extra = {"logprobs": self.logprobs(piece, top)} if body.get("logprobs") else {}
                    out.append(self.chunk([self.choice(i, {"content": piece}, **extra)]))
            tokens = len(pieces)
        out += [self.chunk([self.choice(i, {}, finish)]) for i in range(self.n)]
        options = body.get("stream_options")
        if isinstance(options, dict) and options.get("include_usage"):
            prompt_tokens = len(self.prompt.split()) + 5
            completion = tokens * self.n
            usage = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion,
                "total_tokens": prompt_tokens + completion,
            }
            out.append(self.chunk([], usage=usage))
        out.append(b"data: [DONE]\n\n")
        return out

    def limited(self, pieces: list[str]) -> tuple[list[str], str]:
        stops = self.body.get("stop")
        stops = [stops] if isinstance(stops, str) else list(stops or [])
        text = "".join(pieces)
        cut = min((text.find(s) for s in stops if s and s in text), default=-1)
        finish = "stop"
        if cut >= 0:
            kept, length = [], 0
            for piece in pieces:
                if length + len(piece) > cut:
                    if cut > length:
                        kept.append(piece[: cut - length])
                    break
                kept.append(piece)
                length += len(piece)
            pieces = kept
        limit = self.body.get("max_tokens") or self.body.get("max_completion_tokens")
        if isinstance(limit, int) and len(pieces) > limit:
            pieces, finish = pieces[:limit], "length"
        return pieces, finish

    def logprobs(self, piece: str, top: int) -> dict[str, Any]:
        return {"content": logprob_entries(piece, top)}

    def tool_calls(self) -> list[tuple[str, str]]:
        """(name, arguments) of each call to make, none when the answer is text."""
        tools = self.body.get("tools")
        choice = self.body.get("tool_choice", "auto")
        messages = self.body["messages"]
        if not tools or choice == "none":
            return []
        last = messages[-1] if isinstance(messages[-1], dict) else {}
        if last.get("role") == "tool":
            return []
        name = tools[0].get("function", {}).get("name", "tool")
        cities = [city for city in CITIES if city in self.prompt]
        if not cities and choice == "required":
            cities = [CITIES[0]]
        if self.body.get("parallel_tool_calls") is False:
            cities = cities[:1]
        return [(name, json.dumps({"city": city})) for city in cities]

    def call_chunks(self, calls: list[tuple[str, str]]) -> list[bytes]:
        out = []
        for number, (name, args) in enumerate(calls):
            call_id = f"call_{self.id[-6:]}_{number}"
            opened = {
                "index": number,
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": ""},
            }
            out.append(self.chunk([self.choice(0, {"tool_calls": [opened]})]))
            for start in range(0, len(args), 6):
                piece = {"index": number, "function": {"arguments": args[start : start + 6]}}
                out.append(self.chunk([self.choice(0, {"tool_calls": [piece]})]))
        return out


class AnthropicConform:
    """The same model on ``POST /v1/messages``: Anthropic's events for what the body asks
    (``stop_sequences``, ``max_tokens``, ``tools`` with ``tool_choice`` auto/any/none and
    ``input_json_delta`` pieces, a ``tool_result`` turn, ``thinking`` blocks with a signature),
    with usage at ``message_start`` (input tokens, 1 output token) and the cumulative output
    tokens in ``message_delta``. Two broken variants, for the ``usage`` case to fail on:
    ``conform:usage=absent`` sends no usage at message_start, ``conform:usage=zero`` says 0
    output tokens in message_delta."""

    def __init__(self, body: dict[str, Any], arg: str = "") -> None:
        self.body = body
        self.usage = arg.removeprefix("usage=") if arg.startswith("usage=") else None
        self.id = f"msg_conform_{_next_id()}"
        messages = body["messages"]
        self.prompt = user_text(messages)
        last = messages[-1] if isinstance(messages[-1], dict) else {}
        content = last.get("content")
        self.after_tool = isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in content
        )

    def payloads(self) -> list[dict[str, Any]]:
        message = {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": "conform",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": len(self.prompt.split()) + 5, "output_tokens": 1},
        }
        if self.usage == "absent":
            del message["usage"]
        out: list[dict[str, Any]] = [{"type": "message_start", "message": message}]
        block = 0
        thinking = self.body.get("thinking")
        if isinstance(thinking, dict) and thinking.get("type") == "enabled":
            out.append(self.start(block, {"type": "thinking", "thinking": "", "signature": ""}))
            for piece in ("The user ", "wants ", "a product."):
                out.append(self.delta(block, {"type": "thinking_delta", "thinking": piece}))
            out.append(self.delta(block, {"type": "signature_delta", "signature": "c2lnbmVk"}))
            out.append({"type": "content_block_stop", "index": block})
            block += 1
        calls = self.tool_calls()
        stop_sequence = None
        if calls:
            for number, args in enumerate(calls):
                tool = {"type": "tool_use", "id": f"toolu_{self.id[-4:]}_{number}"}
                tool |= {"name": self.body["tools"][0]["name"], "input": {}}
                out.append(self.start(block, tool))
                for start in range(0, len(args), 6):
                    piece = {"type": "input_json_delta", "partial_json": args[start : start + 6]}
                    out.append(self.delta(block, piece))
                out.append({"type": "content_block_stop", "index": block})
                block += 1
            reason, tokens = "tool_use", sum(len(a) // 4 + 1 for a in calls)
        else:
            pieces, reason, stop_sequence = self.limited(answer_pieces(self.prompt, self.body))
            out.append(self.start(block, {"type": "text", "text": ""}))
            out += [self.delta(block, {"type": "text_delta", "text": p}) for p in pieces]
            out.append({"type": "content_block_stop", "index": block})
            tokens = len(pieces)
        out.append(
            {
                "type": "message_delta",
                "delta": {"stop_reason": reason, "stop_sequence": stop_sequence},
                "usage": {"output_tokens": 0 if self.usage == "zero" else tokens},
            }
        )
        out.append({"type": "message_stop"})
        return out

    def start(self, index: int, block: dict[str, Any]) -> dict[str, Any]:
        return {"type": "content_block_start", "index": index, "content_block": block}

    def delta(self, index: int, delta: dict[str, Any]) -> dict[str, Any]:
        return {"type": "content_block_delta", "index": index, "delta": delta}

    def limited(self, pieces: list[str]) -> tuple[list[str], str, str | None]:
        stops = list(self.body.get("stop_sequences") or [])
        text = "".join(pieces)
        found = [(text.find(s), s) for s in stops if s and s in text]
        if found:
            cut, sequence = min(found)
            kept, length = [], 0
            for piece in pieces:
                if length + len(piece) > cut:
                    if cut > length:
                        kept.append(piece[: cut - length])
                    break
                kept.append(piece)
                length += len(piece)
            return kept, "stop_sequence", sequence
        limit = self.body.get("max_tokens")
        if isinstance(limit, int) and len(pieces) > limit:
            return pieces[:limit], "max_tokens", None
        return pieces, "end_turn", None

    def tool_calls(self) -> list[str]:
        tools = self.body.get("tools")
        choice = (self.body.get("tool_choice") or {"type": "auto"}).get("type")
        if not tools or choice == "none" or self.after_tool:
            return []
        cities = [city for city in CITIES if city in self.prompt]
        if not cities and choice == "any":
            cities = [CITIES[0]]
        return [json.dumps({"city": city}) for city in cities]


def anthropic_invalid(body: dict[str, Any]) -> str | None:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    max_tokens = body.get("max_tokens")
    if not isinstance(max_tokens, int) or max_tokens < 1:
        return "max_tokens: must be greater than or equal to 1"
    return None


class ResponsesConform:
    """The same model on ``POST /v1/responses``: OpenAI Responses events for what the body
    asks (``max_output_tokens``: ``incomplete``; ``tools`` with ``tool_choice``: function_call
    items with streamed arguments; ``function_call_output`` in the input: a text answer;
    ``text.format`` json_schema; ``reasoning``: a reasoning item with a streamed summary;
    ``include: ["message.output_text.logprobs"]``: logprobs on each text delta)."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body
        self.id = f"resp_conform_{_next_id()}"
        inputs = body["input"]
        if isinstance(inputs, str):
            inputs = [{"role": "user", "content": inputs}]
        self.prompt = user_text(inputs)
        self.after_tool = any(
            isinstance(i, dict) and i.get("type") == "function_call_output" for i in inputs
        )
        self.events: list[dict[str, Any]] = []
        self.output: list[dict[str, Any]] = []

    def emit(self, event: dict[str, Any]) -> None:
        self.events.append({**event, "sequence_number": len(self.events)})

    def response(self, status: str, **extra: Any) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "response",
            "created_at": int(time.time()),
            "model": "conform",
            "status": status,
            "output": list(self.output),
            **extra,
        }

    def payloads(self) -> list[dict[str, Any]]:
        self.emit({"type": "response.created", "response": self.response("in_progress")})
        if isinstance(self.body.get("reasoning"), dict):
            self.reasoning_item()
        tokens, status, extra = 0, "completed", {}
        calls = [] if self.after_tool else self.tool_calls()
        if calls:
            for args in calls:
                self.call_item(args)
                tokens += len(args) // 4 + 1
        else:
            pieces = answer_pieces(self.prompt, self.body_for_pieces())
            limit = self.body.get("max_output_tokens")
            if isinstance(limit, int) and len(pieces) > limit:
                pieces, status = pieces[:limit], "incomplete"
                extra["incomplete_details"] = {"reason": "max_output_tokens"}
            self.text_item(pieces)
            tokens = len(pieces)
        prompt_tokens = len(self.prompt.split()) + 5
        usage = {
            "input_tokens": prompt_tokens,
            "output_tokens": tokens,
            "total_tokens": prompt_tokens + tokens,
        }
        kind = "response.completed" if status == "completed" else "response.incomplete"
        self.emit({"type": kind, "response": self.response(status, usage=usage, **extra)})
        return self.events

    def body_for_pieces(self) -> dict[str, Any]:
        text = self.body.get("text")
        format_ = text.get("format") if isinstance(text, dict) else None
        return {"response_format": format_} if isinstance(format_, dict) else {}

    def item(self, item: dict[str, Any]) -> int:
        index = len(self.output)
        self.emit({"type": "response.output_item.added", "output_index": index, "item": item})
        return index

    def done(self, index: int, item: dict[str, Any]) -> None:
        self.output.append(item)
        self.emit({"type": "response.output_item.done", "output_index": index, "item": item})

    def text_item(self, pieces: list[str]) -> None:
        item_id = f"msg_{self.id[-6:]}_{len(self.output)}"
        item = {"id": item_id, "type": "message", "status": "in_progress", "role": "assistant"}
        index = self.item({**item, "content": []})
        where = {"item_id": item_id, "output_index": index, "content_index": 0}
        part = {"type": "output_text", "text": "", "annotations": []}
        self.emit({"type": "response.content_part.added", **where, "part": part})
        logprobs = "message.output_text.logprobs" in (self.body.get("include") or [])
        top = int(self.body.get("top_logprobs") or 0)
        for piece in pieces:
            extra = {"logprobs": logprob_entries(piece, top)} if logprobs else {}
            self.emit({"type": "response.output_text.delta", **where, "delta": piece, **extra})
        whole = "".join(pieces)
        self.emit({"type": "response.output_text.done", **where, "text": whole})
        done_part = {**part, "text": whole}
        self.emit({"type": "response.content_part.done", **where, "part": done_part})
        self.done(index, {**item, "status": "completed", "content": [done_part]})

    def call_item(self, args: str) -> None:
        number = len(self.output)
        item = {
            "id": f"fc_{self.id[-6:]}_{number}",
            "type": "function_call",
            "status": "in_progress",
            "call_id": f"call_{self.id[-6:]}_{number}",
            "name": self.body["tools"][0]["name"],
            "arguments": "",
        }
        index = self.item(item)
        for start in range(0, len(args), 6):
            self.emit(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": item["id"],
                    "output_index": index,
                    "delta": args[start : start + 6],
                }
            )
        self.emit(
            {
                "type": "response.function_call_arguments.done",
                "item_id": item["id"],
                "output_index": index,
                "arguments": args,
            }
        )
        self.done(index, {**item, "status": "completed", "arguments": args})

    def reasoning_item(self) -> None:
        item_id = f"rs_{self.id[-6:]}"
        item = {"id": item_id, "type": "reasoning", "summary": []}
        index = self.item(item)
        where = {"item_id": item_id, "output_index": index, "summary_index": 0}
        part = {"type": "summary_text", "text": ""}
        self.emit({"type": "response.reasoning_summary_part.added", **where, "part": part})
        pieces = ("The user ", "wants ", "a product.")
        for piece in pieces:
            self.emit({"type": "response.reasoning_summary_text.delta", **where, "delta": piece})
        whole = "".join(pieces)
        self.emit({"type": "response.reasoning_summary_text.done", **where, "text": whole})
        done_part = {**part, "text": whole}
        self.emit({"type": "response.reasoning_summary_part.done", **where, "part": done_part})
        self.done(index, {**item, "summary": [done_part]})

    def tool_calls(self) -> list[str]:
        tools = self.body.get("tools")
        choice = self.body.get("tool_choice", "auto")
        if not tools or choice == "none":
            return []
        cities = [city for city in CITIES if city in self.prompt]
        if not cities and choice == "required":
            cities = [CITIES[0]]
        if self.body.get("parallel_tool_calls") is False:
            cities = cities[:1]
        return [json.dumps({"city": city}) for city in cities]


def responses_invalid(body: dict[str, Any]) -> str | None:
    inputs = body.get("input")
    if not inputs or not isinstance(inputs, (str, list)):
        return "Missing required parameter: 'input'."
    limit = body.get("max_output_tokens")
    if limit is not None and (not isinstance(limit, int) or limit < 16):
        return "Invalid 'max_output_tokens': integer below minimum value (16)."
    return None


class CompletionsConform(ConformAnswer):
    """The same model on ``POST /v1/completions`` (legacy completions): ``text`` chunks of the
    ``text_completion`` object for what the body asks: ``n`` (interleaved), ``max_tokens``
    (``length``), ``stop``, ``logprobs`` (an int: that many alternatives per token in the
    legacy arrays ``tokens``, ``token_logprobs``, ``top_logprobs``, ``text_offset``, with no
    ``bytes``), ``stream_options.include_usage`` (one last chunk with ``choices: []``), then
    ``[DONE]``. No tools, no reasoning: the API has neither."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body
        self.id = f"cmpl-conform-{_next_id()}"
        self.n = int(body.get("n") or 1)
        prompt = body.get("prompt")
        self.prompt = prompt if isinstance(prompt, str) else json.dumps(prompt)

    def payload(self, choices: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "text_completion",
            "created": int(time.time()),
            "model": "conform",
            "choices": choices,
            **extra,
        }

    def payloads(self) -> list[Any]:
        pieces, finish = self.limited(answer_pieces(self.prompt, self.body))
        top = self.body.get("logprobs")
        out: list[Any] = []
        offset = len(self.prompt)
        for piece in pieces:
            logprobs = legacy_logprobs(piece, offset, top) if isinstance(top, int) else None
            out += [
                self.payload(
                    [{"index": i, "text": piece, "logprobs": logprobs, "finish_reason": None}]
                )
                for i in range(self.n)
            ]
            offset += len(piece)
        out += [
            self.payload([{"index": i, "text": "", "logprobs": None, "finish_reason": finish}])
            for i in range(self.n)
        ]
        options = self.body.get("stream_options")
        if isinstance(options, dict) and options.get("include_usage"):
            prompt_tokens, completion = len(self.prompt.split()), len(pieces) * self.n
            usage = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion,
                "total_tokens": prompt_tokens + completion,
            }
            out.append(self.payload([], usage=usage))
        return [*out, "[DONE]"]


def legacy_logprobs(piece: str, offset: int, top: int) -> dict[str, Any]:
    """One token's logprobs in the legacy completions arrays: the sampled token and ``top``
    alternatives, the sampled one among them (so ``top`` entries, as OpenAI's documented "up
    to logprobs+1")."""
    alternatives = {piece: -0.01, **{f"alt{k}": -3.0 - k for k in range(max(top - 1, 0))}}
    return {
        "tokens": [piece],
        "token_logprobs": [-0.01],
        "top_logprobs": [alternatives],
        "text_offset": [offset],
    }


def completions_invalid(body: dict[str, Any]) -> str | None:
    prompt = body.get("prompt")
    if not isinstance(prompt, (str, list)):
        return "'prompt' must be a string or an array"
    max_tokens = body.get("max_tokens")
    if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 1):
        return "'max_tokens' must be a positive integer"
    return None


# The conform model in the other dialects: its answer and what makes a body invalid.
WIRE_ANSWERS: dict[
    str, tuple[Callable[[dict[str, Any]], Any], Callable[[dict[str, Any]], str | None]]
] = {
    "anthropic": (AnthropicConform, anthropic_invalid),
    "responses": (ResponsesConform, responses_invalid),
    "completions": (CompletionsConform, completions_invalid),
}
