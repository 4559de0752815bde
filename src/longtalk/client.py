"""A typed Python client for the longtalk HTTP service, with the ``Memory`` surface.

::

    with Client("http://127.0.0.1:8000", api_key="...") as memory:
        chat = memory.chat("trip", user="priya")     # gets the chat, or creates it
        chat.append("user", question)
        context = chat.context(question)             # the same Context as Memory's
        reply = call_your_model(context.messages)
        chat.append("assistant", reply)

``AsyncClient`` is the same in ``async``/``await`` form. Both speak the service's HTTP API
(``longtalk serve``) over httpx; each operation is written once, as a sequence of requests
and answers that the sync and async clients drive. HTTP errors become longtalk's errors:
404 ``NotFoundError``, 409 ``ConflictError``, 400/401/413/422 ``UsageError``, others
``BackendError``, each with the service's detail.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Mapping
from datetime import datetime
from types import TracebackType
from typing import Any, Self, TypeVar, cast
from urllib.parse import quote

import httpx

from longtalk.core.context import AssembledContext, ContextPart
from longtalk.core.messages import Message, Role
from longtalk.core.redact import redact
from longtalk.errors import BackendError, ConflictError, NotFoundError, UsageError
from longtalk.memory.async_memory import build_message, message_from_mapping
from longtalk.memory.context import Context
from longtalk.memory.handle import ChatHandle
from longtalk.service.schemas import (
    AppendOut,
    ChatList,
    ChatOut,
    ContextOut,
    MessageList,
    SummarizeOut,
)
from longtalk.storage.base import ChatRecord, StoredMessage

__all__ = ["AsyncChatClient", "AsyncClient", "ChatClient", "Client"]

T = TypeVar("T")
Step = Generator[httpx.Request, httpx.Response, T]
"""One operation: yields the requests to send, receives their answers, returns the result."""

DEFAULT_URL = "http://127.0.0.1:8000"
PAGE = 500


# -- the operations, once ------------------------------------------------------------------


class _Api:
    """Builds requests and reads answers; knows nothing of how they are sent."""

    def __init__(self, base_url: str, api_key: str | None) -> None:
        self.base_url = base_url.rstrip("/")
        self.headers = {"X-API-Key": api_key} if api_key else {}

    def request(self, method: str, path: str, body: Any = None, **params: Any) -> httpx.Request:
        query = {name: value for name, value in params.items() if value is not None}
        return httpx.Request(
            method, f"{self.base_url}{path}", json=body, params=query, headers=self.headers
        )

    def chat(self, chat_id: str | None, user: str | None, title: str | None) -> Step[ChatRecord]:
        if chat_id is not None:
            found = yield self.request("GET", _chat_path(chat_id))
            if found.status_code != 404:
                return _record(ChatOut.model_validate(_ok(found)))
        body = {"id": chat_id, "user": user, "title": title}
        created = yield self.request("POST", "/chats", {k: v for k, v in body.items() if v})
        if created.status_code in (409, 500) and chat_id is not None:  # created meanwhile
            created = yield self.request("GET", _chat_path(chat_id))
        return _record(ChatOut.model_validate(_ok(created)))

    def get(self, chat_id: str) -> Step[ChatRecord | None]:
        found = yield self.request("GET", _chat_path(chat_id))
        if found.status_code == 404:
            return None
        return _record(ChatOut.model_validate(_ok(found)))

    def chats(self, limit: int, offset: int) -> Step[list[ChatRecord]]:
        page = yield self.request("GET", "/chats", limit=limit, offset=offset)
        return [_record(item) for item in ChatList.model_validate(_ok(page)).items]

    def delete(self, chat_id: str) -> Step[bool]:
        answer = yield self.request("DELETE", _chat_path(chat_id))
        if answer.status_code == 404:
            return False
        _ok(answer)
        return True

    def extend(self, chat_id: str, messages: list[Message]) -> Step[list[StoredMessage]]:
        if not messages:
            return []
        body = {"messages": [m.model_dump(mode="json", exclude_defaults=True) for m in messages]}
        answer = yield self.request("POST", f"{_chat_path(chat_id)}/messages", body)
        stored = AppendOut.model_validate(_ok(answer)).stored
        return [StoredMessage(chat_id, item.sequence, item.message) for item in stored]

    def context(self, chat_id: str, query: str | None, **numbers: int | None) -> Step[Context]:
        body = {"query": query, **numbers}
        answer = yield self.request(
            "POST",
            f"{_chat_path(chat_id)}/context",
            {k: v for k, v in body.items() if v is not None},
        )
        return _assembled(ContextOut.model_validate(_ok(answer)))

    def messages(self, chat_id: str) -> Step[list[StoredMessage]]:
        found: list[StoredMessage] = []
        after: int | None = 0
        while after is not None:
            page = yield self.request(
                "GET", f"{_chat_path(chat_id)}/messages", after_sequence=after, limit=PAGE
            )
            batch = MessageList.model_validate(_ok(page))
            found += [StoredMessage(chat_id, item.sequence, item.message) for item in batch.items]
            after = batch.next_after
        return found

    def summarize(self, chat_id: str) -> Step[SummarizeOut]:
        answer = yield self.request("POST", f"{_chat_path(chat_id)}/summarize")
        return SummarizeOut.model_validate(_ok(answer))


def _chat_path(chat_id: str) -> str:
    return f"/chats/{quote(chat_id, safe='')}"


def _ok(response: httpx.Response) -> Any:
    """The JSON body of a successful answer, or the matching longtalk error."""
    if response.is_success:
        return response.json() if response.content else None
    try:
        detail = str(response.json().get("detail", response.text))
    except ValueError:
        detail = response.text
    message = f"{detail} (HTTP {response.status_code})"
    if response.status_code == 404:
        raise NotFoundError(message)
    if response.status_code == 409:
        raise ConflictError(message)
    if response.status_code in (400, 401, 403, 413, 422):
        raise UsageError(message)
    raise BackendError(f"the longtalk service failed: {message}")


def _record(chat: ChatOut) -> ChatRecord:
    return ChatRecord(
        id=chat.id,
        tenant=chat.tenant,
        user=chat.user,
        title=chat.title,
        created_at=chat.created_at,
        updated_at=chat.updated_at,
        message_count=chat.message_count,
        last_summarized_sequence=chat.last_summarized_sequence,
        summary_version=chat.summary_version,
        indexed_sequence=chat.indexed_sequence,
    )


def _assembled(out: ContextOut) -> AssembledContext:
    """The service's context as the engine's own value (``Context`` reads it the same way)."""
    parts = tuple(
        ContextPart(
            kind=cast(Any, part.kind),
            text=part.text,
            tokens=part.tokens,
            messages=tuple(part.messages),
            sequences=tuple(s for s in part.sequences if s is not None),
            scores=tuple(part.scores),
            episode_ranges=tuple(part.episode_ranges),
            truncated=part.truncated,
        )
        for part in out.parts
    )
    return AssembledContext(
        parts=parts,
        budget_tokens=out.budget_tokens,
        allocation={part.kind: part.tokens for part in parts},
        dropped_recalled=out.dropped_recalled,
        dropped_verbatim=out.dropped_verbatim,
        dropped_pending=out.dropped_pending,
    )


def _messages(items: Iterable[Message | Mapping[str, Any]]) -> list[Message]:
    return [item if isinstance(item, Message) else message_from_mapping(item) for item in items]


def _run(http: httpx.Client, step: Step[T]) -> T:
    try:
        request = next(step)
        while True:
            request = step.send(_send(http, request))
    except StopIteration as done:
        return cast(T, done.value)


async def _arun(http: httpx.AsyncClient, step: Step[T]) -> T:
    try:
        request = next(step)
        while True:
            request = step.send(await _asend(http, request))
    except StopIteration as done:
        return cast(T, done.value)


def _send(http: httpx.Client, request: httpx.Request) -> httpx.Response:
    try:
        response = http.send(request)
        response.read()
        return response
    except httpx.HTTPError as exc:
        raise _unreachable(request, exc) from exc


async def _asend(http: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
    try:
        response = await http.send(request)
        await response.aread()
        return response
    except httpx.HTTPError as exc:
        raise _unreachable(request, exc) from exc


def _unreachable(request: httpx.Request, exc: httpx.HTTPError) -> BackendError:
    """The error for a request that got no answer (its URL's credentials masked)."""
    return BackendError(f"cannot reach the longtalk service at {redact(str(request.url))}: {exc}")


# -- sync ------------------------------------------------------------------------------------


class Client:
    """The service as a ``Memory``: ``chat(id)`` gets or creates, ``chats()``, ``delete()``.

    Args:
        base_url: Where ``longtalk serve`` listens.
        api_key: The tenant's key (sent as ``X-API-Key``) when the service has keys.
        timeout: Seconds per request.
        http: An ``httpx.Client`` to use instead of an owned one (not closed here).
    """

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        http: httpx.Client | None = None,
    ) -> None:
        self._api = _Api(base_url, api_key)
        self._owned = http is None
        self.http = http or httpx.Client(timeout=timeout)

    def close(self) -> None:
        """Close the owned HTTP connection pool."""
        if self._owned:
            self.http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def chat(
        self, chat_id: str | None = None, *, user: str | None = None, title: str | None = None
    ) -> ChatClient:
        """The chat ``chat_id``, created if it does not exist (a new id when None)."""
        return ChatClient(self, _run(self.http, self._api.chat(chat_id, user, title)))

    def get(self, chat_id: str) -> ChatClient | None:
        """The chat ``chat_id``, or None when there is none."""
        found = _run(self.http, self._api.get(chat_id))
        return None if found is None else ChatClient(self, found)

    def chats(self, *, limit: int = 50, offset: int = 0) -> list[ChatRecord]:
        """The tenant's chats, most recently updated first."""
        return _run(self.http, self._api.chats(limit, offset))

    def delete(self, chat_id: str) -> bool:
        """Delete a chat with its messages, summaries and recall vectors; False if none."""
        return _run(self.http, self._api.delete(chat_id))


class ChatClient(ChatHandle):
    """One chat of a :class:`Client`: append messages, ask for a context."""

    def __init__(self, client: Client, record: ChatRecord) -> None:
        super().__init__(record)
        self._client = client

    def append(
        self,
        role: Role | str,
        content: str,
        *,
        name: str | None = None,
        timestamp: datetime | None = None,
        message_id: str | None = None,
        **metadata: Any,
    ) -> StoredMessage:
        """Store one message; the service summarizes in the background when due."""
        message = build_message(role, content, name, timestamp, message_id, metadata)
        (stored,) = self.extend([message])
        return stored

    def extend(self, messages: Iterable[Message | Mapping[str, Any]]) -> list[StoredMessage]:
        """Store several messages in one request."""
        return self._run(self._client._api.extend(self.id, _messages(messages)))

    def context(
        self,
        query: str | None = None,
        *,
        budget_tokens: int | None = None,
        recent_turns: int | None = None,
        summary_max_tokens: int | None = None,
    ) -> Context:
        """The context for ``query``: [recalled turns] [summary] [recent window]."""
        step = self._client._api.context(
            self.id,
            query,
            budget_tokens=budget_tokens,
            recent_turns=recent_turns,
            summary_max_tokens=summary_max_tokens,
        )
        return self._run(step)

    def messages(self) -> list[StoredMessage]:
        """Every stored message, oldest first."""
        return self._run(self._client._api.messages(self.id))

    def summarize(self) -> SummarizeOut:
        """Summarize now, even below the trigger, through the service's job queue."""
        return self._run(self._client._api.summarize(self.id))

    def delete(self) -> bool:
        """Delete this chat with its messages, summaries and recall vectors."""
        return self._client.delete(self.id)

    def _run(self, step: Step[T]) -> T:
        return _run(self._client.http, step)


# -- async -----------------------------------------------------------------------------------


class AsyncClient:
    """:class:`Client` in ``async``/``await`` form (an ``AsyncMemory`` over HTTP)."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self._api = _Api(base_url, api_key)
        self._owned = http is None
        self.http = http or httpx.AsyncClient(timeout=timeout)

    async def aclose(self) -> None:
        """Close the owned HTTP connection pool."""
        if self._owned:
            await self.http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def chat(
        self, chat_id: str | None = None, *, user: str | None = None, title: str | None = None
    ) -> AsyncChatClient:
        """The chat ``chat_id``, created if it does not exist (a new id when None)."""
        return AsyncChatClient(self, await _arun(self.http, self._api.chat(chat_id, user, title)))

    async def get(self, chat_id: str) -> AsyncChatClient | None:
        """The chat ``chat_id``, or None when there is none."""
        found = await _arun(self.http, self._api.get(chat_id))
        return None if found is None else AsyncChatClient(self, found)

    async def chats(self, *, limit: int = 50, offset: int = 0) -> list[ChatRecord]:
        """The tenant's chats, most recently updated first."""
        return await _arun(self.http, self._api.chats(limit, offset))

    async def delete(self, chat_id: str) -> bool:
        """Delete a chat with its messages, summaries and recall vectors; False if none."""
        return await _arun(self.http, self._api.delete(chat_id))


class AsyncChatClient(ChatHandle):
    """One chat of an :class:`AsyncClient`."""

    def __init__(self, client: AsyncClient, record: ChatRecord) -> None:
        super().__init__(record)
        self._client = client

    async def append(
        self,
        role: Role | str,
        content: str,
        *,
        name: str | None = None,
        timestamp: datetime | None = None,
        message_id: str | None = None,
        **metadata: Any,
    ) -> StoredMessage:
        """Store one message; the service summarizes in the background when due."""
        message = build_message(role, content, name, timestamp, message_id, metadata)
        (stored,) = await self.extend([message])
        return stored

    async def extend(self, messages: Iterable[Message | Mapping[str, Any]]) -> list[StoredMessage]:
        """Store several messages in one request."""
        return await self._run(self._client._api.extend(self.id, _messages(messages)))

    async def context(
        self,
        query: str | None = None,
        *,
        budget_tokens: int | None = None,
        recent_turns: int | None = None,
        summary_max_tokens: int | None = None,
    ) -> Context:
        """The context for ``query``: [recalled turns] [summary] [recent window]."""
        step = self._client._api.context(
            self.id,
            query,
            budget_tokens=budget_tokens,
            recent_turns=recent_turns,
            summary_max_tokens=summary_max_tokens,
        )
        return await self._run(step)

    async def messages(self) -> list[StoredMessage]:
        """Every stored message, oldest first."""
        return await self._run(self._client._api.messages(self.id))

    async def summarize(self) -> SummarizeOut:
        """Summarize now, even below the trigger, through the service's job queue."""
        return await self._run(self._client._api.summarize(self.id))

    async def delete(self) -> bool:
        """Delete this chat with its messages, summaries and recall vectors."""
        return await self._client.delete(self.id)

    async def _run(self, step: Step[T]) -> T:
        return await _arun(self._client.http, step)
