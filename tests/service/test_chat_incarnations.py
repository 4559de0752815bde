"""A chat id deleted by one tenant and created by another: the old chat's job and stream end.

Tenant A deletes chat ``x`` while its summary job waits on the model, tenant B creates ``x``:
A's job must not write A's summary into B's chat, and A's open event stream must end
instead of receiving B's events.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from service_harness import Harness, SummaryModel, exchange, make_settings, running

A = {"Authorization": "Bearer key-a"}
B = {"Authorization": "Bearer key-b"}
KEYS = {"key-a": "tenant-a", "key-b": "tenant-b"}


async def stream(api: Harness, chat: str, headers: dict[str, str], into: list[Any]) -> None:
    """Read the chat's events until the server ends the stream."""
    async with api.client.stream("GET", f"/chats/{chat}/events", headers=headers) as response:
        assert response.status_code == 200
        kind = ""
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                into.append((kind, json.loads(line[6:])))


async def test_the_deleted_chats_job_and_stream_never_reach_the_new_chat(
    tmp_path: Path, model: SummaryModel
) -> None:
    settings = make_settings(tmp_path, keys=KEYS)
    async with running(settings, model, transport="uvicorn") as api:
        assert (await api.client.post("/chats", json={"id": "x"}, headers=A)).status_code == 201
        seen: list[Any] = []
        listener = asyncio.create_task(stream(api, "x", A, seen))
        while api.service.hub.subscribers("x") == 0:
            await asyncio.sleep(0.01)
        model.hold()
        for number in range(2):
            body = {"messages": exchange(number)}
            response = await api.client.post("/chats/x/messages", json=body, headers=A)
            assert response.status_code == 201
        await asyncio.wait_for(model.entered.wait(), 5)  # A's job is planning
        assert (await api.client.delete("/chats/x", headers=A)).status_code == 204
        await asyncio.wait_for(listener, 5)  # the deleted chat's stream ended
        assert (await api.client.post("/chats", json={"id": "x"}, headers=B)).status_code == 201
        short = {"messages": [{"role": "user", "content": f"b{i}"} for i in range(6)]}
        assert (
            await api.client.post("/chats/x/messages", json=short, headers=B)
        ).status_code == 201
        model.release()
        await api.settle()
        chain = (await api.client.get("/chats/x/summaries", headers=B)).json()["items"]
        assert chain == []  # A's summary of A's messages is not in B's chat
        chat = (await api.client.get("/chats/x", headers=B)).json()
        assert chat["last_summarized_sequence"] == 0 and chat["summary_state"] == "idle"
        assert [kind for kind, _ in seen] == ["state", "appended", "appended", "summarizing"]
        assert all(data.get("message_count") in (None, 2, 4) for _, data in seen)


async def test_a_stream_of_the_new_chat_gets_only_its_own_events(
    tmp_path: Path, model: SummaryModel
) -> None:
    async with running(make_settings(tmp_path, keys=KEYS), model, transport="uvicorn") as api:
        await api.client.post("/chats", json={"id": "x"}, headers=A)
        await api.client.delete("/chats/x", headers=A)
        await api.client.post("/chats", json={"id": "x"}, headers=B)
        seen: list[Any] = []
        listener = asyncio.create_task(stream(api, "x", B, seen))
        while api.service.hub.subscribers("x") == 0:
            await asyncio.sleep(0.01)
        one = {"role": "user", "content": "hello"}
        assert (await api.client.post("/chats/x/messages", json=one, headers=B)).status_code == 201
        for _ in range(200):
            if len(seen) == 2:
                break
            await asyncio.sleep(0.01)
        assert [(kind, data["message_count"]) for kind, data in seen] == [
            ("state", None),
            ("appended", 1),
        ]
        await api.client.delete("/chats/x", headers=B)
        await asyncio.wait_for(listener, 5)
        missing = await api.client.get("/chats/x/events", headers=B)
        assert missing.status_code == 404
