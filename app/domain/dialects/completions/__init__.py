"""OpenAI legacy completions: its interpreter and record (``interpreter.py``), its logprobs
(``logprobs.py``), the fast path (``fast.py``) and runs read in one loop (``run.py``). One
package per dialect (docs/dialects.md, "Adding a dialect")."""

from .interpreter import COMPLETIONS

__all__ = ["COMPLETIONS"]
