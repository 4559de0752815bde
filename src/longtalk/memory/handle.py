"""What every chat object of the front door and of the HTTP client knows: its record."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from longtalk.memory.api import AsyncChatWriting
from longtalk.storage.base import ChatRecord

if TYPE_CHECKING:
    from longtalk.core.context import Context


class ContextNumbers(TypedDict):
    """One context request's overrides of the configuration (None: the configured value)."""

    budget_tokens: int | None
    recent_turns: int | None
    summary_max_tokens: int | None


class ChatIdentity:
    """A chat's identity (id, user), read from the record last read (never read anew)."""

    def last_read(self) -> ChatRecord:
        """The chat's record as last read."""
        raise NotImplementedError

    @property
    def id(self) -> str:
        """The chat id."""
        return self.last_read().id

    @property
    def user(self) -> str | None:
        """The user the chat belongs to."""
        return self.last_read().user

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id!r}, user={self.user!r})"


class ChatHandle(ChatIdentity, AsyncChatWriting):
    """An async chat: its record as opened (refreshed on writes), ``append`` over ``extend``.

    A door writes ``extend`` once for its transport; ``append``, a batch of one, is
    :class:`~longtalk.memory.api.AsyncChatWriting`'s. Likewise it writes ``read_context``
    and inherits ``context``, whose keywords are declared here once for every door.
    """

    record: ChatRecord
    """The chat's record as last read."""

    def __init__(self, record: ChatRecord) -> None:
        self.record = record

    def last_read(self) -> ChatRecord:
        """The chat's record as last read."""
        return self.record

    async def context(
        self,
        query: str | None = None,
        *,
        budget_tokens: int | None = None,
        recent_turns: int | None = None,
        summary_max_tokens: int | None = None,
    ) -> Context:
        """The context for ``query``: [durable facts] [recalled turns] [summary] [recent window].

        Without a query nothing is recalled. The numbers default to the configuration.
        """
        numbers = ContextNumbers(
            budget_tokens=budget_tokens,
            recent_turns=recent_turns,
            summary_max_tokens=summary_max_tokens,
        )
        return await self.read_context(query, numbers)

    async def read_context(self, query: str | None, numbers: ContextNumbers) -> Context:
        """The door's transport for :meth:`context`."""
        raise NotImplementedError
