"""Values in and out of the single PostgreSQL statements (``queries``).

Nested collections come back as JSON (the driver decodes ``json`` columns): messages,
summary rows and user-memory items as arrays in the column order of ``queries``, chats
from ``row_to_json`` with their timestamps as text. What goes in travels as arrays, one
per column, so a statement's text is the same however many messages or rows it writes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from longtalk.core.messages import Message
from longtalk.errors import NotFoundError
from longtalk.storage.base import check_commit, check_tenant, retry_of
from longtalk.storage.postgres.queries import MESSAGE_COLUMNS, SUMMARY_COLUMNS, USER_COLUMNS
from longtalk.storage.records import (
    ChatRecord,
    ChatState,
    CommitResult,
    StoredMessage,
    SummaryPatch,
    SummaryRow,
    TurnCommit,
    UserFact,
)
from longtalk.storage.sql import chat_record, stored_message, summary_row
from longtalk.storage.user_memory_rows import user_fact

_TIMES = ("created_at", "updated_at", "retry_at")


def utc(value: str | datetime | None) -> datetime | None:
    """A timestamp as JSON text (or a driver's datetime) as an aware UTC datetime."""
    if value is None:
        return None
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def chat_of_json(data: Mapping[str, Any]) -> ChatRecord:
    """A chat from ``row_to_json`` of its columns."""
    return chat_record({**data, **{name: utc(data.get(name)) for name in _TIMES}})


def message_of(chat_id: str, item: Sequence[Any]) -> StoredMessage:
    """A stored message from ``queries.MESSAGE_JSON``."""
    row = dict(zip(MESSAGE_COLUMNS, item, strict=True))
    stamp = row["timestamp"]
    moment = None if stamp is None else datetime.fromisoformat(stamp)
    return stored_message({**row, "chat_id": chat_id, "timestamp": moment})


def summary_of(chat_id: str, item: Sequence[Any]) -> SummaryRow:
    """A summary row from ``queries.SUMMARY_JSON``."""
    row = dict(zip(SUMMARY_COLUMNS, item, strict=True))
    times = {name: utc(row[name]) for name in ("created_at", "updated_at")}
    return summary_row({**row, **times, "chat_id": chat_id})


def user_fact_of(item: Sequence[Any]) -> UserFact:
    """A user-memory item from ``queries.USER_JSON``."""
    row = dict(zip(USER_COLUMNS, item, strict=True))
    return user_fact({**row, "created_at": utc(row["created_at"])})


def state_of(row: Mapping[str, Any], *, users: bool = False) -> ChatState:
    """A chat's state from the columns of ``queries.LOAD_STATE`` (or ``CLAIM_JOB``)."""
    chat = chat_record(row)
    summaries = tuple(summary_of(chat.id, item) for item in row["summaries"] or ())
    messages = tuple(message_of(chat.id, item) for item in row["messages"] or ())
    known = tuple(user_fact_of(item) for item in row["users"] or ()) if users else None
    return ChatState(chat, summaries, messages, tuple(row["facts"] or ()), known)


def message_arrays(new: Sequence[Message]) -> list[list[str | None]]:
    """The new messages as one array per column (``COMMIT_TURN``'s $5-$12)."""
    return [
        [m.id for m in new],
        [m.role.value for m in new],
        [m.content for m in new],
        [m.name for m in new],
        [m.type.value for m in new],
        [json.dumps(list(m.tool_call_ids)) for m in new],
        [None if m.timestamp is None else m.timestamp.isoformat() for m in new],
        [json.dumps(m.metadata) for m in new],
    ]


def row_arrays(rows: Sequence[SummaryRow], *, ids: bool) -> list[list[str | None]]:
    """Summary rows as one text array per column (with their ids first when ``ids``).

    Numbers travel as text, cast back by the statement: the driver knows text arrays
    without asking the server (an integer array type costs a type lookup per connection).
    """
    patches = [SummaryPatch.from_row(row) for row in rows]
    columns: list[list[str | None]] = [
        [p.summary_text for p in patches],
        [p.format for p in patches],
        [_text(p.episode_first) for p in patches],
        [_text(p.episode_last) for p in patches],
        [_text(p.turn_number) for p in patches],
        [_text(p.token_count) for p in patches],
        [p.kind for p in patches],
    ]
    return [[_text(row.id) for row in rows], *columns] if ids else columns


def _text(number: int | None) -> str | None:
    return None if number is None else str(number)


def commit_params(
    commit: TurnCommit,
    ids: Sequence[str],
    *,
    now: datetime,
    notes: Sequence[list[str]] = ([], []),
) -> list[Any]:
    """``COMMIT_TURN``'s parameters for ``commit``.

    ``notes`` are the riding notifications (channels, payloads).
    """
    new = commit.append.messages
    patch = [row for row in commit.summary.rows if row.id is not None]
    insert = [row for row in commit.summary.rows if row.id is None]
    run = commit.record.run
    failed = run is not None and run.failure is not None
    mode, facts_json, numbered_for = _facts(commit)
    return [
        commit.chat_id,
        commit.tenant,
        commit.incarnation,
        list(ids),
        *message_arrays(new),
        len(new),
        now,
        all(row.chat_id == commit.chat_id for row in commit.summary.rows),
        commit.summary.changes,
        commit.summary.expected_version,
        commit.summary.last_summarized_sequence,
        mode,
        facts_json,
        numbered_for,
        commit.record.title,
        commit.record.title_source,
        sum(len(m.content) for m in new),
        run is not None,
        *row_arrays(patch, ids=True),
        *row_arrays(insert, ids=False),
        run.calls if run else 0,
        run.input_tokens if run else 0,
        run.output_tokens if run else 0,
        run.failure if run else None,
        run.error if failed and run else None,
        run.retry_at if failed and run else None,
        commit.append.enqueue,
        *notes,
        run.retry_volume if failed and run else 0,
        commit.record.facts_read,
    ]


@dataclass(frozen=True, slots=True)
class TurnAnswer:
    """What the turn's statement answered, decoded, and what that means for the commit.

    ``before`` is None when there is no such chat; ``fresh`` is False when the statement
    ran on a stale snapshot and must run again; ``found`` are the stored messages with the
    commit's ids; ``written`` is the result when the statement wrote the turn (None: a guard
    failed or a row is missing); ``targets`` are the ids of the summary rows it found.
    """

    before: ChatRecord | None
    fresh: bool
    found: tuple[StoredMessage, ...]
    written: CommitResult | None
    targets: frozenset[int]

    def result(self, commit: TurnCommit) -> CommitResult | None:
        """The commit's result (a retry's: the earlier one), or None when it must run again.

        Raises as every turn writer does: another tenant's or a missing chat, a failed
        guard, a summary row the chat does not have.
        """
        if self.before is None:
            raise NotFoundError(
                f"no chat with id {commit.chat_id!r}; create it first with create_chat()"
            )
        if not self.fresh:  # a stale snapshot: again (another tenant's chat is refused now)
            check_tenant(self.before, commit)
            return None
        if (retry := retry_of(self.before, commit, self.found)) is not None:
            return retry
        if self.written is None:  # nothing written: a guard failed, or a row is missing
            check_commit(self.before, commit)
            rows = commit.summary.rows
            missing = [r.id for r in rows if r.id is not None and r.id not in self.targets]
            if missing:
                raise NotFoundError(
                    f"chat {self.before.id!r} has no summary row with id {missing[0]}"
                )
        return self.written


def turn_answer(commit: TurnCommit, row: Mapping[str, Any]) -> TurnAnswer:
    """The turn statement's row (``queries.COMMIT_TURN``) as a :class:`TurnAnswer`."""
    if row["before"] is None:
        return TurnAnswer(None, bool(row["fresh"]), (), None, frozenset())
    before = chat_of_json(row["before"])
    found = tuple(message_of(before.id, item) for item in row["found"] or ())
    written = None if row["after"] is None else _written_turn(commit, row)
    return TurnAnswer(before, bool(row["fresh"]), found, written, frozenset(row["targets"] or ()))


def landed_turn(
    commit: TurnCommit, chat: Mapping[str, Any] | None, found: Sequence[Any] | None
) -> CommitResult | None:
    """The commit's result when it landed after all; else None.

    ``found`` are the messages stored at the commit's timestamp (``queries.MESSAGES_AT``);
    they are the commit's when they are the ones it sent. ``chat`` is ``queries.GET_CHAT``'s.
    """
    stored = tuple(message_of(commit.chat_id, item) for item in found or ())
    sent = [(m.role, m.content) for m in commit.append.messages]
    if chat is None or [(s.message.role, s.message.content) for s in stored] != sent:
        return None
    return CommitResult(chat_record(chat), stored, ())


def _written_turn(commit: TurnCommit, row: Mapping[str, Any]) -> CommitResult:
    """The result of a turn the statement wrote."""
    chat = chat_of_json(row["after"])
    first = chat.message_count - len(commit.append.messages) + 1
    stored = tuple(
        StoredMessage(chat.id, first + i, message)
        for i, message in enumerate(commit.append.messages)
    )
    return CommitResult(chat, stored, _rows_in_order(commit, row))


def _facts(commit: TurnCommit) -> tuple[str, str | None, int | None]:
    """How the turn changes the chat's facts: (keep | replace | append, JSON, numbered for).

    Found facts carry the sequences their messages get; the statement writes them only if
    the chat still has the message count they were numbered for.
    """
    found = commit.append.found_facts
    added = found.facts if found is not None and commit.append.messages else ()
    guard = found.numbered_for if found is not None and added else None
    if commit.record.facts is not None:
        return "replace", json.dumps([dict(f) for f in (*commit.record.facts, *added)]), guard
    if added:
        return "append", json.dumps([dict(f) for f in added]), guard
    return "keep", None, None


def _rows_in_order(commit: TurnCommit, row: Mapping[str, Any]) -> tuple[SummaryRow, ...]:
    """The written summary rows in the commit's order (patched by id, new by sequence)."""
    patched = {item[0]: summary_of(commit.chat_id, item) for item in row["patched"] or ()}
    inserted = sorted(
        (summary_of(commit.chat_id, item) for item in row["inserted"] or ()),
        key=lambda summary: summary.sequence,
    )
    new_rows = iter(inserted)
    return tuple(
        patched[summary.id] if summary.id is not None else next(new_rows)
        for summary in commit.summary.rows
    )
