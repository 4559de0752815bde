"""Forgetting messages over HTTP: one by its sequence, or several at once, with a receipt.

Both go through the engine's forget (the messages, then every summary row, digest, fact,
user-memory item, title and recall vector drawn from them) and answer with its receipt.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from longtalk.service.errors import ERROR_RESPONSES
from longtalk.service.limits import MAX_INT
from longtalk.service.routes import CHAT_ROUTE, ChatDep, ServiceDep
from longtalk.wire.forgetting import ForgetFactIn, ForgetIn, ReceiptOut

router = APIRouter(tags=["forgetting"], responses=ERROR_RESPONSES)


@router.delete("/chats/{chat_id}/messages/{sequence}", responses=CHAT_ROUTE)
async def forget_message(
    chat: ChatDep,
    service: ServiceDep,
    sequence: Annotated[int, Path(ge=1, le=MAX_INT)],
) -> ReceiptOut:
    """Forget one message everywhere; the receipt lists every artefact drawn from it."""
    receipt = await service.engine.forget(chat.id, [sequence], tenant=chat.tenant)
    return ReceiptOut.of(receipt)


@router.post("/chats/{chat_id}/forget", responses=CHAT_ROUTE)
async def forget_messages(chat: ChatDep, service: ServiceDep, body: ForgetIn) -> ReceiptOut:
    """Forget several messages everywhere, in one rewrite; the receipt."""
    receipt = await service.engine.forget(chat.id, body.sequences, tenant=chat.tenant)
    return ReceiptOut.of(receipt)


@router.post("/chats/{chat_id}/facts/forget", responses=CHAT_ROUTE)
async def forget_fact(chat: ChatDep, service: ServiceDep, body: ForgetFactIn) -> ReceiptOut:
    """Forget one durable fact (and what user memory took from it); it stays forgotten."""
    receipt = await service.engine.forget_fact(chat.id, body.text, tenant=chat.tenant)
    return ReceiptOut.of(receipt)
