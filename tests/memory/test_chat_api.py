"""Every door offers the one chat API: ``Memory``, ``AsyncMemory``, ``Client``, ``AsyncClient``.

Each public member of the protocols in ``longtalk.memory.api`` is on each door with the
same parameters (names, kinds, defaults) and the same sync or async form, and a real
instance of each door passes the runtime check. (mypy checks the types, in client.py.)
"""

from __future__ import annotations

import inspect
from typing import Any, Protocol

import pytest

from longtalk import AsyncMemory, Memory
from longtalk.client import AsyncChatClient, AsyncClient, ChatClient, Client
from longtalk.memory import AsyncChat, Chat
from longtalk.memory.api import AsyncChatAPI, AsyncMemoryAPI, ChatAPI, MemoryAPI

DOORS = [
    (MemoryAPI, Memory),
    (MemoryAPI, Client),
    (AsyncMemoryAPI, AsyncMemory),
    (AsyncMemoryAPI, AsyncClient),
    (ChatAPI, Chat),
    (ChatAPI, ChatClient),
    (AsyncChatAPI, AsyncChat),
    (AsyncChatAPI, AsyncChatClient),
]


def members(protocol: type) -> dict[str, Any]:
    """What the protocol and the small protocols it combines declare."""
    dunders = ("__enter__", "__exit__", "__aenter__", "__aexit__")
    found: dict[str, Any] = {}
    for part in reversed(protocol.__mro__):
        if not getattr(part, "_is_protocol", False) or part is Protocol:
            continue
        own = vars(part)
        found |= {name: value for name, value in own.items() if not name.startswith("_")}
        found |= {name: own[name] for name in dunders if name in own}
    return found


def shape(function: Any) -> list[tuple[str, Any, Any]]:
    parameters = inspect.signature(function).parameters.values()
    return [(p.name, p.kind, p.default) for p in parameters]


@pytest.mark.parametrize(("protocol", "door"), DOORS, ids=lambda x: x.__name__)
def test_each_door_has_each_member_in_the_same_shape(protocol: type, door: type) -> None:
    for name, member in members(protocol).items():
        if isinstance(member, property):
            annotated = any(name in vars(k).get("__annotations__", {}) for k in door.__mro__)
            found = inspect.getattr_static(door, name, None)
            assert isinstance(found, property) or annotated, f"{door.__name__} has no {name}"
            continue
        found = inspect.getattr_static(door, name, None)
        assert found is not None, f"{door.__name__} has no {name}"
        assert shape(found) == shape(member), f"{door.__name__}.{name}"
        expected = inspect.iscoroutinefunction(member)
        assert inspect.iscoroutinefunction(found) == expected, f"{door.__name__}.{name}"


def test_the_protocols_name_the_chat_api_and_nothing_door_specific() -> None:
    assert set(members(MemoryAPI)) - {"close", "__enter__", "__exit__"} == set(
        members(AsyncMemoryAPI)
    ) - {"aclose", "__aenter__", "__aexit__"}
    assert set(members(ChatAPI)) == set(members(AsyncChatAPI))
    for protocol in (MemoryAPI, AsyncMemoryAPI, ChatAPI, AsyncChatAPI):
        assert not {"engine", "settle", "summarize"} & set(members(protocol))


async def test_real_doors_pass_the_runtime_check() -> None:
    with Memory("memory:", summarize="off") as memory:
        assert isinstance(memory, MemoryAPI)
        assert isinstance(memory.chat("trip"), ChatAPI)
    async with AsyncMemory("memory:", summarize="off") as aio:
        assert isinstance(aio, AsyncMemoryAPI)
        assert isinstance(await aio.chat("trip"), AsyncChatAPI)
    with Client("http://127.0.0.1:9") as client:  # nothing is sent until a call
        assert isinstance(client, MemoryAPI)
    async with AsyncClient("http://127.0.0.1:9") as aclient:
        assert isinstance(aclient, AsyncMemoryAPI)
