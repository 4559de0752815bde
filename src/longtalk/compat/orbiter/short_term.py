"""Orbiter's ``ShortTermMemory`` (``orbiter.memory.short_term``): the in-memory ``MemoryStore``.

Items are kept in order. A search filters by type, status, scope and a case-insensitive
substring, keeps the last ``max_rounds`` rounds (a round starts at a human item; system
items before the window stay), and never ends on a tool call without its result or on a
result without its call. ``scope`` says how far a metadata filter reaches: ``task`` checks
the task, session and user, ``session`` the session and user, ``user`` the user alone (the
agent is always checked).
"""

from __future__ import annotations

from collections.abc import Sequence

from longtalk.compat.orbiter.base import (
    AIMemory,
    MemoryError,
    MemoryItem,
    MemoryMetadata,
    MemoryStatus,
    ToolMemory,
)

__all__ = ["ShortTermMemory"]

_SCOPE_FIELDS = {
    "user": ("user_id", "agent_id"),
    "session": ("user_id", "session_id", "agent_id"),
    "task": ("user_id", "session_id", "task_id", "agent_id"),
}


class ShortTermMemory:
    """A conversation's items in memory, searched with scope, window and tool integrity."""

    __slots__ = ("_items", "max_rounds", "scope")

    def __init__(self, *, scope: str = "task", max_rounds: int = 0) -> None:
        if scope not in _SCOPE_FIELDS:
            raise MemoryError(f"Invalid scope {scope!r}, must be 'user', 'session', or 'task'")
        self.scope = scope
        self.max_rounds = max_rounds
        self._items: list[MemoryItem] = []

    async def add(self, item: MemoryItem) -> None:
        """Append ``item``."""
        self._items.append(item)

    async def get(self, item_id: str) -> MemoryItem | None:
        """The item with this id, or None."""
        return next((item for item in self._items if item.id == item_id), None)

    async def search(
        self,
        *,
        query: str = "",
        metadata: MemoryMetadata | None = None,
        memory_type: str | None = None,
        status: MemoryStatus | None = None,
        limit: int = 10,
    ) -> list[MemoryItem]:
        """The first ``limit`` matching items of the window, in order."""
        needle = query.lower()
        found = [
            item
            for item in self._items
            if (not memory_type or item.memory_type == memory_type)
            and (not status or item.status == status)
            and (metadata is None or self._in_scope(item.metadata, metadata))
            and needle in item.content.lower()
        ]
        if self.max_rounds > 0:
            found = _last_rounds(found, self.max_rounds)
        return _without_dangling_tools(found)[:limit]

    async def clear(self, *, metadata: MemoryMetadata | None = None) -> int:
        """Remove the items in ``metadata``'s scope (every item without it); how many went."""
        kept = (
            []
            if metadata is None
            else [item for item in self._items if not self._in_scope(item.metadata, metadata)]
        )
        removed = len(self._items) - len(kept)
        self._items = kept
        return removed

    def _in_scope(self, item: MemoryMetadata, wanted: MemoryMetadata) -> bool:
        """Every field the scope reaches and the filter sets is equal on the item."""
        return all(
            not getattr(wanted, name) or getattr(item, name) == getattr(wanted, name)
            for name in _SCOPE_FIELDS[self.scope]
        )

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return (
            f"ShortTermMemory(scope={self.scope!r}, max_rounds={self.max_rounds}, "
            f"items={len(self._items)})"
        )


def _last_rounds(items: Sequence[MemoryItem], rounds: int) -> list[MemoryItem]:
    """The last ``rounds`` rounds, with the system items that came before them."""
    starts = [index for index, item in enumerate(items) if item.memory_type == "human"]
    if len(starts) <= rounds:
        return list(items)
    cut = starts[-rounds]
    return [item for item in items[:cut] if item.memory_type == "system"] + list(items[cut:])


def _without_dangling_tools(items: Sequence[MemoryItem]) -> list[MemoryItem]:
    """Drop trailing tool calls still waiting for results and trailing orphan results."""
    kept = list(items)
    while kept and _dangles(kept[-1], kept[:-1]):
        kept.pop()
    return kept


def _dangles(last: MemoryItem, before: Sequence[MemoryItem]) -> bool:
    if isinstance(last, AIMemory):
        return bool(last.tool_calls)
    if isinstance(last, ToolMemory):
        calls = (item.tool_calls for item in before if isinstance(item, AIMemory))
        return last.tool_call_id not in {call.get("id") for batch in calls for call in batch}
    return False
