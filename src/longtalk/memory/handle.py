"""What every chat object of the front door and of the HTTP client knows: its record."""

from __future__ import annotations

from longtalk.memory.api import AsyncChatWriting
from longtalk.storage.base import ChatRecord


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
    :class:`~longtalk.memory.api.AsyncChatWriting`'s.
    """

    record: ChatRecord
    """The chat's record as last read."""

    def __init__(self, record: ChatRecord) -> None:
        self.record = record

    def last_read(self) -> ChatRecord:
        """The chat's record as last read."""
        return self.record
