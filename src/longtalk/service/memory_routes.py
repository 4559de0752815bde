"""What the memory keeps about a user across chats, read-only: ``GET /users/{user}/memory``.

The items of ``longtalk.storage.user_memory`` for the caller's tenant (facts, preferences,
profile lines), each with its provenance: the chat and summary episodes it was taken from,
or none when the application stored it. The web view shows them beside a chat of the user.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field

from longtalk.service.errors import ERROR_RESPONSES
from longtalk.service.routes import ServiceDep, TenantDep
from longtalk.storage.user_memory import Origin, UserFact, UserFactKind, user_memory_for

router = APIRouter(tags=["users"], responses=ERROR_RESPONSES)


class UserFactOut(BaseModel):
    """One item known about a user, and where it came from."""

    id: int | None
    kind: UserFactKind
    text: str
    origin: Origin = Field(description="derived: taken from a chat's summary; given: stored.")
    chat_id: str | None
    episodes: tuple[int, int] = Field(description="The summary episodes it was taken from.")
    created_at: datetime | None

    @classmethod
    def of(cls, fact: UserFact) -> UserFactOut:
        """From a stored item."""
        return cls(
            id=fact.id,
            kind=fact.kind,
            text=fact.text,
            origin=fact.origin,
            chat_id=fact.chat_id,
            episodes=fact.episodes,
            created_at=fact.created_at,
        )


class UserMemoryOut(BaseModel):
    """A user's items, oldest first."""

    tenant: str
    user: str
    items: list[UserFactOut]


@router.get("/users/{user_id}/memory")
async def read_user_memory(
    user_id: Annotated[str, Path(min_length=1, max_length=128)],
    service: ServiceDep,
    tenant: TenantDep,
) -> UserMemoryOut:
    """What is known about a user of the caller's tenant (empty for an unknown user)."""
    items = await user_memory_for(service.engine.storage).items(tenant, user_id)
    return UserMemoryOut(
        tenant=tenant, user=user_id, items=[UserFactOut.of(item) for item in items]
    )
