"""The demos: which capture each comes from, its timing profile and a plausible request body.

Request bodies are reconstructed from the tests that recorded the streams (they hold no
credentials); ``error-midstream`` keeps the body recorded in its cassette.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from demo_timing import Profile, error_special, n_choices_special, reasoning_special

OPENAI_URL = "https://api.openai.com/v1/chat/completions"


@dataclass
class Demo:
    name: str
    title: str
    description: str
    format: str = "timed"
    capture: str | None = None  # file in tests/captures/ (real demos)
    # A dialect demo: a capture from tests/captures/dialects/ copied as it is, read by the
    # reader of `format`, replayed paced evenly (it has no timing).
    dialect: str = "chat-completions"
    profile: Profile | None = None
    url: str = OPENAI_URL
    request: dict[str, Any] = field(default_factory=dict)
    request_note: str = "rebuilt from the arguments of the test that recorded the stream"
    end_reason: str = "done"
    end_error: str | None = None

    @property
    def verbatim(self) -> bool:
        return self.format not in ("docs", "timed")

    @property
    def file(self) -> str:
        if self.verbatim:
            assert self.capture is not None
            return self.name + self.capture[self.capture.index(".") :]
        return f"{self.name}.txt" if self.format == "docs" else f"{self.name}.timed.jsonl"

    @property
    def made(self) -> bool:
        return self.capture is None


def _dialect_demo(
    name: str, dialect: str, fmt: str, capture: str, title: str, description: str
) -> Demo:
    return Demo(
        name=name,
        title=title,
        description=description,
        format=fmt,
        capture=capture,
        dialect=dialect,
    )


STREAM = {"stream": True, "stream_options": {"include_usage": True}}
SF = [{"role": "user", "content": "What's the weather like in SF?"}]
LOCATION_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"title": "City", "type": "string"},
        "temperature": {"title": "Temperature", "type": "number"},
        "units": {"enum": ["c", "f"], "title": "Units", "type": "string"},
    },
    "required": ["city", "temperature", "units"],
    "title": "Location",
    "additionalProperties": False,
}


def _tool(name: str, description: str, props: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "strict": True,
            "parameters": {
                "type": "object",
                "properties": props,
                "required": list(props),
                "additionalProperties": False,
            },
        },
    }


DEMOS = [
    Demo(
        name="seed-docs",
        format="docs",
        capture="chat-completion-chunk-docs.txt",
        title="Documentation page: two streams, no timing",
        description="A provider's docs page for the chunk object, as it is: pretty-printed "
        "chunks, '...' elisions and prose, read as two streams.",
    ),
    Demo(
        name="tool-calls-parallel",
        capture="openai-gpt4o-tool-parallel.sse",
        title="Two parallel tool calls (gpt-4o)",
        description="Weather and stock-price tool calls streamed one after the other, "
        "arguments arriving in fragments.",
        profile=Profile(seed=1101, ttft=(380, 620), median_gap=24, stalls=1, split_p=0.05),
        request={
            "model": "gpt-4o-2024-08-06",
            "messages": [
                {"role": "user", "content": "What's the weather like in Edinburgh?"},
                {"role": "user", "content": "What's the price of AAPL?"},
            ],
            "tools": [
                _tool(
                    "GetWeatherArgs",
                    "Get the temperature for the given country/city combo",
                    {
                        "city": {"title": "City", "type": "string"},
                        "country": {"title": "Country", "type": "string"},
                        "units": {
                            "default": "c",
                            "enum": ["c", "f"],
                            "title": "Units",
                            "type": "string",
                        },
                    },
                ),
                _tool(
                    "get_stock_price",
                    "Fetch the latest price for a given ticker",
                    {
                        "ticker": {"title": "Ticker", "type": "string"},
                        "exchange": {"title": "Exchange", "type": "string"},
                    },
                ),
            ],
            **STREAM,
        },
    ),
    Demo(
        name="logprobs-top",
        title="Logprobs with top-5 alternatives (made by Streamscope)",
        description="A synthetic stream made by Streamscope: per-token logprobs with 5 "
        "alternatives, two-token chunks, and an emoji split over two byte tokens.",
        profile=Profile(seed=3303, ttft=(300, 560), median_gap=22, stalls=1, split_p=0.04),
        url="streamscope:made/logprobs-top",
        request_note="made by Streamscope: request, stream and timing are all synthetic",
    ),
    Demo(
        name="n3-choices",
        capture="openai-gpt4o-n3-choices.sse",
        title="Three choices at once (n=3, gpt-4o)",
        description="Structured-output JSON for n=3: chunks of choices 0, 1 and 2 "
        "interleaved, one finish per choice, one usage chunk.",
        profile=Profile(
            seed=4404,
            ttft=(420, 680),
            median_gap=30,
            stalls=1,
            split_p=0.04,
            coalesce_p=0.0,
            special=n_choices_special,
        ),
        request={
            "model": "gpt-4o-2024-08-06",
            "messages": SF,
            "n": 3,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "Location", "strict": True, "schema": LOCATION_SCHEMA},
            },
            **STREAM,
        },
    ),
    Demo(
        name="reasoning",
        capture="deepseek-reasoner-reasoning-content.sse",
        title="Reasoning, then the answer (deepseek-reasoner)",
        description="reasoning_content streams first and a little faster, then a pause, then "
        "the answer as content.",
        url="https://api.deepseek.com/chat/completions",
        request_note="written by Streamscope to fit the reasoning (the fixture kept no request)",
        profile=Profile(
            seed=5505,
            ttft=(520, 700),
            median_gap=26,
            reasoning_factor=0.65,
            stalls=2,
            special=reasoning_special,
        ),
        request={
            "model": "deepseek-reasoner",
            "messages": [
                {"role": "user", "content": 'How many "r"s are in the word "strawberry"?'}
            ],
            **STREAM,
        },
    ),
    Demo(
        name="error-midstream",
        capture="groq-gptoss-event-error-midstream.sse",
        title="Error in the middle of the stream (Groq gpt-oss)",
        description="Reasoning deltas, then an 'event: error' (tool_use_failed) and the "
        "connection closes without [DONE].",
        url="https://api.groq.com/openai/v1/chat/completions",
        profile=Profile(
            seed=6606,
            ttft=(250, 340),
            median_gap=15,
            sigma=0.5,
            stalls=1,
            coalesce_p=0.15,
            split_p=0.04,
            special=error_special,
        ),
        # The request body recorded in the cassette, as it was (it had no stream_options).
        request={
            "messages": [
                {
                    "content": "Be concise. Never use pretty double quotes, just regular ones.",
                    "role": "system",
                },
                {
                    "content": 'Please call the "get_something_by_name" tool with non-existent '
                    "parameters to test error handling; on the second try you can use valid args",
                    "role": "user",
                },
            ],
            "model": "openai/gpt-oss-120b",
            "n": 1,
            "stream": True,
            "tool_choice": "auto",
            "tools": [
                {
                    "function": {
                        "description": "",
                        "name": "get_something_by_name",
                        "parameters": {
                            "additionalProperties": False,
                            "properties": {"name": {"type": "string"}},
                            "required": ["name"],
                            "type": "object",
                        },
                    },
                    "type": "function",
                }
            ],
        },
        request_note="recorded with the stream (VCR cassette), as it was",
        end_reason="error",
        end_error="event: error (tool_use_failed); the server closed the stream without [DONE]",
    ),
    Demo(
        name="plain-text",
        capture="openai-gpt4o-long-content.sse",
        title="Plain content at about 50 tokens/s (gpt-4o)",
        description="177 content tokens of JSON-mode text, with newline and whitespace-only "
        "deltas; one read split inside a UTF-8 character.",
        profile=Profile(
            seed=7707, ttft=(350, 550), median_gap=16, sigma=0.38, stalls=1, utf8_split=b"\xc2\xb0"
        ),
        request={
            "model": "gpt-4o-2024-08-06",
            "messages": [
                {"role": "user", "content": "What's the weather like in SF? Give me any JSON back"}
            ],
            "response_format": {"type": "json_object"},
            **STREAM,
        },
    ),
    # One (or two) per dialect: real captures from tests/captures/dialects/, as they are.
    _dialect_demo(
        "anthropic-web-search",
        "anthropic-messages",
        "sse",
        "anthropic-claude-opus-4-1-web-search-citations.sse",
        "Web search, results and citations (Anthropic Messages, claude-opus-4-1)",
        "A server_tool_use web search with its input in fragments, the web_search_tool_result "
        "block next to it, then text blocks citing the results.",
    ),
    _dialect_demo(
        "anthropic-thinking",
        "anthropic-messages",
        "sse",
        "anthropic-claude-sonnet-4-6-code-execution.sse",
        "Signed thinking and code execution (Anthropic Messages, claude-sonnet-4-6)",
        "A thinking block sealed by a signature, a bash code execution server tool and its "
        "result, then the answer.",
    ),
    _dialect_demo(
        "responses-reasoning",
        "openai-responses",
        "sse",
        "responses-openai-o3-mini-reasoning-summary.sse",
        "Reasoning summary in four parts (OpenAI Responses, o3-mini)",
        "reasoning_summary_text in four parts, an encrypted reasoning item, then the message; "
        "reasoning tokens in usage.",
    ),
    _dialect_demo(
        "responses-web-search",
        "openai-responses",
        "sse",
        "responses-openai-gpt-5-web-search.sse",
        "Web search item (OpenAI Responses, gpt-5)",
        "Encrypted reasoning items, a web_search_call with its progress events and its "
        "search, then the message; cached and reasoning tokens.",
    ),
    _dialect_demo(
        "gemini-grounding",
        "gemini",
        "sse",
        "gemini-2-5-pro-web-search-grounding.sse",
        "Google Search grounding (Gemini, gemini-2.5-pro)",
        "Answer text with grounding supports citing the search results, "
        "finishReason STOP, usageMetadata with thoughts and tool-use prompt tokens.",
    ),
    _dialect_demo(
        "gemini-code-execution",
        "gemini",
        "sse",
        "gemini-2-5-flash-code-execution.sse",
        "Code execution (Gemini, gemini-2.5-flash)",
        "Text, an executableCode part and its codeExecutionResult, then the answer.",
    ),
    _dialect_demo(
        "ollama-chat",
        "ollama",
        "jsonl",
        "ollama-chat-gemma3-1b-count.ndjson",
        "Native /api/chat with server timings (Ollama, gemma3:1b)",
        "NDJSON message fragments, then the done line with done_reason and the server's own "
        "durations, shown next to the wire metrics.",
    ),
    _dialect_demo(
        "completions-text",
        "completions",
        "sse",
        "completion-openai-gpt-3-5-turbo-instruct-usage.sse",
        "Legacy completions (gpt-3.5-turbo-instruct)",
        "text_completion chunks, finish_reason length, and a final usage chunk.",
    ),
    _dialect_demo(
        "cohere-thinking",
        "cohere",
        "sse",
        "cohere-unknown-model-thinking.sse",
        "Thinking, then text (Cohere v2 chat)",
        "A thinking content block then a text block, finish_reason COMPLETE, billed and "
        "actual tokens with cached tokens.",
    ),
    _dialect_demo(
        "bedrock-tool-use",
        "bedrock-converse",
        "eventstream",
        "bedrock-converse-claude-3-sonnet-tool-use.eventstream",
        "Text then a tool call (AWS Bedrock ConverseStream, Claude 3 Sonnet)",
        "Binary event-stream frames: text deltas, a toolUse block with its input in "
        "fragments, stopReason tool_use, usage and latency.",
    ),
]
