"""A typed Python client for the longtalk HTTP service, with the ``Memory`` surface.

::

    with Client("http://127.0.0.1:8765", api_key="...") as memory:
        chat = memory.chat("trip", user="priya")     # gets the chat, or creates it
        chat.append("user", question)
        context = chat.context(question)             # the same Context as Memory's
        reply = call_your_model(context.messages)
        chat.append("assistant", reply)

The user memory (``remember``, ``user_memory``, ``forget``), a chat's durable facts
(``facts``) and forced summaries (``summarize``) are there as in the library: ``Client``
implements ``longtalk.memory.MemoryAPI`` and ``AsyncClient`` ``AsyncMemoryAPI``, as
``Memory`` and ``AsyncMemory`` do.
``AsyncClient`` is the same in ``async``/``await`` form. Both speak the service's HTTP API
(``longtalk serve``) over httpx; each operation is written once, as a sequence of requests
and answers that the sync and async clients drive. HTTP errors become longtalk's errors:
404 ``NotFoundError``, 409 ``ConflictError``, 400/401/413/422 ``UsageError``, others
``BackendError``, each with the service's detail.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterable, Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from urllib.parse import quote

import httpx

from longtalk.core.limits import check_storable
from longtalk.core.messages import Message, Role, build_message, message_from_mapping
from longtalk.core.receipt import ForgetReceipt
from longtalk.core.redact import add_secrets, redact
from longtalk.errors import BackendError, ConflictError, NotFoundError, UsageError
from longtalk.memory.context import Context
from longtalk.memory.handle import ChatHandle
from longtalk.storage.records import ChatRecord, StoredMessage, UserFact, UserFactKind
from longtalk.wire import (
    AppendOut,
    ChatList,
    ChatOut,
    ContextOut,
    FactList,
    ForgetOut,
    MessageList,
    SummarizeOut,
    UserFactOut,
    UserMemoryOut,
)

if TYPE_CHECKING:
    from longtalk.facts.model import DurableFact
    from longtalk.memory.api import AsyncMemoryAPI, MemoryAPI
    from longtalk.memory.async_memory import AsyncMemory
    from longtalk.memory.sync import Memory

__all__ = ["AsyncChatClient", "AsyncClient", "ChatClient", "Client"]

T = TypeVar("T")
Step = Generator[httpx.Request, httpx.Response, T]
"""One operation: yields the requests to send, receives their answers, returns the result."""

DEFAULT_URL = "http://127.0.0.1:8765"
PAGE = 500


# -- the operations, once ------------------------------------------------------------------


class _Api:
    """Builds requests and reads answers; knows nothing of how they are sent."""

    def __init__(self, base_url: str, api_key: str | None) -> None:
        self.base_url = base_url.rstrip("/")
        self.headers = {"X-API-Key": api_key} if api_key else {}
        add_secrets([api_key])  # masked by value in every error this process shows

    def request(self, method: str, path: str, body: Any = None, **params: Any) -> httpx.Request:
        query = {name: value for name, value in params.items() if value is not None}
        if body is None:
            return httpx.Request(
                method, f"{self.base_url}{path}", params=query, headers=self.headers
            )
        # JSON's own escapes (ASCII): text no encoder can write (a lone surrogate) still
        # reaches the service, whose gate names the field, as it does for any client
        content = json.dumps(body, ensure_ascii=True).encode("ascii")
        headers = {**self.headers, "content-type": "application/json"}
        return httpx.Request(
            method, f"{self.base_url}{path}", content=content, params=query, headers=headers
        )

    def chat(self, chat_id: str | None, user: str | None, title: str | None) -> Step[ChatRecord]:
        if chat_id is not None:
            found = yield self.request("GET", _chat_path(chat_id))
            if found.status_code != 404:
                return ChatOut.model_validate(_ok(found)).record()
        body = {"id": chat_id, "user": user, "title": title}
        created = yield self.request("POST", "/chats", {k: v for k, v in body.items() if v})
        if created.status_code in (409, 500) and chat_id is not None:  # created meanwhile
            created = yield self.request("GET", _chat_path(chat_id))
        return ChatOut.model_validate(_ok(created)).record()

    def get(self, chat_id: str) -> Step[ChatRecord | None]:
        found = yield self.request("GET", _chat_path(chat_id))
        if found.status_code == 404:
            return None
        return ChatOut.model_validate(_ok(found)).record()

    def chats(self, limit: int, offset: int) -> Step[list[ChatRecord]]:
        page = yield self.request("GET", "/chats", limit=limit, offset=offset)
        return [item.record() for item in ChatList.model_validate(_ok(page)).items]

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
        return [item.stored(chat_id) for item in stored]

    def context(self, chat_id: str, query: str | None, **numbers: int | None) -> Step[Context]:
        body = {"query": query, **numbers}
        answer = yield self.request(
            "POST",
            f"{_chat_path(chat_id)}/context",
            {k: v for k, v in body.items() if v is not None},
        )
        return ContextOut.model_validate(_ok(answer)).assembled()

    def messages(self, chat_id: str) -> Step[list[StoredMessage]]:
        found: list[StoredMessage] = []
        after: int | None = 0
        while after is not None:
            page = yield self.request(
                "GET", f"{_chat_path(chat_id)}/messages", after_sequence=after, limit=PAGE
            )
            batch = MessageList.model_validate(_ok(page))
            found += [item.stored(chat_id) for item in batch.items]
            after = batch.next_after
        return found

    def summarize(self, chat_id: str) -> Step[SummarizeOut]:
        answer = yield self.request("POST", f"{_chat_path(chat_id)}/summarize")
        return SummarizeOut.model_validate(_ok(answer))

    def facts(self, chat_id: str) -> Step[list[DurableFact]]:
        answer = yield self.request("GET", f"{_chat_path(chat_id)}/facts")
        return [item.fact() for item in FactList.model_validate(_ok(answer)).items]

    def user_memory(self, user: str) -> Step[list[UserFact]]:
        answer = yield self.request("GET", _memory_path(user))
        return [item.fact() for item in UserMemoryOut.model_validate(_ok(answer)).items]

    def remember(self, user: str, text: str, kind: UserFactKind) -> Step[UserFact]:
        answer = yield self.request("POST", _memory_path(user), {"text": text, "kind": kind})
        return UserFactOut.model_validate(_ok(answer)).fact()

    def forget_messages(self, chat_id: str, sequences: Sequence[int]) -> Step[ForgetReceipt]:
        body = {"sequences": list(sequences)}
        answer = yield self.request("POST", f"{_chat_path(chat_id)}/forget", body)
        return ForgetReceipt.from_dict(_ok(answer))

    def forget_fact(self, chat_id: str, text: str) -> Step[ForgetReceipt]:
        answer = yield self.request("POST", f"{_chat_path(chat_id)}/facts/forget", {"text": text})
        return ForgetReceipt.from_dict(_ok(answer))

    def forget(self, user: str, ids: Sequence[int] | None, chat_id: str | None) -> Step[int]:
        if ids is not None and not ids:
            return 0  # no ids: nothing to forget (an empty query would mean every item)
        query = {"ids": list(ids) if ids is not None else None, "chat_id": chat_id}
        answer = yield self.request("DELETE", _memory_path(user), **query)
        return ForgetOut.model_validate(_ok(answer)).forgotten


def _chat_path(chat_id: str) -> str:
    check_storable("chat_id", chat_id)  # a URL cannot carry it; the service checks the rest
    return f"/chats/{quote(chat_id, safe='')}"


def _memory_path(user: str) -> str:
    check_storable("user", user)
    return f"/users/{quote(user, safe='')}/memory"


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

    # -- user memory across chats ---------------------------------------------------------

    def user_memory(self, user: str) -> list[UserFact]:
        """What is kept about ``user``: facts, preferences, profile lines, with provenance."""
        return _run(self.http, self._api.user_memory(user))

    def remember(self, user: str, text: str, *, kind: UserFactKind = "fact") -> UserFact:
        """Keep ``text`` about ``user`` (``fact``, ``preference`` or ``profile``)."""
        return _run(self.http, self._api.remember(user, text, kind))

    def forget(
        self, user: str, *, ids: Sequence[int] | None = None, chat_id: str | None = None
    ) -> int:
        """Delete what is kept about ``user`` (only ``ids``, or what ``chat_id`` left)."""
        return _run(self.http, self._api.forget(user, ids, chat_id))


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

    def facts(self) -> list[DurableFact]:
        """The chat's durable facts, merged, as its context shows them."""
        return self._run(self._client._api.facts(self.id))

    def delete(self) -> bool:
        """Delete this chat with its messages, summaries and recall vectors."""
        return self._client.delete(self.id)

    def forget(self, sequences: Sequence[int]) -> ForgetReceipt:
        """Forget messages everywhere (see ``AsyncChat.forget``); the service's receipt."""
        return self._run(self._client._api.forget_messages(self.id, sequences))

    def forget_fact(self, text: str) -> ForgetReceipt:
        """Forget one durable fact and keep it forgotten (see ``AsyncChat.forget_fact``)."""
        return self._run(self._client._api.forget_fact(self.id, text))

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

    # -- user memory across chats ---------------------------------------------------------

    async def user_memory(self, user: str) -> list[UserFact]:
        """What is kept about ``user``: facts, preferences, profile lines, with provenance."""
        return await _arun(self.http, self._api.user_memory(user))

    async def remember(self, user: str, text: str, *, kind: UserFactKind = "fact") -> UserFact:
        """Keep ``text`` about ``user`` (``fact``, ``preference`` or ``profile``)."""
        return await _arun(self.http, self._api.remember(user, text, kind))

    async def forget(
        self, user: str, *, ids: Sequence[int] | None = None, chat_id: str | None = None
    ) -> int:
        """Delete what is kept about ``user`` (only ``ids``, or what ``chat_id`` left)."""
        return await _arun(self.http, self._api.forget(user, ids, chat_id))


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

    async def facts(self) -> list[DurableFact]:
        """The chat's durable facts, merged, as its context shows them."""
        return await self._run(self._client._api.facts(self.id))

    async def delete(self) -> bool:
        """Delete this chat with its messages, summaries and recall vectors."""
        return await self._client.delete(self.id)

    async def forget(self, sequences: Sequence[int]) -> ForgetReceipt:
        """Forget messages everywhere (see ``AsyncChat.forget``); the service's receipt."""
        return await self._run(self._client._api.forget_messages(self.id, sequences))

    async def forget_fact(self, text: str) -> ForgetReceipt:
        """Forget one durable fact and keep it forgotten (see ``AsyncChat.forget_fact``)."""
        return await self._run(self._client._api.forget_fact(self.id, text))

    async def _run(self, step: Step[T]) -> T:
        return await _arun(self._client.http, step)


if TYPE_CHECKING:

    def _one_chat_api(
        memory: Memory, client: Client, aio: AsyncMemory, aclient: AsyncClient
    ) -> tuple[MemoryAPI, MemoryAPI, AsyncMemoryAPI, AsyncMemoryAPI]:
        """Every door offers the one chat API (mypy checks this return)."""
        return memory, client, aio, aclient
