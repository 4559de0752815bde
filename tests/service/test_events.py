"""The event hub and the auth helpers on their own."""

from __future__ import annotations

import asyncio
import json

import pytest

from longtalk.config import ServiceConfig
from longtalk.service.auth import Authenticator, AuthError, bind_host
from longtalk.service.event_hub import QUEUE_SIZE, ChatEvent, EventHub


async def test_subscribers_get_their_chat_only_with_heartbeats() -> None:
    hub = EventHub()
    stream = hub.subscribe("a", ChatEvent("state", "a", "idle"), heartbeat=0.05)
    first = await anext(stream)
    assert (
        first.startswith("event: state\n")
        and json.loads(first.split("data: ")[1])["chat_id"] == "a"
    )
    hub.publish(ChatEvent("summarizing", "b", "summarizing"))
    hub.publish(ChatEvent("summarized", "a", "idle", [(1, 4)], summary_version=3))
    frame = await anext(stream)
    data = json.loads(frame.split("data: ")[1])
    assert frame.startswith("event: summarized\n")
    assert data == {
        "chat_id": "a",
        "state": "idle",
        "episode_ranges": [[1, 4]],
        "error": None,
        "summary_version": 3,
        "message_count": None,
    }
    assert await anext(stream) == ": keep-alive\n\n"
    hub.close()
    with pytest.raises(StopAsyncIteration):
        await anext(stream)
    assert hub.subscribers("a") == 0


async def test_a_slow_subscriber_drops_events_instead_of_blocking() -> None:
    hub = EventHub()
    stream = hub.subscribe("a", ChatEvent("state", "a", "idle"), heartbeat=0.05)
    await anext(stream)
    for count in range(1, QUEUE_SIZE + 51):
        hub.publish(ChatEvent("appended", "a", "idle", message_count=count))  # never blocks
    frames = [await asyncio.wait_for(anext(stream), 1) for _ in range(QUEUE_SIZE)]
    counts = [json.loads(frame.split("data: ")[1])["message_count"] for frame in frames]
    assert counts == list(range(1, QUEUE_SIZE + 1))  # the overflow was dropped, in order
    assert await anext(stream) == ": keep-alive\n\n"
    await stream.aclose()
    assert hub.subscribers("a") == 0


def test_authenticator() -> None:
    auth = Authenticator({"k1": "acme", "k2": "globex"})
    assert auth.tenant_for("k2") == "globex" and auth.tenants() == ["acme", "globex"]
    with pytest.raises(AuthError, match="required"):
        auth.tenant_for(None)
    with pytest.raises(AuthError, match="unknown"):
        auth.tenant_for("k3")
    assert Authenticator({}).tenant_for(None) == "default"
    assert bind_host(ServiceConfig(host="0.0.0.0")) == "127.0.0.1"
    assert bind_host(ServiceConfig(api_keys={"k": "t"}), "10.0.0.5") == "10.0.0.5"
