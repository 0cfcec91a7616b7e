"""A quirk-injecting OpenAI-compatible server on a free loopback port (issue 30).

Each **profile** reproduces one documented streaming behaviour of a real server, and only
that: ``clean`` answers as OpenAI documents a chat-completions stream, every other profile is
``clean`` with one quirk injected. Every profile record cites the public issue or pull-request
thread its behaviour comes from and names the rule ids of the catalogue
(``app/domain/rules``, docs/rules.md) that a stream of that profile must trigger, per kind of
request (``plain`` text, ``tools``: one call, ``parallel``: two); info rules (``reasoning-field``, ``keepalive-comment``,
``stall``) are not listed.

One server serves every profile; the profile is chosen per request, by either

* the model name ``quirk/<profile>`` (``POST /v1/chat/completions`` with ``"model":
  "quirk/sglang-double-finish"``), or
* a path prefix ``/quirk/<profile>/v1/...`` (a base URL of ``<url>/quirk/<profile>/v1``, for
  clients and gateways that send their own model name: LiteLLM in tests/litellm_proxy.py).

Any other model falls through to :class:`tests.fake_upstream.Handler` (``replay:``, the
faults...), so this server is a superset of the fake upstream.

What each profile answers (the kinds of request a conformance battery sends) is a clean stream
with its quirk put in. The clean stream is the fake upstream's ``conform`` model's
(tests/fake_conform.py: what ``streamscope conform``'s chat battery is tested on, so that a
profile differs from that clean server by its quirk alone) where that module is there, with this
stream's id and a fixed ``created``; otherwise this module's own, which answers:

* plain text: a role delta, a few content deltas, a finish chunk (``stop``), ``data: [DONE]``;
  ``max_tokens`` smaller than the answer cuts it (finish ``length``); ``n`` choices, each with
  its index and finish; ``stop`` sequences are honoured (the text ends before one);
* tool calls, when ``tools`` are given, ``tool_choice`` is not ``none`` and the last message is
  not a tool's result (then the answer is text): one call per tool named in the last user
  message (the first tool when none is named; the first tool once per city when the message
  names several of Paris, Tokyo and Lima, as the conform model does), each streamed as a
  first fragment (``index``, ``id``, ``type``, name, ``""`` arguments) then argument
  fragments; finish ``tool_calls``;
* usage, when ``stream_options.include_usage`` is true: a last chunk with ``choices: []`` and
  ``usage`` (numbers that add up); none otherwise;
* every profile: ``stream: false``, a whole ``chat.completion``; an invalid body (no
  ``messages`` list, or what the conform model refuses): a 400 with OpenAI's JSON error;
* ``GET /v1/models`` (also under ``/quirk/<profile>/``): the ``quirk/<profile>`` models.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from .fake_upstream import FakeUpstream, Handler

try:  # the conform battery's clean server, where it is there (tests/fake_conform.py)
    from .fake_conform import ConformAnswer, invalid  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - this module's own clean answer then
    ConformAnswer = None
    invalid = None

Chunk = dict[str, Any]
KINDS = ("plain", "tools", "parallel")  # text; a tool call; two calls at once
ANSWER = ["Hello", " from", " the", " quirky", " upstream", "."]
CITIES = ("Paris", "Tokyo", "Lima")


def argument_pieces(city: str) -> list[str]:
    """A call's arguments, fragment by fragment (they join to valid JSON)."""
    return ['{"city', f'": "{city[:3]}', f'{city[3:]}", "unit": ', '"celsius"}']


@dataclass(frozen=True)
class Profile:
    """One named behaviour of a real server: what it does, where that was reported, and the
    warning and error rules a stream of it must trigger, per kind of request."""

    name: str
    what: str
    source: str
    rules: dict[str, frozenset[str]] = field(default_factory=dict)

    def expected(self, kind: str) -> frozenset[str]:
        return self.rules.get(kind, frozenset())


def _rules(plain: tuple[str, ...] = (), tools: tuple[str, ...] = ()) -> dict[str, frozenset[str]]:
    return {"plain": frozenset(plain), "tools": frozenset(tools), "parallel": frozenset(tools)}


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            "clean",
            "OpenAI's documented stream: one role delta, one finish per choice, an index and id on "
            "each call's first fragment only, usage once in a last chunk with choices: [] when "
            "asked, then data: [DONE].",
            "https://platform.openai.com/docs/api-reference/chat-streaming",
            _rules(),
        ),
        Profile(
            "ollama-pre-0.4.7",
            "Ollama's /v1 before 0.4.7: each tool call comes whole in one delta, with no `index` "
            "on the fragment (fixed in 0.4.7).",
            "https://github.com/ollama/ollama/issues/7881",
            _rules(tools=("tool-call-index-missing",)),
        ),
        Profile(
            "azure-content-filter",
            'Azure OpenAI: a first chunk with `choices: []`, `prompt_filter_results`, `id: ""`, '
            '`model: ""`, `object: ""` and `created: 0`, before the real chunks.',
            "https://github.com/langfuse/langfuse/issues/2833",
            _rules(plain=("empty-choices-chunk",), tools=("empty-choices-chunk",)),
        ),
        Profile(
            "vllm-0.5.4-usage",
            "vLLM 0.5.4 with `stream_options.include_usage`: every chunk carries the running "
            "`usage` beside its choices (and the last usage chunk still comes).",
            "https://github.com/vllm-project/vllm/issues/7262",
            _rules(plain=("usage-every-chunk",), tools=("usage-every-chunk",)),
        ),
        Profile(
            "sglang-double-finish",
            "SGLang before the fix: the last content chunk already carries the finish reason, then "
            "a final empty-delta chunk carries it again.",
            "https://github.com/sgl-project/sglang/pull/8417",
            _rules(plain=("finish-reason-repeated",), tools=("finish-reason-repeated",)),
        ),
        Profile(
            "tgi-object-arguments",
            "TGI's OpenAI-compatible tool calls: `function.arguments` is a JSON object, not a "
            "string of JSON text (the call comes in one fragment).",
            "https://github.com/huggingface/text-generation-inference/issues/2136",
            _rules(tools=("tool-call-arguments-not-string",)),
        ),
        Profile(
            "lmstudio-empty-name",
            'LM Studio: the fragments that continue a call carry `"name": ""` (the name came on '
            "the first fragment).",
            "https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/649",
            _rules(tools=("tool-call-name-empty",)),
        ),
        Profile(
            "deepseek-repeated-tool-id",
            "DeepSeek (and Qwen) APIs: every fragment of a call repeats its whole id "
            "(accumulating clients build `abcabc`).",
            "https://github.com/langchain4j/langchain4j/issues/4544",
            _rules(tools=("tool-call-id-changed",)),
        ),
        Profile(
            "gateway-no-done",
            "A server or gateway that ends the stream after the last chunk without `data: [DONE]` "
            "(ik_llama.cpp's server).",
            "https://github.com/ikawrakow/ik_llama.cpp/issues/467",
            _rules(plain=("done-missing",), tools=("done-missing",)),
        ),
    )
}


# ---------------------------------------------------------------------- the clean stream
@dataclass
class Answer:
    """What one request asks for, read from its body."""

    model: str
    n: int
    calls: list[str]  # the tool names to call (empty: a text answer)
    cities: list[str]  # each call's city
    max_tokens: int | None
    stop: list[str]
    include_usage: bool
    stream: bool

    @classmethod
    def of(cls, body: dict[str, Any]) -> Answer:
        tools = [
            t.get("function", {}).get("name")
            for t in body.get("tools") or []
            if isinstance(t, dict) and isinstance(t.get("function"), dict)
        ]
        tools = [t for t in tools if isinstance(t, str) and t]
        choice = body.get("tool_choice")
        calls: list[str] = []
        messages = body.get("messages") or []
        answered = bool(messages) and isinstance(messages[-1], dict)
        answered = answered and messages[-1].get("role") == "tool"  # the tool's result came
        if tools and choice != "none" and not answered:
            if isinstance(choice, dict):
                named = choice.get("function", {}).get("name")
                calls = [named] if named in tools else tools[:1]
            else:
                said = _last_user_text(body.get("messages") or [])
                calls = [t for t in tools if t in said] or tools[:1]
                named_cities = [c for c in CITIES if c in said]
                if len(calls) == 1 and len(named_cities) > 1:  # one call per city
                    calls = calls * len(named_cities)
                if body.get("parallel_tool_calls") is False:
                    calls = calls[:1]
        said = _last_user_text(messages)
        cities = [c for c in CITIES if c in said] or [CITIES[0]]
        cities = (cities * len(calls))[: len(calls)]
        stop = body.get("stop")
        options = body.get("stream_options")
        limit = body.get("max_completion_tokens", body.get("max_tokens"))
        return cls(
            model=str(body.get("model", "")),
            n=max(1, int(body.get("n") or 1)),
            calls=calls,
            cities=cities,
            max_tokens=int(limit) if isinstance(limit, int) else None,
            stop=[stop] if isinstance(stop, str) else [s for s in stop or [] if isinstance(s, str)],
            include_usage=isinstance(options, dict) and options.get("include_usage") is True,
            stream=body.get("stream") is True,
        )

    def pieces(self) -> tuple[list[str], str]:
        """The content deltas and the finish reason of a text answer."""
        pieces, text = [], ""
        for piece in ANSWER:
            cut = _stop_at(text + piece, self.stop)
            if cut is not None:
                if cut > len(text):
                    pieces.append((text + piece)[len(text) : cut])
                return pieces, "stop"
            if self.max_tokens is not None and len(pieces) >= self.max_tokens:
                return pieces, "length"
            pieces.append(piece)
            text += piece
        return pieces, "stop"

    def completion_tokens(self) -> int:
        if self.calls:
            return len(self.calls) * 5 * self.n  # a first fragment and four pieces a call
        return len(self.pieces()[0]) * self.n


def _last_user_text(messages: list[Any]) -> str:
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return " ".join(
                    p.get("text", "") for p in content if isinstance(p, dict) and p.get("text")
                )
    return ""


def _stop_at(text: str, stops: list[str]) -> int | None:
    found = [text.find(s) for s in stops if s and s in text]
    return min(found) if found else None


def call_id(stream_id: str, choice: int, call: int) -> str:
    """A call's id: its stream's number, its choice and its place (unique across streams)."""
    return f"call_{stream_id.rsplit('-', 1)[-1]}_{choice}{call}"


def clean_chunks(answer: Answer, stream_id: str) -> list[Chunk]:
    """The chunks of a clean stream, in order (without ``[DONE]``)."""

    def chunk(choice: int, delta: dict[str, Any], finish: str | None = None) -> Chunk:
        return {
            "id": stream_id,
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": answer.model,
            "system_fingerprint": "fp_quirky",
            "choices": [
                {"index": choice, "delta": delta, "logprobs": None, "finish_reason": finish}
            ],
        }

    chunks: list[Chunk] = []
    for choice in range(answer.n):
        if answer.calls:
            chunks.append(chunk(choice, {"role": "assistant", "content": None}))
            for position, name in enumerate(answer.calls):
                first = {
                    "index": position,
                    "id": call_id(stream_id, choice, position),
                    "type": "function",
                    "function": {"name": name, "arguments": ""},
                }
                chunks.append(chunk(choice, {"tool_calls": [first]}))
                for piece in argument_pieces(answer.cities[position]):
                    more = {"index": position, "function": {"arguments": piece}}
                    chunks.append(chunk(choice, {"tool_calls": [more]}))
            chunks.append(chunk(choice, {}, "tool_calls"))
        else:
            pieces, finish = answer.pieces()
            chunks.append(chunk(choice, {"role": "assistant", "content": ""}))
            chunks.extend(chunk(choice, {"content": piece}) for piece in pieces)
            chunks.append(chunk(choice, {}, finish))
    if answer.include_usage:
        chunks.append(
            {
                "id": stream_id,
                "object": "chat.completion.chunk",
                "created": 1_700_000_000,
                "model": answer.model,
                "system_fingerprint": "fp_quirky",
                "choices": [],
                "usage": usage(answer, answer.completion_tokens()),
            }
        )
    return chunks


def usage(answer: Answer, completion: int) -> dict[str, int]:
    prompt = 12
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def base_chunks(body: dict[str, Any], answer: Answer, stream_id: str) -> list[Chunk]:
    """The clean stream the quirks are put into: the fake upstream's ``conform`` model's
    (tests/fake_conform.py, the clean server ``streamscope conform``'s battery is tested on)
    where it is there, so that a profile differs from it by its quirk alone; this module's own
    clean answer otherwise."""
    if ConformAnswer is None:
        return clean_chunks(answer, stream_id)
    chunks = []
    for event in ConformAnswer(body).events():
        data = event.removeprefix(b"data: ").strip()
        if data != b"[DONE]":
            # this stream's id, and a fixed time: the same request, the same bytes
            chunks.append({**json.loads(data), "id": stream_id, "created": 1_700_000_000})
    for chunk in chunks:
        for fragment in _fragments(chunk):
            if "id" in fragment:
                fragment["id"] = call_id(stream_id, _choice_of(chunk), fragment["index"])
    return chunks


# ---------------------------------------------------------------------- the quirks
def _fragments(chunk: Chunk) -> list[dict[str, Any]]:
    choices = chunk.get("choices") or []
    if not choices:
        return []
    return choices[0].get("delta", {}).get("tool_calls") or []


def _choice_of(chunk: Chunk) -> int:
    choices = chunk.get("choices") or []
    return choices[0].get("index", 0) if choices else -1


def _whole_calls(chunks: list[Chunk]) -> list[Chunk]:
    """Each call's fragments folded into its first one (the whole call in one delta)."""
    out: list[Chunk] = []
    heads: dict[tuple[int, Any], dict[str, Any]] = {}
    for chunk in chunks:
        kept = []
        for fragment in _fragments(chunk):
            key = (_choice_of(chunk), fragment.get("index"))
            head = heads.get(key)
            if "id" in fragment or head is None:
                heads[key] = fragment
                kept.append(fragment)
            else:
                more = fragment.get("function", {}).get("arguments") or ""
                head["function"]["arguments"] = (head["function"].get("arguments") or "") + more
        if _fragments(chunk) and not kept:
            continue
        if kept:
            chunk["choices"][0]["delta"]["tool_calls"] = kept
        out.append(chunk)
    return out


def ollama_pre_047(chunks: list[Chunk], answer: Answer) -> list[Chunk]:
    chunks = _whole_calls(chunks)
    for chunk in chunks:
        for fragment in _fragments(chunk):
            fragment.pop("index", None)
    return chunks


def azure_content_filter(chunks: list[Chunk], answer: Answer) -> list[Chunk]:
    filtered = {
        name: {"filtered": False, "severity": "safe"}
        for name in ("hate", "self_harm", "sexual", "violence")
    }
    first = {
        "choices": [],
        "created": 0,
        "id": "",
        "model": "",
        "object": "",
        "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": filtered}],
    }
    return [first, *chunks]


def vllm_054_usage(chunks: list[Chunk], answer: Answer) -> list[Chunk]:
    if not answer.include_usage:
        return chunks
    made = 0
    for chunk in chunks:
        if chunk.get("choices"):
            delta = chunk["choices"][0]["delta"]
            if delta.get("content") or delta.get("tool_calls"):
                made += 1
            chunk["usage"] = usage(answer, made)
    return chunks


def sglang_double_finish(chunks: list[Chunk], answer: Answer) -> list[Chunk]:
    """The finish reason also on the last chunk of the same choice that carried something (its
    last content or argument delta), before the finish chunk that carries it again."""
    for position, chunk in enumerate(chunks):
        choices = chunk.get("choices") or []
        if not choices or choices[0].get("finish_reason") is None:
            continue
        for before in reversed(chunks[:position]):
            earlier = before.get("choices") or []
            if earlier and earlier[0].get("index") == choices[0].get("index"):
                if earlier[0].get("delta"):
                    earlier[0]["finish_reason"] = choices[0]["finish_reason"]
                break
    return chunks


def tgi_object_arguments(chunks: list[Chunk], answer: Answer) -> list[Chunk]:
    chunks = _whole_calls(chunks)
    for chunk in chunks:
        for fragment in _fragments(chunk):
            fragment["function"]["arguments"] = json.loads(fragment["function"]["arguments"])
    return chunks


def lmstudio_empty_name(chunks: list[Chunk], answer: Answer) -> list[Chunk]:
    for chunk in chunks:
        for fragment in _fragments(chunk):
            if "id" not in fragment:
                fragment["function"]["name"] = ""
    return chunks


def deepseek_repeated_tool_id(chunks: list[Chunk], answer: Answer) -> list[Chunk]:
    ids: dict[tuple[int, int], str] = {}
    for chunk in chunks:
        choice = (chunk.get("choices") or [{}])[0].get("index", 0)
        for fragment in _fragments(chunk):
            key = (choice, fragment["index"])
            if "id" in fragment:
                ids[key] = fragment["id"]
            else:
                fragment["id"] = ids[key]
                fragment["type"] = "function"
    return chunks


QUIRKS: dict[str, Callable[[list[Chunk], Answer], list[Chunk]]] = {
    "clean": lambda chunks, answer: chunks,
    "ollama-pre-0.4.7": ollama_pre_047,
    "azure-content-filter": azure_content_filter,
    "vllm-0.5.4-usage": vllm_054_usage,
    "sglang-double-finish": sglang_double_finish,
    "tgi-object-arguments": tgi_object_arguments,
    "lmstudio-empty-name": lmstudio_empty_name,
    "deepseek-repeated-tool-id": deepseek_repeated_tool_id,
    "gateway-no-done": lambda chunks, answer: chunks,  # the end is what differs
}
NO_DONE = frozenset({"gateway-no-done"})
assert set(QUIRKS) == set(PROFILES)


def stream_of(profile: str, body: dict[str, Any], stream_id: str = "chatcmpl-quirky") -> bytes:
    """The whole SSE body a profile answers to a request body (no server needed)."""
    answer = Answer.of(body)
    chunks = QUIRKS[profile](base_chunks(body, answer, stream_id), answer)
    events = [b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks]
    if profile not in NO_DONE:
        events.append(b"data: [DONE]\n\n")
    return b"".join(events)


def completion_of(body: dict[str, Any]) -> dict[str, Any]:
    """A whole (``stream: false``) completion, the same answer as the clean stream's."""
    answer = Answer.of(body)
    choices = []
    for choice in range(answer.n):
        if answer.calls:
            calls = [
                {
                    "id": call_id("chatcmpl-quirky", choice, position),
                    "type": "function",
                    "function": {
                        "name": name,
                        "arguments": "".join(argument_pieces(answer.cities[position])),
                    },
                }
                for position, name in enumerate(answer.calls)
            ]
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": calls}
            finish = "tool_calls"
        else:
            pieces, finish = answer.pieces()
            message = {"role": "assistant", "content": "".join(pieces)}
        choices.append({"index": choice, "message": message, "finish_reason": finish})
    return {
        "id": "chatcmpl-quirky",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": answer.model,
        "choices": choices,
        "usage": usage(answer, answer.completion_tokens()),
    }


# ---------------------------------------------------------------------- the server
def profile_in(path: str, model: str) -> str | None:
    """The profile a request asks for (path prefix first, then the model), or None."""
    parts = urlsplit(path).path.split("/")
    if len(parts) > 2 and parts[1] == "quirk":
        return unquote(parts[2])
    if model.startswith("quirk/"):
        return model.removeprefix("quirk/")
    return None


class QuirkyHandler(Handler):
    server: QuirkyUpstream

    def do_GET(self) -> None:
        """``/v1/models`` (and ``/quirk/<profile>/v1/models``): the profiles' models, then the
        fake upstream's; anything else as the fake upstream answers it."""
        path = urlsplit(self.path).path
        special = any(f"/{k}/" in path for k in ("drip", "big", "html404", "missing"))
        if special or path.rstrip("/") not in ("/v1/models", *self._prefixed()):
            super().do_GET()
            return
        self.noted = self.server.note(self, None)
        names = [f"quirk/{name}" for name in PROFILES]
        names += ["fake-small", "fake-large", "replay:openai-gpt4o-content-plain.sse"]
        listed = {
            "object": "list",
            "data": [{"id": name, "object": "model", "owned_by": "quirky"} for name in names],
        }
        self._whole(200, "application/json", json.dumps(listed).encode())

    def _prefixed(self) -> tuple[str, ...]:
        return tuple(f"/quirk/{name}/v1/models" for name in PROFILES)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = None
        model = str(body.get("model", "")) if isinstance(body, dict) else ""
        profile = profile_in(self.path, model)
        if profile is None:
            # Not ours: the fake upstream's behaviours, from the body as it came.
            rest = self.rfile
            self.rfile = _Replay(raw, rest)
            try:
                super().do_POST()
            finally:
                self.rfile = rest
            return
        self.noted = self.server.note(self, body if isinstance(body, dict) else None)
        try:
            self._quirk(profile, body)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.server.closed(model)
            self.close_connection = True
        else:
            self.server.finished(model)

    def _error(self, status: int, message: str, code: str | None = None) -> None:
        error = {"message": message, "type": "invalid_request_error", "param": None, "code": code}
        self._whole(status, "application/json", json.dumps({"error": error}).encode())

    def _quirk(self, profile: str, body: Any) -> None:
        if not urlsplit(self.path).path.endswith("/chat/completions"):
            self._error(404, f"no route {self.path}")
            return
        if profile not in PROFILES:
            self._error(404, f"no quirk profile {profile!r}", "model_not_found")
            return
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            self._error(400, "'messages' is a required property", "invalid_request")
            return
        problem = invalid(body) if invalid is not None else None
        if problem is not None:
            self._error(400, problem, "invalid_request")
            return
        if body.get("stream") is not True:
            data = json.dumps(completion_of(body)).encode()
            self._whole(200, "application/json", data)
            return
        data = stream_of(profile, body, f"chatcmpl-quirky-{self.server.attempts('stream')}")
        self._start()
        for event in data.split(b"\n\n"):
            if event:
                self._write(event + b"\n\n")
                if not self._sleep(self.server.gap):
                    return
        self._finish()


class _Replay:
    """A request body read once, handed to the fake upstream's handler as if unread."""

    def __init__(self, data: bytes, rest: Any) -> None:
        self._data, self._rest = data, rest

    def read(self, size: int = -1) -> bytes:
        data, self._data = self._data, b""
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rest, name)


class QuirkyUpstream(FakeUpstream):
    """The fake upstream with the quirk profiles: ``url`` is its ``/v1`` base URL (profiles by
    model ``quirk/<name>``), ``profile_url(name)`` a base URL that picks one by its path."""

    def __init__(self, gap: float = 0.005) -> None:
        super().__init__()
        self.RequestHandlerClass = QuirkyHandler
        self.gap = gap  # seconds between events: each its own network read

    def profile_url(self, profile: str) -> str:
        return f"http://127.0.0.1:{self.port}/quirk/{profile}/v1"

    def start(self) -> QuirkyUpstream:
        super().start()
        return self
