"""The forgetting seam: delete messages now, rewrite what was derived from them durably.

Forgetting is two transactions with a durable record between them. :meth:`begin_forget`
deletes the messages and records the pending forget in one transaction; the engine then
re-derives the summary rows, facts and title without them and :meth:`finish_forget` writes
them and drops the record in another. A process killed in between leaves the record, and
:meth:`pending_forgets` hands it to the next run, which redoes the rewrite (every step is
idempotent). Sequences are never reused: a forgotten message leaves a gap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from longtalk.errors import UsageError
from longtalk.storage.records import ChatRecord, SummaryRow

__all__ = ["ForgetRewrite", "ForgetStore", "PendingForget", "forget_sequences"]


@dataclass(frozen=True, slots=True)
class PendingForget:
    """Messages of one chat deleted whose derived data is not rewritten yet.

    ``sequences`` are every sequence asked for (those already gone included);
    ``deleted`` those whose messages this request deleted.
    """

    chat_id: str
    sequences: tuple[int, ...]
    deleted: tuple[int, ...] = ()
    requested_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class ForgetRewrite:
    """What finishing a forget writes, in one transaction.

    ``rows`` replace summary rows by id, ``cut`` deletes rows by id, ``facts`` are the
    chat's durable facts afterwards, ``title`` its new title (None: unchanged).
    ``expected_summary_version`` guards against a summary commit landing in between.
    """

    chat_id: str
    sequences: tuple[int, ...]
    rows: tuple[SummaryRow, ...] = ()
    cut: tuple[int, ...] = ()
    facts: tuple[Mapping[str, Any], ...] = field(default_factory=tuple)
    title: str | None = None
    expected_summary_version: int | None = None


@runtime_checkable
class ForgetStore(Protocol):
    """Deleting single messages, with a durable record of the rewrite still owed."""

    async def begin_forget(
        self, chat_id: str, sequences: Sequence[int], *, tenant: str | None = None
    ) -> PendingForget:
        """Delete the messages and record the pending forget (merged with one pending).

        ``NotFoundError`` for an unknown chat (or another tenant's).
        """
        ...

    async def pending_forgets(self, chat_id: str | None = None) -> list[PendingForget]:
        """Forgets whose rewrite is still owed (of one chat, or of every chat)."""
        ...

    async def finish_forget(self, rewrite: ForgetRewrite) -> ChatRecord:
        """Write the rewrite and drop the pending record; ``ConflictError`` on a lost race."""
        ...


def forget_sequences(sequences: Sequence[int]) -> tuple[int, ...]:
    """The sequences to forget, sorted and unique; ``UsageError`` naming the field otherwise."""
    if isinstance(sequences, str | bytes) or not sequences:
        raise UsageError("sequences: give at least one message sequence to forget")
    for value in sequences:
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise UsageError(f"sequences: {value!r} is not a message sequence (1 or more)")
    return tuple(sorted(set(sequences)))
