"""The rules of Anthropic Messages streams (docs/rules.md)."""

ANTHROPIC = ("anthropic-messages",)
SPEC = "https://docs.anthropic.com/en/docs/build-with-claude/streaming"
