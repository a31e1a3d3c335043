"""A spy on the chat store's serialisation of a tool call's large fields.

A call's arguments, preview and result are turned into JSON by ``_call_value`` (in the store's
row and write modules); tests count those calls to prove each is written once, however many
status updates follow.
"""

from __future__ import annotations

from typing import Any

import pytest

from tray_app.store import rows, writes

LARGE_FIELDS = ("arguments", "preview", "result")


def count_serialised(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Each large field serialised from now on: its name and the characters written."""
    written: list[tuple[str, int]] = []
    for module in (writes, rows):
        original = module._call_value

        def counting(name: str, value: Any, original: Any = original) -> Any:
            out = original(name, value)
            if value is not None and name in LARGE_FIELDS:
                written.append((name, len(out)))
            return out

        monkeypatch.setattr(module, "_call_value", counting)
    return written
