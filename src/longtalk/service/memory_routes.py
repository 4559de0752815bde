"""What the memory keeps: about a user across chats, and a chat's own durable facts.

``/users/{user_id}/memory`` reads, adds to and deletes from the items of
``longtalk.storage.user_memory`` for the caller's tenant (facts, preferences, profile lines),
each with its provenance: the chat and messages (first, last sequence) it was taken from,
or none when the application stored it. The routes mirror the library's ``user_memory``,
``remember`` and ``forget``. ``/chats/{chat_id}/facts`` is the chat's durable facts, as
``Chat.facts()``. The web view shows both beside a chat.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from pydantic import Field

from longtalk.core.limits import CHAT_ID_PATTERN
from longtalk.errors import NotFoundError
from longtalk.service.errors import ERROR_RESPONSES, ErrorOut
from longtalk.service.limits import MAX_INT
from longtalk.service.routes import CHAT_ROUTE, ChatDep, LimitsDep, ServiceDep, TenantDep
from longtalk.storage.user_memory import given_fact
from longtalk.wire import FactList, FactOut, ForgetOut, RememberIn, UserFactOut, UserMemoryOut

router = APIRouter(tags=["users"], responses=ERROR_RESPONSES)
ItemId = Annotated[int, Field(ge=0, le=MAX_INT)]
"""A user-memory item's id: what storage and every JSON client hold exactly."""

UserId = Annotated[str, Path(min_length=1)]
"""A user name in a path: checked by the input gate (``Limits.user``) as a chat's ``user``
is, with the configured limits (the schema states them)."""
ITEM_ROUTE: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "No such item for this user"}
}


@router.get("/users/{user_id}/memory")
async def read_user_memory(
    user_id: UserId, service: ServiceDep, tenant: TenantDep, limits: LimitsDep
) -> UserMemoryOut:
    """What is known about a user of the caller's tenant (empty for an unknown user)."""
    limits.user(user_id)
    items = await service.engine.users.items(tenant, user_id)
    return UserMemoryOut(
        tenant=tenant, user=user_id, items=[UserFactOut.of(item) for item in items]
    )


@router.post("/users/{user_id}/memory", status_code=201)
async def remember(
    user_id: UserId, body: RememberIn, service: ServiceDep, tenant: TenantDep, limits: LimitsDep
) -> UserFactOut:
    """Keep one item about a user (``fact``, ``preference`` or ``profile``), as given."""
    limits.user(user_id)
    limits.text("text", body.text, "max_message_chars")
    item = given_fact(body.text, body.kind)
    (stored,) = await service.engine.users.add(tenant, user_id, [item])
    return UserFactOut.of(stored)


@router.delete("/users/{user_id}/memory")
async def forget(
    user_id: UserId,
    service: ServiceDep,
    tenant: TenantDep,
    limits: LimitsDep,
    ids: Annotated[list[ItemId] | None, Query(description="Only these items.")] = None,
    chat_id: Annotated[
        str | None,
        Query(max_length=200, pattern=CHAT_ID_PATTERN, description="Only what this chat left."),
    ] = None,
) -> ForgetOut:
    """Delete what is kept about a user: every item, or only ``ids``, or what ``chat_id`` left."""
    limits.user(user_id)
    limits.chat_id(chat_id)
    gone = await service.engine.users.forget(tenant, user_id, ids=ids, chat_id=chat_id)
    return ForgetOut(tenant=tenant, user=user_id, forgotten=gone)


@router.delete("/users/{user_id}/memory/{item_id}", responses=ITEM_ROUTE)
async def forget_item(
    user_id: UserId,
    item_id: Annotated[int, Path(ge=0, le=MAX_INT)],
    service: ServiceDep,
    tenant: TenantDep,
    limits: LimitsDep,
) -> ForgetOut:
    """Delete one item kept about a user (404 when the user has no such item)."""
    limits.user(user_id)
    gone = await service.engine.users.forget(tenant, user_id, ids=[item_id])
    if not gone:
        raise NotFoundError(f"user {user_id!r} has no memory item {item_id}")
    return ForgetOut(tenant=tenant, user=user_id, forgotten=gone)


@router.get("/chats/{chat_id}/facts", tags=["chats"], responses=CHAT_ROUTE)
async def chat_facts(chat: ChatDep, service: ServiceDep) -> FactList:
    """The chat's durable facts, merged, each with the messages that said it."""
    facts = await service.engine.facts(chat.id, tenant=chat.tenant)
    return FactList(chat_id=chat.id, items=[FactOut.of(fact) for fact in facts])
