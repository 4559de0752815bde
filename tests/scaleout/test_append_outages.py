"""A committed append is never answered 5xx: the database connection cut at every round trip.

The service runs on PostgreSQL behind a proxy (``pg_proxy``) that cuts the connection of
the append's next, second, third... request, either before the server sees it or after it
ran and committed but before its answer comes back. Whatever the cut, the client gets 201
with its messages stored once (and their summary job queued in the same commit), or 503
with nothing stored; a client retrying a 503 (without an ``Idempotency-Key``, or with the
same one) ends with the messages stored exactly once.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import pytest
from pg_proxy import Mode, PgProxy
from service_harness import Harness, SummaryModel, running

from longtalk.config import Settings

COMMIT = "INSERT INTO messages"


def settings(dsn: str) -> Settings:
    return Settings.model_validate(
        {
            "storage": {"url": dsn},
            "vectors": {"url": "null:"},
            "supervisor": {"memory": {"strategy": "running_summary"}},
            "service": {"job_queue": "postgres"},
        }
    )


@asynccontextmanager
async def service_behind(proxy: PgProxy) -> AsyncIterator[Harness]:
    async with running(settings(proxy.dsn), SummaryModel()) as harness:
        if harness.service.recovery is not None:  # its statements are not the append's
            await harness.service.recovery
        await harness.service.jobs.stop()  # job rows stay put: each append's is checked
        yield harness


async def stored(database: str, chat: str) -> tuple[list[str], int]:
    """The chat's message contents and job rows, read past the proxy."""
    db = await asyncpg.connect(database)
    try:
        rows = await db.fetch("SELECT content FROM messages WHERE chat_id = $1", chat)
        jobs = await db.fetchval("SELECT count(*) FROM longtalk_jobs WHERE chat_id = $1", chat)
    finally:
        await db.close()
    return [row["content"] for row in rows], int(jobs)


def ran(request: str) -> bool:
    """True for a request that runs (not prepares) the append's statement."""
    return any(part.startswith("B:") and COMMIT in part for part in request.split(" | "))


def exchange(tag: str) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "user", "content": f"{tag}: which tram goes to Belém?"},
            {"role": "assistant", "content": f"{tag}: tram 15, from Praça da Figueira."},
        ]
    }


async def append_through_a_cut(
    harness: Harness, proxy: PgProxy, database: str, at: int, mode: Mode, key: str | None
) -> tuple[int, str]:
    """One append with the ``at``-th request cut; checks the outcome; (status, cut request)."""
    chat = (await harness.client.post("/chats", json={})).json()["id"]
    tag = uuid.uuid4().hex[:8]
    headers = {"Idempotency-Key": key} if key else {}
    first = len(proxy.requests)
    cut = proxy.cut(at, mode)
    response = await harness.client.post(
        f"/chats/{chat}/messages", json=exchange(tag), headers=headers
    )
    proxy.plans.clear()
    where = proxy.requests[first + at] if cut.done.is_set() else ""
    contents, jobs = await stored(database, chat)
    assert response.status_code in (201, 503), response.text
    if response.status_code == 201:  # acknowledged: stored once, its job queued with it
        assert [c.split(":")[0] for c in contents] == [tag, tag] and jobs == 1
        return 201, where
    assert contents == [] and jobs == 0, f"answered 503 after a commit ({where})"
    retry = await harness.client.post(
        f"/chats/{chat}/messages", json=exchange(tag), headers=headers
    )
    assert retry.status_code == 201, retry.text
    contents, jobs = await stored(database, chat)
    assert len(contents) == 2 and jobs == 1  # the client's retry stored it once
    return 503, where


@pytest.mark.parametrize("key", [None, "retry-key"], ids=["no-key", "idempotency-key"])
async def test_an_outage_at_any_round_trip_never_loses_or_doubles_an_append(
    database: str, key: str | None
) -> None:
    async with PgProxy(database) as proxy, service_behind(proxy) as harness:
        chat = (await harness.client.post("/chats", json={})).json()["id"]
        first = len(proxy.requests)
        await harness.client.post(f"/chats/{chat}/messages", json=exchange("dry run"))
        steps = proxy.requests[first:]  # (a ping), the statement (prepared first)
        assert sum(ran(step) for step in steps) == 1
        seen: list[tuple[int, Mode, int, str]] = []
        for at in range(len(steps) + 1):  # and the check that follows a lost answer
            for mode in ("request", "answer"):
                tag = f"{key}-{at}-{mode}" if key else None
                status, where = await append_through_a_cut(harness, proxy, database, at, mode, tag)
                seen.append((at, mode, status, where))
        cuts = [(mode, status) for _, mode, status, where in seen if where]
        assert len(cuts) >= 2 * len(steps)  # every step was cut, both ways
        runs = [(mode, status) for _, mode, status, where in seen if ran(where)]
        assert ("answer", 201) in runs, seen  # it ran: the answer was lost, the client got 201
        assert ("request", 503) in runs  # it never ran: 503, and the retry stored it


async def test_the_check_after_a_lost_answer_survives_a_second_cut(database: str) -> None:
    async with PgProxy(database) as proxy, service_behind(proxy) as harness:
        warm = (await harness.client.post("/chats", json={})).json()["id"]
        await harness.client.post(f"/chats/{warm}/messages", json=exchange("warm"))
        chat = (await harness.client.post("/chats", json={})).json()["id"]
        first = len(proxy.requests)
        commit, check = proxy.cut(0, "answer"), proxy.cut(1, "request")
        response = await harness.client.post(f"/chats/{chat}/messages", json=exchange("twice"))
        assert commit.done.is_set() and check.done.is_set()
        assert COMMIT in proxy.requests[first]
        assert response.status_code == 201, response.text
        contents, jobs = await stored(database, chat)
        assert len(contents) == 2 and jobs == 1
