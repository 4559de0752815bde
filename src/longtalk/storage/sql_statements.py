"""The statements of the turn path, built once with bound parameters.

Building a SQLAlchemy statement (coercions, bind parameters, its cache key) costs several
times what executing it on SQLite does: a commit of one message spent more time
constructing its five statements than running them, on the one writer thread every append
waits for, holding the interpreter lock the event loop needs. These are built on first use
and executed with their parameters; the SQL is the same as before.
"""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import Insert, Select, Update, bindparam, insert, select, update

from longtalk.storage.schema import chats, conversation_summaries, jobs, messages

__all__ = [
    "bump_job",
    "chat_by_id",
    "insert_job",
    "insert_messages",
    "messages_after",
    "messages_by_id",
    "summaries_of",
    "update_chat",
]


@functools.cache
def chat_by_id(lock: bool) -> Select[Any]:
    """The chat row of ``:chat_id`` (``FOR UPDATE`` when ``lock``)."""
    query = select(chats).where(chats.c.id == bindparam("chat_id"))
    return query.with_for_update() if lock else query


@functools.cache
def messages_by_id() -> Select[Any]:
    """The messages of ``:chat_id`` whose ids are in ``:ids``, by sequence."""
    return (
        select(messages)
        .where(
            messages.c.chat_id == bindparam("chat_id"),
            messages.c.message_id.in_(bindparam("ids", expanding=True)),
        )
        .order_by(messages.c.sequence)
    )


@functools.cache
def messages_after(limited: bool) -> Select[Any]:
    """The messages of ``:chat_id`` after ``:after``, by sequence (``:limit`` of them)."""
    query = (
        select(messages)
        .where(messages.c.chat_id == bindparam("chat_id"), messages.c.sequence > bindparam("after"))
        .order_by(messages.c.sequence)
    )
    return query.limit(bindparam("limit")) if limited else query


@functools.cache
def summaries_of(active: bool) -> Select[Any]:
    """Every summary row of ``:chat_id`` by sequence, or the shown chain by episode."""
    table = conversation_summaries
    query = select(table).where(table.c.chat_id == bindparam("chat_id"))
    if active:
        return query.where(table.c.kind != "archived").order_by(
            table.c.episode_first, table.c.sequence
        )
    return query.order_by(table.c.sequence)


@functools.cache
def insert_messages() -> Insert:
    """Insert message rows (executed with one parameter set per message)."""
    return insert(messages)


@functools.cache
def update_chat(columns: tuple[str, ...]) -> Update:
    """Set ``columns`` of ``:chat_id`` (parameters ``new_<column>``), returning the row."""
    values = {name: bindparam(f"new_{name}", type_=chats.c[name].type) for name in columns}
    return (
        update(chats).where(chats.c.id == bindparam("chat_id")).values(values).returning(*chats.c)
    )


@functools.cache
def bump_job() -> Update:
    """Give the ``:job_kind`` job row of ``:job_chat`` a new generation."""
    return (
        update(jobs)
        .where(jobs.c.kind == bindparam("job_kind"), jobs.c.chat_id == bindparam("job_chat"))
        .values(generation=jobs.c.generation + 1)
    )


@functools.cache
def insert_job() -> Insert:
    """Insert a job row (executed with its values)."""
    return insert(jobs)
