"""Forgetting messages over HTTP: one by its sequence, or several at once, with a receipt.

Both go through the engine's forget (the messages, then every summary row, digest, fact,
user-memory item, title and recall vector drawn from them) and answer with its receipt.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field

from longtalk.engine import ForgetReceipt
from longtalk.service.errors import ERROR_RESPONSES
from longtalk.service.limits import MAX_INT
from longtalk.service.routes import CHAT_ROUTE, ChatDep, ServiceDep

router = APIRouter(tags=["forgetting"], responses=ERROR_RESPONSES)
MAX_FORGET = 1000
"""Sequences one batch may name."""


class ForgetIn(BaseModel):
    """The messages to forget, by sequence."""

    sequences: list[Annotated[int, Field(ge=1, le=MAX_INT)]] = Field(
        min_length=1, max_length=MAX_FORGET, description="Sequences of the messages to forget."
    )


class ForgetItemOut(BaseModel):
    """One derived artefact and what became of it."""

    artefact: Literal[
        "message",
        "summary row",
        "digest",
        "archived row",
        "fact",
        "user memory",
        "vectors",
        "title",
    ]
    ref: str = Field(description="Which one: an id, a sequence, its provenance; never its text.")
    action: Literal["removed", "rewritten", "cut", "kept"]
    reason: str


class ReceiptOut(BaseModel):
    """What forgetting did, artefact by artefact."""

    chat_id: str
    sequences: list[int]
    resumed: bool = Field(description="True when a later run finished an interrupted forget.")
    items: list[ForgetItemOut]

    @classmethod
    def of(cls, receipt: ForgetReceipt) -> ReceiptOut:
        """The receipt as the service answers it."""
        return cls.model_validate(receipt.to_dict())


@router.delete("/chats/{chat_id}/messages/{sequence}", responses=CHAT_ROUTE)
async def forget_message(
    chat: ChatDep,
    service: ServiceDep,
    sequence: Annotated[int, Path(ge=1, le=MAX_INT)],
) -> ReceiptOut:
    """Forget one message everywhere; the receipt lists every artefact drawn from it."""
    receipt = await service.engine.forget(chat.id, [sequence], tenant=chat.tenant)
    return ReceiptOut.of(receipt)


@router.post("/chats/{chat_id}/messages/forget", responses=CHAT_ROUTE)
async def forget_messages(chat: ChatDep, service: ServiceDep, body: ForgetIn) -> ReceiptOut:
    """Forget several messages everywhere, in one rewrite; the receipt."""
    receipt = await service.engine.forget(chat.id, body.sequences, tenant=chat.tenant)
    return ReceiptOut.of(receipt)
