"""Request and response bodies of the HTTP API: the shared ones are ``longtalk.wire``'s.

This module names them where the service's code and its users have always found them, and
adds what only the server answers (``HealthOut``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from longtalk.wire import (
    AppendIn,
    AppendOut,
    Budget,
    ChatIdIn,
    ChatIn,
    ChatList,
    ChatOut,
    ContextIn,
    ContextOut,
    ContextPartOut,
    Count,
    EpisodeRange,
    FactList,
    FactOut,
    ForgetOut,
    MessageBatch,
    MessageIn,
    MessageList,
    MessageOut,
    Page,
    RememberIn,
    StrategyName,
    SummarizeOut,
    SummaryCreate,
    SummaryList,
    SummaryOut,
    SummaryPatchIn,
    SummaryState,
    Tokens,
    Turns,
    UserFactOut,
    UserMemoryOut,
)

__all__ = [
    "AppendIn",
    "AppendOut",
    "Budget",
    "ChatIdIn",
    "ChatIn",
    "ChatList",
    "ChatOut",
    "ContextIn",
    "ContextOut",
    "ContextPartOut",
    "Count",
    "EpisodeRange",
    "FactList",
    "FactOut",
    "ForgetOut",
    "HealthOut",
    "MessageBatch",
    "MessageIn",
    "MessageList",
    "MessageOut",
    "Page",
    "RememberIn",
    "StrategyName",
    "SummarizeOut",
    "SummaryCreate",
    "SummaryList",
    "SummaryOut",
    "SummaryPatchIn",
    "SummaryState",
    "Tokens",
    "Turns",
    "UserFactOut",
    "UserMemoryOut",
]


class HealthOut(BaseModel):
    """``GET /healthz``."""

    status: Literal["ok", "degraded", "down"]
    checks: dict[str, dict[str, Any]]
