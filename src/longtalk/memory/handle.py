"""What every chat object of the front door and of the HTTP client knows: its record."""

from __future__ import annotations

from longtalk.storage.base import ChatRecord


class ChatHandle:
    """A chat's identity (id, user) read from the record it was opened with."""

    record: ChatRecord
    """The chat's record as last read."""

    def __init__(self, record: ChatRecord) -> None:
        self.record = record

    @property
    def id(self) -> str:
        """The chat id."""
        return self.record.id

    @property
    def user(self) -> str | None:
        """The user the chat belongs to."""
        return self.record.user

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id!r}, user={self.user!r})"
