"""The OpenAI Responses event types Streamscope reads, and what each is (docs/dialects.md,
"OpenAI Responses"): one place for the names, shared by the interpreter and its detection."""

from __future__ import annotations

# Snapshots of the whole response while it runs, and the final ones with the status they end in.
SNAPSHOTS = frozenset({"response.created", "response.queued", "response.in_progress"})
TERMINAL = {
    "response.completed": "completed",
    "response.incomplete": "incomplete",
    "response.failed": "failed",
}

# Output items that are tool calls whose arguments stream, and the field that is the call's id.
TOOL_ITEMS = {"function_call": "call_id", "mcp_call": "id"}

# Text that accumulates into a field of an item and is neither answer nor reasoning:
# event type -> (the item type it implies, the field, the field numbering its parts, if any).
# A shell call's commands and an apply_patch call's diff are shown on the call's card; the
# done item holds them where they belong (``action.commands``, ``operation.diff``).
BLOCK_TEXT = {
    "response.code_interpreter_call_code.delta": ("code_interpreter_call", "code", None),
    "response.custom_tool_call_input.delta": ("custom_tool_call", "input", None),
    "response.shell_call_command.delta": ("shell_call", "commands", "command_index"),
    "response.apply_patch_call_operation_diff.delta": ("apply_patch_call", "diff", None),
}
# The fields of those that are the item's own text fields, rebuilt from their deltas.
ITEM_TEXT = frozenset({"code", "input"})
# A shell call's command as it is added (it may hold its first text).
COMMAND_ADDED = "response.shell_call_command.added"
# A shell call's output as it streams: what the client's run printed, shown when its
# shell_call_output item is done.
SHELL_OUTPUT = frozenset(
    {"response.shell_call_output_content.delta", "response.shell_call_output_content.done"}
)

# The .done events that repeat a part's whole text: event type -> (what the text is, the
# payload field holding it, the field numbering the part, if any).
DONE_TEXT = {
    "response.output_text.done": ("text", "text", "content_index"),
    "response.refusal.done": ("refusal", "refusal", "content_index"),
    "response.reasoning_summary_text.done": ("summary_text", "text", "summary_index"),
    "response.reasoning_text.done": ("reasoning_text", "text", "content_index"),
    "response.code_interpreter_call_code.done": ("code", "code", None),
    "response.custom_tool_call_input.done": ("input", "input", None),
    "response.shell_call_command.done": ("commands", "command", "command_index"),
    "response.apply_patch_call_operation_diff.done": ("diff", "diff", None),
}

# Progress of server-side tools (and audio), kept as classified payloads: type -> (category,
# what it says).
_TOOL_STATES = {
    "web_search_call": ("in_progress", "searching", "completed"),
    "file_search_call": ("in_progress", "searching", "completed"),
    "code_interpreter_call": ("in_progress", "interpreting", "completed"),
    "image_generation_call": ("in_progress", "generating", "partial_image", "completed"),
    "mcp_call": ("in_progress", "completed", "failed"),
    "mcp_list_tools": ("in_progress", "completed", "failed"),
}
PROGRESS: dict[str, tuple[str, str]] = {
    f"response.{tool}.{state}": ("server_tool", f"{tool} {state.replace('_', ' ')}")
    for tool, states in _TOOL_STATES.items()
    for state in states
}
PROGRESS.update(
    {
        f"response.audio.{what}": ("audio", f"audio {what.replace('.', ' ')}")
        for what in ("delta", "done", "transcript.delta", "transcript.done")
    }
)

META_KEYS = ("id", "object", "created_at", "model", "service_tier")

# Every event type this dialect reads: any of them names a stream as OpenAI Responses.
TYPES = frozenset(
    {
        *SNAPSHOTS,
        *TERMINAL,
        *BLOCK_TEXT,
        *DONE_TEXT,
        *PROGRESS,
        COMMAND_ADDED,
        *SHELL_OUTPUT,
        "response.output_item.added",
        "response.output_item.done",
        "response.content_part.added",
        "response.content_part.done",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_part.done",
        "response.output_text.delta",
        "response.refusal.delta",
        "response.reasoning_summary_text.delta",
        "response.reasoning_text.delta",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.mcp_call_arguments.delta",
        "response.mcp_call_arguments.done",
        "response.output_text.annotation.added",
    }
)
