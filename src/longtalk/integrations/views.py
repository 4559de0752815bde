"""What a framework adapter reads back from a chat: the bounded context, or every message."""

from __future__ import annotations

from typing import Literal

from longtalk.errors import UsageError

View = Literal["context", "all"]


def check_view(view: str) -> View:
    """``view`` when it is ``"context"`` or ``"all"``; else a ``UsageError`` naming it."""
    if view == "context":
        return "context"
    if view == "all":
        return "all"
    raise UsageError(f"view must be 'context' or 'all', not {view!r}")
