"""Text appended to a field of an assembled object, delta by delta, joined once at the end.

``target[key] = target[key] + text`` for each delta copies the whole text so far each time:
quadratic in the text's length (a 100k-delta stream copies gigabytes, and ten times the deltas
cost a hundred times as much). ``Appends`` gathers each (object, field)'s pieces instead and
``close()`` joins them: the same strings, in linear time.

The field is set at its first append, so the object's key order is what it was before; its
value is only complete after ``close()``, so an assembler reads these fields only after it.
"""

from __future__ import annotations

from typing import Any


class Appends:
    def __init__(self) -> None:
        self._open: dict[tuple[int, str], list[str]] = {}
        # The targets stay referenced here, so no other object can take their id meanwhile.
        self._fields: list[tuple[dict[str, Any], str, list[str]]] = []
        # The field appended to last: a block's deltas come one after another.
        self._last: tuple[dict[str, Any] | None, str, list[str]] = (None, "", [])

    def add(self, target: dict[str, Any], key: str, text: str) -> None:
        """``target[key] += text``, a value that is not text counting as ""."""
        last_target, last_key, pieces = self._last
        if target is last_target and key == last_key:
            pieces.append(text)
            return
        found = self._open.get((id(target), key))
        if found is None:
            old = target.get(key)
            found = [old if isinstance(old, str) else ""]
            target[key] = found[0]
            self._open[(id(target), key)] = found
            self._fields.append((target, key, found))
        found.append(text)
        self._last = (target, key, found)

    def close(self) -> None:
        """Every appended field gets its whole text."""
        for target, key, pieces in self._fields:
            target[key] = "".join(pieces)
        self._open.clear()
        self._fields.clear()
        self._last = (None, "", [])
