"""The HTTP routes: chats, messages, context, summaries, events; thin over ``Service``."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Path, Query, Request, Response
from fastapi.responses import StreamingResponse

from longtalk.core.fields import same_named
from longtalk.errors import UsageError
from longtalk.jobs.runner import JobResult
from longtalk.service.auth import request_key
from longtalk.service.errors import CONFLICT, ERROR_RESPONSES, NOT_FOUND, public_error
from longtalk.service.limits import MAX_INT, Limits
from longtalk.service.state import Service
from longtalk.storage.base import ChatRecord
from longtalk.storage.records import idempotent
from longtalk.wire import (
    AppendIn,
    AppendOut,
    ChatIn,
    ChatList,
    ChatOut,
    ContextIn,
    ContextOut,
    MessageBatch,
    MessageList,
    MessageOut,
    SummarizeOut,
    SummaryCreate,
    SummaryList,
    SummaryOut,
    SummaryPatchIn,
)

router = APIRouter(responses=ERROR_RESPONSES)
CHAT_ROUTE: dict[int | str, dict[str, Any]] = {**NOT_FOUND}


async def get_service(request: Request) -> Service:
    """The service of this app (async: FastAPI runs a plain def dependency on a thread)."""
    service: Service = request.app.state.service
    return service


async def get_limits(request: Request) -> Limits:
    """The configured input limits (async: FastAPI runs a plain def dependency on a thread)."""
    limits: Limits = request.app.state.limits
    return limits


async def get_tenant(request: Request) -> str:
    """The caller's tenant (401 without a valid key when keys are configured)."""
    service: Service = request.app.state.service
    return service.auth.tenant_for(request_key(request))


ServiceDep = Annotated[Service, Depends(get_service)]
TenantDep = Annotated[str, Depends(get_tenant)]
LimitsDep = Annotated[Limits, Depends(get_limits)]


async def get_chat(
    chat_id: str, service: ServiceDep, tenant: TenantDep, limits: LimitsDep
) -> ChatRecord:
    """The path's chat, for the caller's tenant only."""
    limits.chat_id(chat_id)
    return await service.chat(chat_id, tenant)


ChatDep = Annotated[ChatRecord, Depends(get_chat)]


# -- chats ------------------------------------------------------------------------------------


@router.post("/chats", status_code=201, tags=["chats"], responses=CONFLICT)
async def create_chat(
    body: ChatIn, service: ServiceDep, tenant: TenantDep, limits: LimitsDep
) -> ChatOut:
    """Create a chat (a random id unless one is given)."""
    limits.chat(body.user, body.title, body.id)
    chat = await service.create_chat(body.id, tenant, body.user, body.title)
    return service.chat_out(chat)


@router.get("/chats", tags=["chats"])
async def list_chats(
    service: ServiceDep,
    tenant: TenantDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_INT)] = 0,
) -> ChatList:
    """The caller's chats, newest first, paged."""
    chats = await service.engine.storage.list_chats(tenant=tenant, limit=limit, offset=offset)
    return ChatList(
        items=[service.chat_out(chat) for chat in chats],
        limit=limit,
        offset=offset,
        next_offset=offset + limit if len(chats) == limit and offset + limit <= MAX_INT else None,
    )


@router.get("/chats/{chat_id}", tags=["chats"], responses=CHAT_ROUTE)
async def read_chat(chat: ChatDep, service: ServiceDep) -> ChatOut:
    """A chat with its summary state (idle, summarizing, failed) and last error."""
    return service.chat_out(chat)


@router.delete("/chats/{chat_id}", status_code=204, tags=["chats"], responses=CHAT_ROUTE)
async def delete_chat(chat: ChatDep, service: ServiceDep) -> Response:
    """Delete a chat with its messages, summaries and recall vectors."""
    await service.delete_chat(chat.id, chat.tenant)
    return Response(status_code=204)


# -- messages -------------------------------------------------------------------------------


@router.post(
    "/chats/{chat_id}/messages",
    status_code=201,
    tags=["messages"],
    responses={**CHAT_ROUTE, **CONFLICT},
)
async def append_messages(
    chat_id: str,
    body: AppendIn,
    service: ServiceDep,
    tenant: TenantDep,
    limits: LimitsDep,
    idempotency_key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            min_length=1,
            max_length=100,
            description="A retry with the same key returns the first answer, storing nothing.",
        ),
    ] = None,
) -> AppendOut:
    """Append one message or ``{"messages": [...]}``; returns at once (no LLM on this path).

    With ``Idempotency-Key`` each message without an id gets ``idem:<key>:<index>``: the key
    names the whole request, so a retry stores nothing twice and answers as the first, and
    the key (or a message id) reused for another request is 400 ``idempotency_conflict``.
    The chat's tenant is checked in the write itself (no read before it).
    """
    limits.chat_id(chat_id)
    messages = body.plain() if isinstance(body, MessageBatch) else [body.plain()]
    try:
        limits.messages(messages)
        if idempotency_key is not None:
            messages = idempotent(messages, idempotency_key)
        chat, stored = await service.append_to(chat_id, tenant, messages)
    except UsageError:
        await service.chat(chat_id, tenant)  # a missing chat is told before a bad batch
        raise
    state, _ = service.jobs.state(chat.id, incarnation=chat.incarnation)
    return AppendOut(
        chat_id=chat.id,
        stored=[MessageOut.of(item) for item in stored],
        message_count=stored[-1].sequence if stored else chat.message_count,
        summary_state=state,
    )


@router.get("/chats/{chat_id}/messages", tags=["messages"], responses=CHAT_ROUTE)
async def list_messages(
    chat: ChatDep,
    service: ServiceDep,
    after_sequence: Annotated[int, Query(ge=0, le=MAX_INT)] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> MessageList:
    """Messages after ``after_sequence``, oldest first, paged."""
    items = await service.engine.storage.list_messages(
        chat.id, after_sequence=after_sequence, limit=limit
    )
    return MessageList(
        items=[MessageOut.of(item) for item in items],
        after_sequence=after_sequence,
        limit=limit,
        next_after=items[-1].sequence if len(items) == limit else None,
    )


# -- context and summaries ------------------------------------------------------------------


@router.post("/chats/{chat_id}/context", tags=["context"], responses=CHAT_ROUTE)
async def chat_context(
    chat_id: str, body: ContextIn, service: ServiceDep, tenant: TenantDep, limits: LimitsDep
) -> ContextOut:
    """[recalled turns] [summary] [recent verbatim] under the budget, with provenance.

    The chat's tenant is checked on the state the context is read from (no read before it).
    """
    limits.chat_id(chat_id)
    limits.text("query", body.query, "max_query_chars")
    return await service.context(
        chat_id,
        tenant,
        body.query,
        body.budget_tokens,
        body.strategy,
        recent_turns=body.recent_turns,
        summary_max_tokens=body.summary_max_tokens,
    )


@router.get("/chats/{chat_id}/summaries", tags=["summaries"], responses=CHAT_ROUTE)
async def list_summaries(chat: ChatDep, service: ServiceDep) -> SummaryList:
    """The summary chain, oldest first, each row with its episode range."""
    rows = await service.engine.storage.list_summaries(chat.id)
    return SummaryList(chat_id=chat.id, items=[SummaryOut.of(row) for row in rows])


@router.post("/chats/{chat_id}/summarize", tags=["summaries"], responses=CHAT_ROUTE)
async def summarize_now(chat: ChatDep, service: ServiceDep) -> SummarizeOut:
    """Summarize now, even below the trigger, through the chat's job queue."""
    result = await service.jobs.run_now(chat.id, chat.tenant, incarnation=chat.incarnation)
    state, _ = service.jobs.state(chat.id, incarnation=chat.incarnation)
    fields = SummarizeOut.model_fields
    reason = _why_unchanged(result)
    return SummarizeOut(
        **same_named(fields, result, chat_id=chat.id, summary_state=state, reason=reason)
    )


NOTHING_PENDING = (
    "nothing to summarize: every message older than the recent window is in the summary "
    "already (the window's own messages are shown verbatim, never summarized)"
)
NOTHING_NEW = "the summary writer found nothing to add from the messages it read"


def _why_unchanged(result: JobResult) -> str | None:
    """Why a run changed nothing, in words a caller can act on (None when it changed)."""
    if result.outcome == "skipped":
        skipped = result.summary.skipped if result.summary is not None else None
        return skipped or "another run was summarizing this chat: left for the next run"
    if result.outcome != "unchanged":
        return None
    plan = result.summary.plan if result.summary is not None else None
    return NOTHING_PENDING if plan is None or not plan.decision.message_count else NOTHING_NEW


@router.post("/summaries", status_code=201, tags=["summaries"], responses=CHAT_ROUTE)
async def create_summary(
    body: SummaryCreate, service: ServiceDep, tenant: TenantDep, limits: LimitsDep
) -> SummaryOut:
    """Create a summary row (``{sessionId, content, tokenCount, episodeRange}`` accepted)."""
    limits.chat_id(body.chat_id)
    limits.text("summary_text", body.summary_text, "max_summary_chars")
    return SummaryOut.of(await service.create_summary(body, tenant))


@router.patch("/summaries/{summary_id}", tags=["summaries"], responses=CHAT_ROUTE)
async def update_summary(
    summary_id: Annotated[int, Path(ge=0, le=MAX_INT)],
    body: SummaryPatchIn,
    service: ServiceDep,
    tenant: TenantDep,
    limits: LimitsDep,
) -> SummaryOut:
    """Update a row's content, token count or episode range."""
    limits.chat_id(body.chat_id)
    limits.text("summary_text", body.summary_text, "max_summary_chars")
    return SummaryOut.of(await service.update_summary(summary_id, body, tenant))


# -- events ---------------------------------------------------------------------------------


@router.get("/chats/{chat_id}/events", tags=["events"], responses=CHAT_ROUTE)
async def chat_events(chat: ChatDep, service: ServiceDep) -> StreamingResponse:
    """Server-Sent Events: ``state`` first, then ``summarizing``/``summarized``/``failed``."""
    stream = service.hub.subscribe(
        chat.id, service.jobs.event(chat.id, incarnation=chat.incarnation)
    )
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(
        _public_events(stream), media_type="text/event-stream", headers=headers
    )


async def _public_events(stream: AsyncIterator[str]) -> AsyncIterator[str]:
    """The event stream with each event's ``error`` made fit for clients."""
    assert isinstance(stream, AsyncGenerator)
    async with aclosing(stream):
        async for chunk in stream:
            yield "\n".join(_public_line(line) for line in chunk.split("\n"))


def _public_line(line: str) -> str:
    if not line.startswith("data: ") or '"error"' not in line:
        return line
    try:
        data = json.loads(line[6:])
    except ValueError:
        return line
    if isinstance(data, dict) and isinstance(data.get("error"), str):
        data["error"] = public_error(data["error"])
    return "data: " + json.dumps(data)
