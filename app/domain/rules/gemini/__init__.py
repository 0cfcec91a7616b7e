"""The rules of Gemini streamGenerateContent streams (docs/rules.md)."""

GEMINI = ("gemini",)
