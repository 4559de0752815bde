"""The forgetting seam's statements, shared by SQLite and PostgreSQL (SQLAlchemy Core).

Each function runs inside a transaction the backend opened; the chat row is locked first
(``SELECT ... FOR UPDATE`` where the database has it) so a turn's commit and a forget do not
interleave.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from longtalk.errors import ConflictError, NotFoundError
from longtalk.storage.forgetting import ForgetRewrite, PendingForget
from longtalk.storage.records import SummaryPatch
from longtalk.storage.schema import chats, conversation_summaries, forget_requests, messages


def begin(
    conn: Connection, chat_id: str, sequences: Sequence[int], tenant: str | None, now: datetime
) -> PendingForget:
    """Delete the messages, lower the chat's length, record (or widen) the pending forget."""
    chat = _locked_chat(conn, chat_id, tenant)
    where = (messages.c.chat_id == chat_id, messages.c.sequence.in_(list(sequences)))
    found = conn.execute(select(messages.c.sequence, messages.c.content).where(*where)).all()
    deleted = tuple(sorted(int(row.sequence) for row in found))
    if found:
        conn.execute(delete(messages).where(*where))
        chars = max(0, int(chat.content_chars) - sum(len(row.content) for row in found))
        conn.execute(update(chats).where(chats.c.id == chat_id).values(content_chars=chars))
    before = conn.execute(
        select(forget_requests.c.sequences).where(forget_requests.c.chat_id == chat_id)
    ).scalar()
    merged = tuple(sorted({*(before or ()), *sequences}))
    if before is None:
        values = {"chat_id": chat_id, "sequences": list(merged), "requested_at": now}
        conn.execute(insert(forget_requests).values(values))
    else:
        conn.execute(
            update(forget_requests)
            .where(forget_requests.c.chat_id == chat_id)
            .values(sequences=list(merged))
        )
    return PendingForget(chat_id, merged, deleted, now)


def pending(conn: Connection, chat_id: str | None) -> list[PendingForget]:
    """The pending forgets, the oldest first."""
    query = select(forget_requests).order_by(forget_requests.c.requested_at)
    if chat_id is not None:
        query = query.where(forget_requests.c.chat_id == chat_id)
    return [
        PendingForget(row.chat_id, tuple(row.sequences), (), row.requested_at)
        for row in conn.execute(query)
    ]


def finish(conn: Connection, rewrite: ForgetRewrite, now: datetime) -> None:
    """Write the rewritten rows, cut rows, facts and title; drop the pending record."""
    chat = _locked_chat(conn, rewrite.chat_id, None)
    expected = rewrite.expected_summary_version
    if expected is not None and expected != chat.summary_version:
        raise ConflictError(
            f"chat {rewrite.chat_id!r}: the summary changed while forgetting; plan again"
        )
    table = conversation_summaries
    for row in rewrite.rows:
        assert row.id is not None
        conn.execute(
            update(table)
            .where(table.c.id == row.id, table.c.chat_id == rewrite.chat_id)
            .values(**SummaryPatch.from_row(row).values(), version=table.c.version + 1)
            .values(updated_at=now)
        )
    if rewrite.cut:
        conn.execute(
            delete(table).where(table.c.chat_id == rewrite.chat_id, table.c.id.in_(rewrite.cut))
        )
    values: dict[str, Any] = {
        "facts": [dict(fact) for fact in rewrite.facts],
        "summary_version": chats.c.summary_version + 1,
        "updated_at": now,
    }
    if rewrite.title is not None:
        values["title"] = rewrite.title
    conn.execute(update(chats).where(chats.c.id == rewrite.chat_id).values(**values))
    conn.execute(delete(forget_requests).where(forget_requests.c.chat_id == rewrite.chat_id))


def _locked_chat(conn: Connection, chat_id: str, tenant: str | None) -> Any:
    query = select(chats.c.tenant, chats.c.summary_version, chats.c.content_chars).where(
        chats.c.id == chat_id
    )
    if conn.dialect.name != "sqlite":
        query = query.with_for_update()
    row = conn.execute(query).first()
    if row is None or (tenant is not None and row.tenant != tenant):
        raise NotFoundError(f"no chat with id {chat_id!r}")
    return row
