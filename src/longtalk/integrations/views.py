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


class ChatView:
    """What a framework adapter reads back from its chat, and for whom it creates it.

    ``user`` is the chat's user, set when it is created; ``view`` is ``"context"`` (summary
    + recent window) or ``"all"`` messages (checked); for the context view, ``query`` is the
    text recall ranks earlier turns against (none: no recall) and ``budget_tokens`` the
    budget (None: the configuration's).
    """

    def __init__(
        self, user: str | None, view: str, query: str | None, budget_tokens: int | None
    ) -> None:
        self.user = user
        self.view: View = check_view(view)
        self.query = query
        self.budget_tokens = budget_tokens
