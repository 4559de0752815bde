"""Summary states across replicas: a job whose replica was killed does not look busy forever."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

import asyncpg
import httpx
from cluster import Cluster, config_text

from longtalk.testing import ChatCompletionsServer


async def summary_state(client: httpx.AsyncClient, chat: str) -> str:
    response = await client.get(f"/chats/{chat}")
    assert response.status_code == 200, response.text
    return str(response.json()["summary_state"])


async def wait_state(client: httpx.AsyncClient, chat: str, state: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while (found := await summary_state(client, chat)) != state:
        assert time.monotonic() < deadline, f"the chat stayed {found!r}, not {state!r}"
        await asyncio.sleep(0.1)


async def test_a_killed_replicas_running_job_does_not_stay_summarizing(
    database: str, tmp_path: Path
) -> None:
    llm = ChatCompletionsServer(latency=30.0).start()  # the forced job is still running when killed
    config = tmp_path / "agents.yaml"
    text = config_text(database, llm.url)  # only forced summaries: the trigger is never reached
    config.write_text(text.replace("summary_trigger_tokens: 60", "summary_trigger_tokens: 1000000"))
    cluster = Cluster(config)
    cluster.migrate()
    try:
        await cluster.up(2)
        victim, survivor = cluster.replicas
        async with (
            httpx.AsyncClient(base_url=victim.url, timeout=60) as doomed,
            httpx.AsyncClient(base_url=survivor.url, timeout=10) as client,
        ):
            chat = (await client.post("/chats", json={})).json()["id"]
            for day in range(3):
                body = {
                    "messages": [
                        {"role": "user", "content": f"Book the tram tour in Lisbon on day {day}."},
                        {"role": "assistant", "content": f"Tram 28 is booked for day {day}."},
                    ]
                }
                response = await client.post(f"/chats/{chat}/messages", json=body)
                assert response.status_code == 201, response.text
            forced = asyncio.create_task(doomed.post(f"/chats/{chat}/summarize"))
            await wait_state(client, chat, "summarizing", timeout=20)  # relayed from the victim
            deadline = time.monotonic() + 20
            while llm.in_flight.get(victim.key) != 1:  # the victim's LLM call is under way
                assert time.monotonic() < deadline
                await asyncio.sleep(0.05)
            cluster.kill(0)  # kill -9 mid-job: it never reports the job's end
            with contextlib.suppress(httpx.TransportError):
                await forced
            # once the dead replica's lease ends the job row is no longer held: idle again
            await wait_state(client, chat, "idle", timeout=20)
            assert (await client.get(f"/chats/{chat}")).json()["summary_version"] == 0
        connection = await asyncpg.connect(database)
        try:  # the survivor takes the job, finds nothing due and drops it
            deadline = time.monotonic() + 20
            while await connection.fetchval("SELECT count(*) FROM longtalk_jobs"):
                assert time.monotonic() < deadline, "the dead replica's job was never taken"
                await asyncio.sleep(0.1)
        finally:
            await connection.close()
    finally:
        cluster.stop()
        llm.stop()
