"""Bulk deletion over HTTP: every chat of one user, or of the caller's whole tenant.

Both go through the engine's deletion (rows, summaries, titles, recall vectors, the vector
store compacted) and end the deleted chats' jobs and event streams. A caller only ever
deletes within its own tenant; deleting the tenant needs ``confirm=<tenant>``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from longtalk.errors import ConflictError
from longtalk.service.errors import ERROR_RESPONSES, ErrorOut
from longtalk.service.memory_routes import UserId
from longtalk.service.routes import LimitsDep, ServiceDep, TenantDep
from longtalk.storage.base import ChatRecord

router = APIRouter(tags=["deletion"], responses=ERROR_RESPONSES)


class DeletionOut(BaseModel):
    """What a bulk deletion removed."""

    tenant: str
    user: str | None = None
    deleted_chats: list[str] = Field(description="Ids of the chats deleted, sorted.")


@router.delete("/users/{user_id}")
async def delete_user(
    user_id: UserId,
    service: ServiceDep,
    tenant: TenantDep,
    limits: LimitsDep,
) -> DeletionOut:
    """Delete every chat of a user of the caller's tenant, with all that belongs to them."""
    limits.user(user_id)
    chats = await service.engine.delete_user(user_id, tenant=tenant)
    return _deleted(service, chats, tenant, user_id)


@router.delete(
    "/tenant",
    responses={409: {"model": ErrorOut, "description": "The confirmation is not the tenant"}},
)
async def delete_tenant(
    service: ServiceDep,
    tenant: TenantDep,
    confirm: Annotated[
        str, Query(max_length=128, description="The caller's tenant name, to confirm.")
    ] = "",
) -> DeletionOut:
    """Delete every chat of the caller's tenant, with all that belongs to them."""
    if confirm != tenant:  # a conflict with the target, not a malformed request: 409
        raise ConflictError(
            f"deleting a whole tenant needs confirm={tenant!r} (the caller's tenant) in the "
            "query; nothing was deleted"
        )
    chats = await service.engine.delete_tenant(tenant)
    return _deleted(service, chats, tenant, None)


def _deleted(
    service: ServiceDep, chats: list[ChatRecord], tenant: str, user: str | None
) -> DeletionOut:
    for chat in chats:
        service.forget(chat)
    return DeletionOut(tenant=tenant, user=user, deleted_chats=[chat.id for chat in chats])
