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
``AsyncClient`` speaks the service's HTTP API (``longtalk serve``) over httpx, each
operation written once; ``Client`` is it run on a private event loop in a thread of its
own, as ``Memory`` is ``AsyncMemory``. HTTP errors become longtalk's errors:
404 ``NotFoundError``, 409 ``ConflictError``, 400/401/413/422 ``UsageError``, others
``BackendError``, each with the service's detail.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import quote

import httpx

from longtalk.core.context import Context
from longtalk.core.limits import check_storable
from longtalk.core.messages import Message, as_messages
from longtalk.core.receipt import ForgetReceipt
from longtalk.core.redact import add_secrets, redact
from longtalk.errors import BackendError, ConflictError, NotFoundError, UsageError
from longtalk.memory.api import AsyncMemoryAPI
from longtalk.memory.blocking import BlockingChat, BlockingMemory, arguments_of
from longtalk.memory.handle import ChatHandle, ContextNumbers
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
    from longtalk.facts.durable_fact import DurableFact
    from longtalk.memory.api import AsyncMemoryAPI, MemoryAPI
    from longtalk.memory.async_memory import AsyncMemory
    from longtalk.memory.sync import Memory

__all__ = ["AsyncChatClient", "AsyncClient", "ChatClient", "Client"]

DEFAULT_URL = "http://127.0.0.1:8765"
PAGE = 500


# -- the operations, once ------------------------------------------------------------------


class _Api:
    """Each operation as the requests it sends and how it reads their answers."""

    def __init__(self, base_url: str, api_key: str | None, http: httpx.AsyncClient) -> None:
        self.base_url = base_url.rstrip("/")
        self.headers = {"X-API-Key": api_key} if api_key else {}
        self.http = http
        add_secrets([api_key])  # masked by value in every error this process shows

    async def send(self, method: str, path: str, body: Any = None, **params: Any) -> httpx.Response:
        """The answer to one request, read whole (an unreachable service: BackendError)."""
        request = self.request(method, path, body, **params)
        try:
            response = await self.http.send(request)
            await response.aread()
            return response
        except httpx.HTTPError as exc:
            url = redact(str(request.url))
            raise BackendError(f"cannot reach the longtalk service at {url}: {exc}") from exc

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

    async def chat(self, chat_id: str | None, user: str | None, title: str | None) -> ChatRecord:
        if chat_id is not None:
            found = await self.send("GET", _chat_path(chat_id))
            if found.status_code != 404:
                return ChatOut.model_validate(_ok(found)).record()
        body = {"id": chat_id, "user": user, "title": title}
        created = await self.send("POST", "/chats", {k: v for k, v in body.items() if v})
        if created.status_code in (409, 500) and chat_id is not None:  # created meanwhile
            created = await self.send("GET", _chat_path(chat_id))
        return ChatOut.model_validate(_ok(created)).record()

    async def get(self, chat_id: str) -> ChatRecord | None:
        found = await self.send("GET", _chat_path(chat_id))
        if found.status_code == 404:
            return None
        return ChatOut.model_validate(_ok(found)).record()

    async def chats(self, limit: int, offset: int) -> list[ChatRecord]:
        page = await self.send("GET", "/chats", limit=limit, offset=offset)
        return [item.record() for item in ChatList.model_validate(_ok(page)).items]

    async def delete(self, chat_id: str) -> bool:
        answer = await self.send("DELETE", _chat_path(chat_id))
        if answer.status_code == 404:
            return False
        _ok(answer)
        return True

    async def extend(self, chat_id: str, messages: list[Message]) -> list[StoredMessage]:
        if not messages:
            return []
        body = {"messages": [m.model_dump(mode="json", exclude_defaults=True) for m in messages]}
        answer = await self.send("POST", f"{_chat_path(chat_id)}/messages", body)
        stored = AppendOut.model_validate(_ok(answer)).stored
        return [item.stored(chat_id) for item in stored]

    async def context(self, chat_id: str, query: str | None, **numbers: int | None) -> Context:
        body = {"query": query, **numbers}
        answer = await self.send(
            "POST",
            f"{_chat_path(chat_id)}/context",
            {k: v for k, v in body.items() if v is not None},
        )
        return ContextOut.model_validate(_ok(answer)).assembled()

    async def messages(self, chat_id: str) -> list[StoredMessage]:
        found: list[StoredMessage] = []
        after: int | None = 0
        while after is not None:
            page = await self.send(
                "GET", f"{_chat_path(chat_id)}/messages", after_sequence=after, limit=PAGE
            )
            batch = MessageList.model_validate(_ok(page))
            found += [item.stored(chat_id) for item in batch.items]
            after = batch.next_after
        return found

    async def summarize(self, chat_id: str) -> SummarizeOut:
        answer = await self.send("POST", f"{_chat_path(chat_id)}/summarize")
        return SummarizeOut.model_validate(_ok(answer))

    async def facts(self, chat_id: str) -> list[DurableFact]:
        answer = await self.send("GET", f"{_chat_path(chat_id)}/facts")
        return [item.fact() for item in FactList.model_validate(_ok(answer)).items]

    async def user_memory(self, user: str) -> list[UserFact]:
        answer = await self.send("GET", _memory_path(user))
        return [item.fact() for item in UserMemoryOut.model_validate(_ok(answer)).items]

    async def remember(self, user: str, text: str, kind: UserFactKind) -> UserFact:
        answer = await self.send("POST", _memory_path(user), {"text": text, "kind": kind})
        return UserFactOut.model_validate(_ok(answer)).fact()

    async def forget_messages(self, chat_id: str, sequences: Sequence[int]) -> ForgetReceipt:
        body = {"sequences": list(sequences)}
        answer = await self.send("POST", f"{_chat_path(chat_id)}/forget", body)
        return ForgetReceipt.from_dict(_ok(answer))

    async def forget_fact(self, chat_id: str, text: str) -> ForgetReceipt:
        answer = await self.send("POST", f"{_chat_path(chat_id)}/facts/forget", {"text": text})
        return ForgetReceipt.from_dict(_ok(answer))

    async def forget(self, user: str, ids: Sequence[int] | None, chat_id: str | None) -> int:
        if ids is not None and not ids:
            return 0  # no ids: nothing to forget (an empty query would mean every item)
        query = {"ids": list(ids) if ids is not None else None, "chat_id": chat_id}
        answer = await self.send("DELETE", _memory_path(user), **query)
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


# -- async: the client ----------------------------------------------------------------------


class AsyncClient(AsyncMemoryAPI):
    """The service as an ``AsyncMemory``: ``chat(id)`` gets or creates, ``chats()``, ``delete()``.

    Args:
        base_url: Where ``longtalk serve`` listens.
        api_key: The tenant's key (sent as ``X-API-Key``) when the service has keys.
        timeout: Seconds per request.
        http: An ``httpx.AsyncClient`` to use instead of an owned one (not closed here).
    """

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self._owned = http is None
        self.http = http or httpx.AsyncClient(timeout=timeout)
        self._api = _Api(base_url, api_key, self.http)

    async def aclose(self) -> None:
        """Close the owned HTTP connection pool."""
        if self._owned:
            await self.http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def chat(
        self, chat_id: str | None = None, *, user: str | None = None, title: str | None = None
    ) -> AsyncChatClient:
        """The chat ``chat_id``, created if it does not exist (a new id when None)."""
        return AsyncChatClient(self, await self._api.chat(chat_id, user, title))

    async def get(self, chat_id: str) -> AsyncChatClient | None:
        """The chat ``chat_id``, or None when there is none."""
        found = await self._api.get(chat_id)
        return None if found is None else AsyncChatClient(self, found)

    async def chats(self, *, limit: int = 50, offset: int = 0) -> list[ChatRecord]:
        """The tenant's chats, most recently updated first."""
        return await self._api.chats(limit, offset)

    async def delete(self, chat_id: str) -> bool:
        """Delete a chat with its messages, summaries and recall vectors; False if none."""
        return await self._api.delete(chat_id)

    # -- user memory across chats ---------------------------------------------------------

    async def user_memory(self, user: str) -> list[UserFact]:
        """What is kept about ``user``: facts, preferences, profile lines, with provenance."""
        return await self._api.user_memory(user)

    async def remember(self, user: str, text: str, *, kind: UserFactKind = "fact") -> UserFact:
        """Keep ``text`` about ``user`` (``fact``, ``preference`` or ``profile``)."""
        return await self._api.remember(user, text, kind)

    async def forget(
        self, user: str, *, ids: Sequence[int] | None = None, chat_id: str | None = None
    ) -> int:
        """Delete what is kept about ``user`` (only ``ids``, or what ``chat_id`` left)."""
        return await self._api.forget(user, ids, chat_id)


class AsyncChatClient(ChatHandle):
    """One chat of an :class:`AsyncClient`: append messages, ask for a context."""

    def __init__(self, client: AsyncClient, record: ChatRecord) -> None:
        super().__init__(record)
        self._api = client._api

    async def extend(self, messages: Iterable[Message | Mapping[str, Any]]) -> list[StoredMessage]:
        """Store several messages in one request."""
        return await self._api.extend(self.id, as_messages(messages))

    async def read_context(self, query: str | None, numbers: ContextNumbers) -> Context:
        """The service's context for ``query`` (a ``POST`` of the chat's context)."""
        return await self._api.context(self.id, query, **numbers)

    async def messages(self) -> list[StoredMessage]:
        """Every stored message, oldest first."""
        return await self._api.messages(self.id)

    async def summarize(self) -> SummarizeOut:
        """Summarize now, even below the trigger, through the service's job queue."""
        return await self._api.summarize(self.id)

    async def facts(self) -> list[DurableFact]:
        """The chat's durable facts, merged, as its context shows them."""
        return await self._api.facts(self.id)

    async def delete(self) -> bool:
        """Delete this chat with its messages, summaries and recall vectors."""
        return await self._api.delete(self.id)

    async def forget(self, sequences: Sequence[int]) -> ForgetReceipt:
        """Forget messages everywhere (see ``AsyncChat.forget``); the service's receipt."""
        return await self._api.forget_messages(self.id, sequences)

    async def forget_fact(self, text: str) -> ForgetReceipt:
        """Forget one durable fact and keep it forgotten (see ``AsyncChat.forget_fact``)."""
        return await self._api.forget_fact(self.id, text)


# -- sync: the async client on a private loop ------------------------------------------------


class ChatClient(BlockingChat[AsyncChatClient]):
    """One chat of a :class:`Client`: the synchronous face of :class:`AsyncChatClient`."""

    def summarize(self) -> SummarizeOut:
        """Summarize now, even below the trigger, through the service's job queue."""
        return self._runner.run(self.aio.summarize())


class Client(BlockingMemory[AsyncClient, ChatClient]):
    """The service as a ``Memory``: :class:`AsyncClient` run on a private event loop.

    Takes the same arguments as ``AsyncClient``; use it as a context manager or ``close()``
    it (which also stops its loop's thread).
    """

    chat_class = ChatClient

    @arguments_of(AsyncClient)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("Client", AsyncClient(*args, **kwargs))


if TYPE_CHECKING:

    def _one_chat_api(
        memory: Memory, client: Client, aio: AsyncMemory, aclient: AsyncClient
    ) -> tuple[MemoryAPI, MemoryAPI, AsyncMemoryAPI, AsyncMemoryAPI]:
        """Every door offers the one chat API (mypy checks this return)."""
        return memory, client, aio, aclient
