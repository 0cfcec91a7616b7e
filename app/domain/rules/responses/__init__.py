"""The rules of OpenAI Responses streams (docs/rules.md)."""

RESPONSES = ("openai-responses",)
SPEC = "https://platform.openai.com/docs/api-reference/responses-streaming"
