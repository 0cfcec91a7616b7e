"""The dialects that share the chat-completion chunk's rules: chat and legacy completions."""

CHAT_FAMILY = ("chat-completions", "completions")
