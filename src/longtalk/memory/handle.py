"""What every chat object of the front door and of the HTTP client knows: its record."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from longtalk.core.messages import Message, Role, build_message
from longtalk.storage.base import ChatRecord, StoredMessage


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


class ChatHandle(ChatIdentity):
    """An async chat: its record as opened (refreshed on writes), ``append`` over ``extend``.

    A door writes ``extend`` once for its transport; one message is a batch of one.
    """

    record: ChatRecord
    """The chat's record as last read."""

    def __init__(self, record: ChatRecord) -> None:
        self.record = record

    def last_read(self) -> ChatRecord:
        """The chat's record as last read."""
        return self.record

    async def extend(self, messages: Iterable[Message | Mapping[str, Any]]) -> list[StoredMessage]:
        """Store several messages in one transaction (each door's own)."""
        raise NotImplementedError

    async def append(
        self,
        /,
        role: Role | str,
        content: str,
        *,
        name: str | None = None,
        timestamp: datetime | None = None,
        message_id: str | None = None,
        **metadata: Any,
    ) -> StoredMessage:
        """Store one message; ``metadata`` is kept with it.

        ``message_id`` makes a retried append a no-op. The summary follows as the door's
        ``extend`` says: the library's in the background by default (the append never waits
        for the model), the service's in the background when due.
        """
        message = build_message(role, content, name, timestamp, message_id, metadata)
        (stored,) = await self.extend([message])
        return stored
