"""How a run's request becomes each API's body (docs/live.md, "APIs").

A run is asked for in one common form, the chat-completions body the page and ``streamscope
record`` build: ``model``, ``messages`` and the usual options (``temperature``, ``top_p``,
``max_tokens``, ``stop``, ``seed``, ``n``, ``logprobs``/``top_logprobs``, ``tools``,
``tool_choice``, ``response_format``, ``stream_options``). Each function here writes that as
its API's own body. An option the API has no equivalent for is left out (the request
preview shows the body exactly as sent); any other field (the page's "extra body") is
copied as it is, and merged into an object of the same name the translation wrote (e.g.
Gemini's ``generationConfig``). Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

import orjson

Body = dict[str, Any]
COMMON = frozenset(
    {
        "model",
        "messages",
        "stream",
        "temperature",
        "top_p",
        "max_tokens",
        "max_completion_tokens",
        "stop",
        "seed",
        "n",
        "logprobs",
        "top_logprobs",
        "stream_options",
        "tools",
        "tool_choice",
        "response_format",
    }
)
ANTHROPIC_MAX_TOKENS = 1024  # Anthropic requires max_tokens; this when none is given
SYSTEM_ROLES = ("system", "developer")


# ---------------------------------------------------------------------- helpers
def text_of(content: Any) -> str:
    """A message's content as text: a string as it is, typed parts' text joined."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part if isinstance(part, str) else str(part.get("text") or "")
            for part in content
            if isinstance(part, (str, dict))
        )
    return orjson.dumps(content).decode()


def messages_of(common: Body) -> list[dict[str, Any]]:
    return [m for m in common.get("messages") or [] if isinstance(m, dict)]


def split_system(common: Body) -> tuple[str, list[dict[str, Any]]]:
    """The system (and developer) messages' text, and the other messages."""
    messages = messages_of(common)
    system = [text_of(m.get("content")) for m in messages if m.get("role") in SYSTEM_ROLES]
    return "\n\n".join(system), [m for m in messages if m.get("role") not in SYSTEM_ROLES]


def max_tokens(common: Body) -> Any:
    value = common.get("max_tokens")
    return value if value is not None else common.get("max_completion_tokens")


def stops(common: Body) -> list[str] | None:
    stop = common.get("stop")
    if stop is None:
        return None
    return [stop] if isinstance(stop, str) else list(stop)


def function_tools(common: Body) -> tuple[list[dict[str, Any]], list[Any]]:
    """The chat-style function tools as ``{name, description, parameters}``, and the other
    tools (an API's own built-in tools), as they are."""
    functions, others = [], []
    for tool in common.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(tool, dict) and tool.get("type") == "function" and isinstance(function, dict):
            functions.append(function)
        else:
            others.append(tool)
    return functions, others


def chosen_function(choice: Any) -> str | None:
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        name = choice["function"].get("name")
        return name if isinstance(name, str) else None
    return None


def put(body: Body, **fields: Any) -> Body:
    """Set the fields that have a value."""
    body.update({k: v for k, v in fields.items() if v is not None})
    return body


def with_extras(common: Body, body: Body) -> Body:
    """The fields of the common form this translation does not know, copied into the body
    (an object merged into the one of the same name)."""
    for key, value in common.items():
        if key in COMMON:
            continue
        if isinstance(value, dict) and isinstance(body.get(key), dict):
            body[key] = {**body[key], **value}
        else:
            body[key] = value
    return body


# ---------------------------------------------------------------------- the APIs
def chat(common: Body) -> Body:
    """OpenAI chat completions: the common form is its body."""
    return {**common, "stream": True}


def completions(common: Body) -> Body:
    """Legacy completions: the messages' text is the prompt, one after another."""
    prompt = "\n\n".join(text_of(m.get("content")) for m in messages_of(common))
    body = put({"model": common.get("model"), "prompt": prompt}, max_tokens=max_tokens(common))
    for name in ("temperature", "top_p", "stop", "seed", "n", "stream_options"):
        put(body, **{name: common.get(name)})
    if common.get("logprobs"):
        body["logprobs"] = common.get("top_logprobs") or 1
    return {**with_extras(common, body), "stream": True}


def responses(common: Body) -> Body:
    """OpenAI Responses: the messages are the input."""
    inputs = [{"role": m.get("role"), "content": m.get("content")} for m in messages_of(common)]
    body = put(
        {"model": common.get("model"), "input": inputs},
        temperature=common.get("temperature"),
        top_p=common.get("top_p"),
        max_output_tokens=max_tokens(common),
    )
    functions, others = function_tools(common)
    tools = [{"type": "function", **f} for f in functions] + others
    if tools:
        body["tools"] = tools
    choice = common.get("tool_choice")
    named = chosen_function(choice)
    put(body, tool_choice={"type": "function", "name": named} if named else choice)
    response_format = common.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") == "json_object":
        body["text"] = {"format": {"type": "json_object"}}
    if common.get("logprobs"):
        body["include"] = ["message.output_text.logprobs"]
        put(body, top_logprobs=common.get("top_logprobs"))
    return {**with_extras(common, body), "stream": True}


ANTHROPIC_CHOICE = {"auto": {"type": "auto"}, "required": {"type": "any"}, "none": {"type": "none"}}


def anthropic(common: Body) -> Body:
    """Anthropic Messages: system messages go in ``system``; ``max_tokens`` is required."""
    system, messages = split_system(common)
    body: Body = {
        "model": common.get("model"),
        "max_tokens": max_tokens(common) or ANTHROPIC_MAX_TOKENS,
        "messages": [{"role": m.get("role"), "content": m.get("content")} for m in messages],
    }
    put(
        body,
        system=system or None,
        temperature=common.get("temperature"),
        top_p=common.get("top_p"),
        stop_sequences=stops(common),
    )
    functions, others = function_tools(common)
    tools = [
        put(
            {"name": f.get("name"), "input_schema": f.get("parameters") or {"type": "object"}},
            description=f.get("description"),
        )
        for f in functions
    ] + others
    if tools:
        body["tools"] = tools
    choice = common.get("tool_choice")
    named = chosen_function(choice)
    if named:
        body["tool_choice"] = {"type": "tool", "name": named}
    elif isinstance(choice, str) and choice in ANTHROPIC_CHOICE:
        body["tool_choice"] = ANTHROPIC_CHOICE[choice]
    return {**with_extras(common, body), "stream": True}


GEMINI_MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY"}


def gemini(common: Body) -> Body:
    """Gemini ``streamGenerateContent``: the model is in the URL, options in
    ``generationConfig``; assistant messages are the ``model`` role."""
    system, messages = split_system(common)
    body: Body = {
        "contents": [
            {
                "role": "model" if m.get("role") == "assistant" else "user",
                "parts": [{"text": text_of(m.get("content"))}],
            }
            for m in messages
        ]
    }
    if system:
        body["systemInstruction"] = {"parts": [{"text": system}]}
    config = put(
        {},
        temperature=common.get("temperature"),
        topP=common.get("top_p"),
        maxOutputTokens=max_tokens(common),
        stopSequences=stops(common),
        seed=common.get("seed"),
        candidateCount=common.get("n"),
    )
    if common.get("logprobs"):
        put(config, responseLogprobs=True, logprobs=common.get("top_logprobs"))
    response_format = common.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") == "json_object":
        config["responseMimeType"] = "application/json"
    if config:
        body["generationConfig"] = config
    functions, others = function_tools(common)
    tools = ([{"functionDeclarations": functions}] if functions else []) + others
    if tools:
        body["tools"] = tools
    choice = common.get("tool_choice")
    named = chosen_function(choice)
    if named:
        calling = {"mode": "ANY", "allowedFunctionNames": [named]}
        body["toolConfig"] = {"functionCallingConfig": calling}
    elif isinstance(choice, str) and choice in GEMINI_MODES:
        body["toolConfig"] = {"functionCallingConfig": {"mode": GEMINI_MODES[choice]}}
    return with_extras(common, body)


def ollama_options(common: Body) -> Body:
    return put(
        {},
        temperature=common.get("temperature"),
        top_p=common.get("top_p"),
        num_predict=max_tokens(common),
        seed=common.get("seed"),
        stop=stops(common),
    )


def ollama_common(common: Body, body: Body) -> Body:
    options = ollama_options(common)
    if options:
        body["options"] = options
    response_format = common.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") == "json_object":
        body["format"] = "json"
    if common.get("logprobs"):
        put(body, logprobs=True, top_logprobs=common.get("top_logprobs"))
    return {**with_extras(common, body), "stream": True}


def ollama_chat(common: Body) -> Body:
    """Ollama ``/api/chat``: messages with text content, options in ``options``."""
    messages = [
        {"role": m.get("role"), "content": text_of(m.get("content"))} for m in messages_of(common)
    ]
    body: Body = {"model": common.get("model"), "messages": messages}
    if common.get("tools"):
        body["tools"] = common["tools"]
    return ollama_common(common, body)


def ollama_generate(common: Body) -> Body:
    """Ollama ``/api/generate``: the system messages are ``system``, the others the prompt."""
    system, messages = split_system(common)
    prompt = "\n\n".join(text_of(m.get("content")) for m in messages)
    body = put({"model": common.get("model"), "prompt": prompt}, system=system or None)
    return ollama_common(common, body)
