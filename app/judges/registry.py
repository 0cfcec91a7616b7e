"""Every client judge, in one list (docs/judges.md, "The judges"): which client, which of its
APIs reads the stream, the dialects it speaks (``Stream.dialect_name``), and how it is run. A
judge is run only on the streams of a dialect it speaks."""

from __future__ import annotations

from dataclasses import dataclass

CHAT = "chat-completions"
RESPONSES = "openai-responses"
ANTHROPIC = "anthropic-messages"
GEMINI = "gemini"


@dataclass(frozen=True)
class Judge:
    """``client`` and ``api`` as the verdict names them; ``package`` is the distribution (PyPI)
    or the npm package whose version the verdict reports; ``runtime`` is "python" (``target``:
    a module of app/judges run by child.py) or "node" (``target``: node/judge.mjs's provider)."""

    client: str
    api: str
    dialect: str
    runtime: str
    target: str
    package: str


JUDGES: tuple[Judge, ...] = (
    Judge("openai-python", "chat.completions.stream", CHAT, "python", "openai_python", "openai"),
    Judge("openai-python", "responses.stream", RESPONSES, "python", "openai_python", "openai"),
    Judge(
        "anthropic-python", "messages.stream", ANTHROPIC, "python", "anthropic_python", "anthropic"
    ),
    Judge(
        "langchain-openai",
        "ChatOpenAI.stream",
        CHAT,
        "python",
        "langchain_openai",
        "langchain-openai",
    ),
    Judge(
        "@ai-sdk/openai", "streamText openai.chat", CHAT, "node", "openai-chat", "@ai-sdk/openai"
    ),
    Judge(
        "@ai-sdk/openai",
        "streamText openai.responses",
        RESPONSES,
        "node",
        "openai-responses",
        "@ai-sdk/openai",
    ),
    Judge(
        "@ai-sdk/openai-compatible",
        "streamText openaiCompatible.chatModel",
        CHAT,
        "node",
        "openai-compatible",
        "@ai-sdk/openai-compatible",
    ),
    Judge(
        "@ai-sdk/anthropic",
        "streamText anthropic",
        ANTHROPIC,
        "node",
        "anthropic",
        "@ai-sdk/anthropic",
    ),
    Judge("@ai-sdk/google", "streamText google", GEMINI, "node", "google", "@ai-sdk/google"),
)


def judges_for(dialect: str | None) -> list[Judge]:
    """The judges that speak ``dialect``, in the list's order."""
    return [judge for judge in JUDGES if judge.dialect == dialect]
