"""Proxied calls grouped into runs (docs/runs.md): an agent loop's calls, each answering the
last one's tool calls, as one run.

A call *continues* an earlier call when its request's messages (``app/domain/requests``, every
dialect's shape merged) start with the earlier call's messages, go on with the earlier call's
answer as the assistant's turn, and then hold more (the tool results, a user turn):

- the answer's turn is the messages right after the earlier call's, as long as their role is
  the model's (``assistant``, ``model``): one chat or Anthropic message, or the several items
  Responses sends back (a message, each ``function_call``, reasoning);
- its tool calls are the answer's, in order, matched by id, name and arguments (arguments
  compared as JSON values when both parse: an object sent back equals the text it streamed);
- its text, when it sent any, is the answer's text (reasoning is not compared);
- a Responses call naming the earlier call's response (``previous_response_id``) continues it
  whatever its input.

An edited history (a message changed, dropped or reordered, an answer not sent back as it
came) does not continue. Of the earlier calls a new one continues, the one with the most
messages (the loop's last turn) names the run. ``Grouper`` keeps the recent calls it groups
over: at most ``MAX_RECENT`` and ``MAX_KEPT_CHARS`` characters of messages, none older than
``MAX_AGE_S``, each key (a client and upstream)
apart; a run holds at most ``MAX_CALLS`` calls (the next starts a run of its own). No Flask, no
I/O here.
"""

from __future__ import annotations

import re
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from .normalize import normalized
from .requests.model import Message, Part, RequestView
from .stream import Stream
from .summary import dialect_of, fold, identity

MODEL_ROLES = frozenset({"assistant", "model"})
MAX_RECENT = 500  # earlier calls kept to group over (every key together)
MAX_AGE_S = 3600.0  # an earlier call older than this is not continued
MAX_CALLS = 200  # calls in one run
MAX_KEPT_CHARS = 32_000_000  # characters of the kept calls' messages, all together
MAX_NAME = 100  # characters of a run's name (the X-Streamscope-Run header)
NAME = re.compile(r"[^A-Za-z0-9._:-]+")


@dataclass(frozen=True)
class ToolCall:
    id: str | None
    name: str | None
    arguments: str | None


@dataclass(frozen=True)
class Answer:
    """What a call answered, as it was assembled from its stream (``normalized``'s output)."""

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    response_id: str | None = None  # a Responses answer's id (previous_response_id names it)

    @classmethod
    def from_output(cls, output: dict[str, Any] | None, response_id: str | None = None) -> Answer:
        """From one output of ``app/domain/normalize.py``'s ``normalized``."""
        output = output or {}
        calls = tuple(
            ToolCall(_string(c.get("id")), _string(c.get("name")), _string(c.get("arguments")))
            for c in output.get("tool_calls") or ()
            if isinstance(c, dict)
        )
        return cls(_string(output.get("text")), calls, response_id)


@dataclass(frozen=True)
class Turn:
    """An earlier call, as grouping knows it."""

    call: str  # the call's id
    run: str
    view: RequestView
    answer: Answer
    at: float  # when it was made (seconds, the grouper's clock)


def size_of(view: RequestView) -> int:
    """The characters of a view's messages (what keeping it costs, roughly)."""
    return sum(
        len(p.text or "") + len(p.arguments or "") + 16 for m in view.messages for p in m.parts
    )


def run_name(header: str | None) -> str | None:
    """A run's name from ``X-Streamscope-Run``: letters, digits and ``._:-`` (any other run of
    characters one ``-``), at most ``MAX_NAME``; None when nothing is left."""
    if header is None:
        return None
    name = NAME.sub("-", header.strip())[:MAX_NAME].strip("-")
    return name or None


def continues(
    view: RequestView, earlier: RequestView, answer: Answer, previous_response: str | None = None
) -> bool:
    """Whether a call with request ``view`` is the next turn of the call ``earlier`` that
    answered ``answer`` (the module's doc has the rule)."""
    if previous_response is not None:
        return answer.response_id is not None and previous_response == answer.response_id
    if view.dialect is None or view.dialect != earlier.dialect:
        return False
    before, now = earlier.messages, view.messages
    if not before or len(now) <= len(before) or now[: len(before)] != before:
        return False
    rest = now[len(before) :]
    turn = 0
    while turn < len(rest) and rest[turn].role in MODEL_ROLES:
        turn += 1
    if turn == 0 or turn == len(rest):  # no answer sent back, or nothing after it
        return False
    return _answered(rest[:turn], answer)


def _answered(turn: Sequence[Message], answer: Answer) -> bool:
    parts = [p for m in turn for p in m.parts]
    calls = [p for p in parts if p.kind == "tool_call"]
    if len(calls) != len(answer.tool_calls):
        return False
    if not all(_same_call(p, c) for p, c in zip(calls, answer.tool_calls, strict=True)):
        return False
    sent = "".join(p.text or "" for p in parts if p.kind == "text").strip()
    said = (answer.text or "").strip()
    if sent:
        return sent == said
    return bool(calls)  # an answer of text only must be sent back as its text


def _same_call(part: Part, call: ToolCall) -> bool:
    if part.id != call.id or part.name != call.name:
        return False
    return _value(part.arguments) == _value(call.arguments)


def _value(arguments: str | None) -> Any:
    if arguments is None or not arguments.strip():
        return {}
    try:
        return orjson.loads(arguments)
    except orjson.JSONDecodeError:
        return arguments


def best(
    view: RequestView, earlier: Sequence[Turn], previous_response: str | None = None
) -> Turn | None:
    """The earlier call the new one continues: of those it continues, the one with the most
    messages, then the latest."""
    found = [t for t in earlier if continues(view, t.view, t.answer, previous_response)]
    if not found:
        return None
    return max(found, key=lambda t: (len(t.view.messages), t.at))


class Grouper:
    """The runs of the recent calls, per key (a client and upstream), capped (see module doc).

    A call's run is looked for when it starts (``match``: its predecessor has usually ended by
    then, so the run is followed live) and settled when it ends (``assign``: by then the call
    it continues has surely ended too, and its answer is known). ``assign`` gives the run it
    was given (the explicit name, or what ``match`` found), else the run of the call it
    continues, else a new run (``new_run`` names it), and keeps the call with its answer for
    later calls to continue."""

    def __init__(
        self,
        clock: Callable[[], float],
        *,
        kept: int = MAX_RECENT,
        max_age_s: float = MAX_AGE_S,
        max_calls: int = MAX_CALLS,
        max_chars: int = MAX_KEPT_CHARS,
    ) -> None:
        self.clock = clock
        self.kept = kept
        self.max_age_s = max_age_s
        self.max_calls = max_calls
        self.max_chars = max_chars
        self._turns: deque[tuple[str, Turn]] = deque()
        self._chars = 0  # characters of the kept turns' messages
        self._sizes: dict[str, int] = {}  # calls per run, of the runs kept here
        self._lock = threading.Lock()

    def _keep(self, key: str, turn: Turn) -> None:
        """Keep a turn, the oldest let go past ``kept`` turns or ``max_chars`` characters
        (the caller holds the lock)."""
        self._turns.append((key, turn))
        self._chars += size_of(turn.view)
        while self._turns and (len(self._turns) > self.kept or self._chars > self.max_chars):
            _, old = self._turns.popleft()
            self._chars -= size_of(old.view)

    def match(
        self, key: str, view: RequestView | None, previous_response: str | None = None
    ) -> str | None:
        """The run of the recent call of ``key`` that a call with ``view`` continues, if any
        (and not full)."""
        if view is None and previous_response is None:
            return None
        now = self.clock()
        with self._lock:
            recent = [t for k, t in self._turns if k == key and now - t.at <= self.max_age_s]
            sizes = dict(self._sizes)
        if view is None:
            view = RequestView(None, None, "recording", None)
        found = best(view, recent, previous_response)
        if found is None or sizes.get(found.run, 0) >= self.max_calls:
            return None
        return found.run

    def assign(
        self,
        key: str,
        call: str,
        view: RequestView | None,
        answer: Answer,
        *,
        at: float,
        run: str | None = None,
        previous_response: str | None = None,
        new_run: Callable[[], str],
    ) -> str:
        """The ended call's run; from now on later calls may continue it. ``at``: when it
        started (the grouper's clock)."""
        chosen = run or self.match(key, view, previous_response) or new_run()
        with self._lock:
            self._sizes[chosen] = self._sizes.get(chosen, 0) + 1
            if view is not None:
                self._keep(key, Turn(call, chosen, view, answer, at))
            while len(self._sizes) > self.kept:  # the oldest runs' counts go first
                self._sizes.pop(next(iter(self._sizes)))
        return chosen

    def size(self, run: str) -> int:
        """How many of the calls assigned here are in ``run``."""
        with self._lock:
            return self._sizes.get(run, 0)

    def add(self, key: str, turn: Turn) -> None:
        """An earlier call known from elsewhere (another process, through the store)."""
        with self._lock:
            if any(t.call == turn.call for _, t in self._turns):
                return
            self._keep(key, turn)
            self._sizes[turn.run] = self._sizes.get(turn.run, 0) + 1


@dataclass(frozen=True)
class Ended:
    """What a run's waterfall shows of a call's answer, read once its stream ended."""

    answer: Answer
    stop: str | None  # the stop reason as the dialect spells it
    input_tokens: int | None


def answer_of(stream: Stream) -> Ended:
    """A stream's answer (its first output), stop reason and input tokens."""
    dialect = dialect_of(stream)
    timeline = fold(stream, with_logprobs=False)
    completion = dialect.assemble(timeline.runs)
    shape = normalized(timeline.runs, dialect, completion)
    outputs = shape["outputs"]
    first = outputs[0] if outputs else None
    response_id, _ = identity(stream)
    answer = Answer.from_output(first, response_id if isinstance(response_id, str) else None)
    stop = first.get("stop_reason") if first else None
    usage = shape.get("usage") or {}
    tokens = usage.get("input_tokens") if isinstance(usage, dict) else None
    return Ended(
        answer,
        stop if isinstance(stop, str) else None,
        tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None,
    )


def turn_json(turn: Turn) -> dict[str, Any]:
    """What the store keeps of an ended call for other processes to group over."""
    return {
        "dialect": turn.view.dialect,
        "messages": [m.to_json() for m in turn.view.messages],
        "answer": {
            "text": turn.answer.text,
            "tool_calls": [[c.id, c.name, c.arguments] for c in turn.answer.tool_calls],
            "response_id": turn.answer.response_id,
        },
    }


def turn_of(call: str, run: str, at: float, kept: Any) -> Turn | None:
    """A turn read back from ``turn_json``; None when it is not that shape."""
    if not isinstance(kept, dict):
        return None
    messages = []
    for message in kept.get("messages") or ():
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            return None
        parts = []
        for part in message.get("parts") or ():
            if not isinstance(part, dict) or not isinstance(part.get("kind"), str):
                return None
            parts.append(
                Part(
                    part["kind"],
                    text=_string(part.get("text")),
                    name=_string(part.get("name")),
                    id=_string(part.get("id")),
                    arguments=_string(part.get("arguments")),
                    error=part.get("error") is True,
                )
            )
        messages.append(Message(message["role"], tuple(parts)))
    answered = kept.get("answer")
    said: dict[str, Any] = answered if isinstance(answered, dict) else {}
    calls = tuple(
        ToolCall(_string(c[0]), _string(c[1]), _string(c[2]))
        for c in said.get("tool_calls") or ()
        if isinstance(c, list) and len(c) == 3
    )
    view = RequestView(
        None, None, "recording", _string(kept.get("dialect")), messages=tuple(messages)
    )
    answer = Answer(_string(said.get("text")), calls, _string(said.get("response_id")))
    return Turn(call, run, view, answer, at)


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) else None
