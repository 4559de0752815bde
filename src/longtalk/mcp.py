"""An MCP server exposing memory tools (the official ``mcp`` SDK; ``pip install longtalk[mcp]``).

``longtalk mcp`` serves it over stdio: an MCP client (Claude Desktop, an IDE, an agent
framework) gets tools to append to a chat, assemble its context, read its messages, list,
summarize and delete chats. The memory opens from the settings the server is started with
when the client connects, and closes when it leaves. MCP clients start stdio servers with a
bare environment (the SDK passes ``HOME``, ``PATH`` and a few others, no ``LONGTALK_*``), so
``longtalk mcp`` takes ``--data-dir`` and ``--config`` as arguments; the server logs where
its chats are stored on stderr, which the client shows in its server log.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from io import TextIOWrapper
from typing import Any, Literal, cast

import anyio
from pydantic import BaseModel

from longtalk._version import __version__
from longtalk.config import Settings
from longtalk.core.fields import same_named
from longtalk.core.limits import json_problem
from longtalk.core.messages import build_message
from longtalk.core.redact import redact, redact_logs
from longtalk.engine import MemoryEngine
from longtalk.errors import LongtalkError, UsageError, needs_extra
from longtalk.memory import AsyncChat, AsyncMemory
from longtalk.memory import Context as MemoryContext
from longtalk.storage.base import ChatRecord
from longtalk.storage.records import UserFactKind
from longtalk.wire import FactOut, UserFactOut
from longtalk.wire.forgetting import ReceiptOut

try:
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.server.stdio import stdio_server
    from mcp_types import jsonrpc_message_adapter
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the installed extras
    raise needs_extra("longtalk.mcp", "the MCP SDK", "mcp", exc) from exc

log = logging.getLogger(__name__)
log.setLevel(logging.INFO)  # where the chats are stored is said; the rest only when it warns
SERVER_NAME = "longtalk"
INSTRUCTIONS = (
    "Conversation memory. Append each turn with append_message, then call get_context with "
    "the user's latest question to get what to give the model: recalled earlier turns, the "
    "running summary and the recent messages, within a token budget."
)

RoleName = Literal["user", "assistant", "system", "tool"]


class ChatInfo(BaseModel):
    """A chat and its summary bookkeeping."""

    id: str
    title: str | None
    user: str | None
    message_count: int
    last_summarized_sequence: int

    @classmethod
    def of(cls, chat: ChatRecord) -> ChatInfo:
        """From a storage record."""
        return cls(**same_named(cls.model_fields, chat))


class Appended(BaseModel):
    """What ``append_message`` stored."""

    chat_id: str
    sequence: int
    created_chat: bool


class ContextPartInfo(BaseModel):
    """One part of an assembled context: recalled, summary or verbatim."""

    kind: str
    tokens: int
    text: str


class ContextInfo(BaseModel):
    """An assembled context: the messages to send, the full text and its parts."""

    chat_id: str
    tokens_used: int
    budget_tokens: int
    messages: list[dict[str, str]]
    text: str
    parts: list[ContextPartInfo]
    dropped_facts: int = 0
    user_facts: list[UserFactOut] = []

    @classmethod
    def of(cls, chat_id: str, context: MemoryContext) -> ContextInfo:
        """From the memory's context (its ``messages`` are what to send the model)."""
        return cls(
            chat_id=chat_id,
            tokens_used=context.tokens,
            budget_tokens=context.budget_tokens,
            messages=context.messages,
            text=context.text,
            parts=[
                ContextPartInfo(kind=p.kind, tokens=p.tokens, text=p.text) for p in context.parts
            ],
            dropped_facts=context.dropped_facts,
            user_facts=[UserFactOut.of(fact) for fact in context.user_facts],
        )


class StoredMessageInfo(BaseModel):
    """A stored message with its place in the chat."""

    sequence: int
    role: str
    content: str
    name: str | None


class MemoryTools:
    """The memory operations the server exposes, over one ``AsyncMemory``."""

    def __init__(self, memory: AsyncMemory) -> None:
        self.memory = memory

    async def chat(self, chat_id: str) -> AsyncChat:
        """The chat, or a clear error naming it."""
        chat = await self.memory.get(chat_id)
        if chat is None:
            raise UsageError(f"no chat {chat_id!r}; append a message to create it")
        return chat

    async def append_message(
        self,
        chat_id: str,
        role: RoleName,
        content: str,
        name: str | None = None,
        user: str | None = None,
        title: str | None = None,
    ) -> Appended:
        """Store one message, creating the chat on first use (summarizes when due).

        ``user`` and ``title`` are the new chat's (an existing chat keeps its own). The chat
        and the message pass the input gate before anything is created: a refused first
        message leaves no empty chat behind.
        """
        limits = (await self.memory.open()).limits
        limits.chat(user, title, chat_id, id_field="chat_id")
        limits.batch([build_message(role, content, name, None, None, {})])
        created = await self.memory.get(chat_id) is None
        chat = await self.memory.chat(chat_id, user=user, title=title)
        stored = await chat.append(role, content, name=name)
        return Appended(chat_id=chat_id, sequence=stored.sequence, created_chat=created)

    async def get_context(
        self, chat_id: str, query: str | None = None, budget_tokens: int | None = None
    ) -> ContextInfo:
        """The context to give the model for ``query``."""
        chat = await self.chat(chat_id)
        return ContextInfo.of(chat_id, await chat.context(query, budget_tokens=budget_tokens))

    async def get_messages(
        self, chat_id: str, after_sequence: int = 0, limit: int = 50
    ) -> list[StoredMessageInfo]:
        """Stored messages after ``after_sequence``, oldest first."""
        await self.chat(chat_id)
        items = await self.memory.engine.storage.list_messages(
            chat_id, after_sequence=after_sequence, limit=max(1, min(limit, 500))
        )
        return [
            StoredMessageInfo(
                sequence=item.sequence,
                role=item.message.role.value,
                content=item.message.content,
                name=item.message.name,
            )
            for item in items
        ]

    async def list_chats(self, limit: int = 50, offset: int = 0) -> list[ChatInfo]:
        """Chats, most recently updated first."""
        chats = await self.memory.chats(limit=max(1, min(limit, 500)), offset=max(0, offset))
        return [ChatInfo.of(chat) for chat in chats]

    async def summarize_chat(self, chat_id: str) -> ChatInfo:
        """Extend the chat's running summary now, even below its trigger."""
        await (await self.chat(chat_id)).summarize(force=True)
        return ChatInfo.of((await self.chat(chat_id)).record)

    async def delete_chat(self, chat_id: str) -> bool:
        """Delete a chat with its messages, summaries and recall vectors."""
        await self.chat(chat_id)
        return await self.memory.delete(chat_id)

    async def get_facts(self, chat_id: str) -> list[FactOut]:
        """The chat's durable facts, merged, each with the messages that said it."""
        return [FactOut.of(fact) for fact in await (await self.chat(chat_id)).facts()]

    async def user_memory(self, user: str) -> list[UserFactOut]:
        """What is kept about ``user`` across chats, with provenance."""
        return [UserFactOut.of(item) for item in await self.memory.user_memory(user)]

    async def remember(self, user: str, text: str, kind: UserFactKind = "fact") -> UserFactOut:
        """Keep ``text`` about ``user``."""
        return UserFactOut.of(await self.memory.remember(user, text, kind=kind))

    async def forget(
        self, user: str, ids: list[int] | None = None, chat_id: str | None = None
    ) -> int:
        """Delete what is kept about ``user``; how many items went."""
        return await self.memory.forget(user, ids=ids, chat_id=chat_id)

    async def forget_messages(self, chat_id: str, sequences: list[int]) -> ReceiptOut:
        """Forget messages everywhere; the receipt."""
        return ReceiptOut.of(await (await self.chat(chat_id)).forget(sequences))


ToolsContext = Context[MemoryTools, Any]


def create_server(
    settings: Settings | None = None, *, engine: MemoryEngine | None = None
) -> MCPServer[MemoryTools]:
    """The MCP server; its memory opens from ``settings`` unless ``engine`` is given."""

    @asynccontextmanager
    async def lifespan(_: MCPServer[MemoryTools]) -> AsyncIterator[MemoryTools]:
        redact_logs()  # the SDK's log handlers are in place by now: mask what they write
        async with AsyncMemory(settings, engine=engine) as memory:
            storage = memory.engine.storage
            where = getattr(storage, "location", None) or type(storage).__name__
            log.info("longtalk MCP server: chats stored in %s", where)
            yield MemoryTools(memory)

    server: MCPServer[MemoryTools] = MCPServer(  # the client's server log: warnings only
        SERVER_NAME,
        instructions=INSTRUCTIONS,
        version=__version__,
        lifespan=lifespan,
        log_level="WARNING",
    )
    _register(server)
    redact_logs()
    return server


@contextmanager
def _reported() -> Iterator[None]:
    """Memory errors reach the client as the tool's error message (the SDK hides others)."""
    try:
        yield
    except LongtalkError as exc:
        raise ToolError(redact(str(exc))) from exc


def _register(server: MCPServer[MemoryTools]) -> None:
    def tools(ctx: ToolsContext) -> MemoryTools:
        return ctx.request_context.lifespan_context

    @server.tool()
    async def append_message(
        chat_id: str,
        role: RoleName,
        content: str,
        ctx: ToolsContext,
        name: str | None = None,
        user: str | None = None,
        title: str | None = None,
    ) -> Appended:
        """Append one message to a chat (created on first use for ``user``); summarizes if due."""
        with _reported():
            return await tools(ctx).append_message(chat_id, role, content, name, user, title)

    @server.tool()
    async def get_context(
        chat_id: str, ctx: ToolsContext, query: str | None = None, budget_tokens: int | None = None
    ) -> ContextInfo:
        """The context for the model: recalled turns, summary and recent messages, in budget."""
        with _reported():
            return await tools(ctx).get_context(chat_id, query, budget_tokens)

    @server.tool()
    async def get_messages(
        chat_id: str, ctx: ToolsContext, after_sequence: int = 0, limit: int = 50
    ) -> list[StoredMessageInfo]:
        """A chat's stored messages after ``after_sequence``, oldest first."""
        with _reported():
            return await tools(ctx).get_messages(chat_id, after_sequence, limit)

    @server.tool()
    async def list_chats(ctx: ToolsContext, limit: int = 50, offset: int = 0) -> list[ChatInfo]:
        """The chats, newest first."""
        with _reported():
            return await tools(ctx).list_chats(limit, offset)

    @server.tool()
    async def summarize_chat(chat_id: str, ctx: ToolsContext) -> ChatInfo:
        """Extend a chat's running summary now."""
        with _reported():
            return await tools(ctx).summarize_chat(chat_id)

    @server.tool()
    async def delete_chat(chat_id: str, ctx: ToolsContext) -> bool:
        """Delete a chat with its messages, summaries and recall vectors."""
        with _reported():
            return await tools(ctx).delete_chat(chat_id)

    @server.tool()
    async def get_facts(chat_id: str, ctx: ToolsContext) -> list[FactOut]:
        """A chat's durable facts (what its people said about themselves), with sources."""
        with _reported():
            return await tools(ctx).get_facts(chat_id)

    @server.tool()
    async def user_memory(user: str, ctx: ToolsContext) -> list[UserFactOut]:
        """What is kept about a user across chats: facts, preferences, profile lines."""
        with _reported():
            return await tools(ctx).user_memory(user)

    @server.tool()
    async def remember(
        user: str, text: str, ctx: ToolsContext, kind: UserFactKind = "fact"
    ) -> UserFactOut:
        """Keep one item about a user (fact, preference or profile) for all their chats."""
        with _reported():
            return await tools(ctx).remember(user, text, kind)

    @server.tool()
    async def forget(
        user: str, ctx: ToolsContext, ids: list[int] | None = None, chat_id: str | None = None
    ) -> int:
        """Delete what is kept about a user: all, only ``ids``, or what ``chat_id`` left."""
        with _reported():
            return await tools(ctx).forget(user, ids, chat_id)

    @server.tool()
    async def forget_messages(chat_id: str, sequences: list[int], ctx: ToolsContext) -> ReceiptOut:
        """Forget messages of a chat everywhere, with what was drawn from them; the receipt."""
        with _reported():
            return await tools(ctx).forget_messages(chat_id, sequences)


def run_stdio(settings: Settings | None = None) -> None:
    """Serve the memory tools over stdio until the client disconnects.

    Every request gets an answer: one the SDK cannot read (invalid JSON, a lone surrogate
    sent as a JSON escape, not a JSON-RPC message) is answered here with a JSON-RPC error
    naming the problem, where the SDK would drop it without a word.
    """
    anyio.run(_serve_stdio, create_server(settings))


async def _serve_stdio(server: MCPServer[MemoryTools]) -> None:
    wire = _Wire(anyio.wrap_file(TextIOWrapper(sys.stdout.buffer, encoding="utf-8")))
    lines = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    stdin = cast("anyio.AsyncFile[str]", _Answered(lines, wire))
    stdout = cast("anyio.AsyncFile[str]", wire)
    lowlevel = server._lowlevel_server  # what the SDK's own run_stdio_async runs
    async with stdio_server(stdin=stdin, stdout=stdout) as (read, write):
        await lowlevel.run(read, write, lowlevel.create_initialization_options())


class _Wire:
    """The server's stdout, one whole line at a time (the SDK's answers and the gate's)."""

    def __init__(self, out: anyio.AsyncFile[str]) -> None:
        self.out = out
        self.lock = anyio.Lock()

    async def write(self, text: str) -> None:
        """Write ``text`` (a whole line) and flush it."""
        async with self.lock:
            await self.out.write(text)
            await self.out.flush()

    async def flush(self) -> None:
        """Each write is flushed already."""


class _Answered:
    """stdin's lines; one the SDK could not read is answered with an error, not passed on."""

    def __init__(self, lines: anyio.AsyncFile[str], wire: _Wire) -> None:
        self.lines = lines
        self.wire = wire

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self.lines:
            problem, request_id = unreadable(line)
            if problem is None:
                yield line
            elif request_id is not _NO_ID:
                answer = {"jsonrpc": "2.0", "id": request_id, "error": problem}
                await self.wire.write(json.dumps(answer) + "\n")


_NO_ID = object()
"""A notification's id: it gets no answer."""


def unreadable(line: str) -> tuple[dict[str, Any] | None, Any]:
    """Why the SDK cannot read ``line`` as a JSON-RPC error object, and the request's id.

    ``(None, …)`` for a line it reads. A lone surrogate is named with its path
    (``params.arguments.content``); the id is None when the line is not JSON at all.
    """
    if not line.strip():
        return None, _NO_ID
    try:
        message = json.loads(line)
    except ValueError as exc:
        return {"code": -32700, "message": f"parse error: {exc}"}, None
    request_id = message.get("id", _NO_ID) if isinstance(message, dict) else None
    problem = json_problem(message, max_depth=64)
    if problem is not None and "surrogate" in problem:  # the tools' own gate takes the rest
        return {"code": -32602, "message": f"invalid params: {problem}"}, request_id
    try:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError as exc:
        return {"code": -32600, "message": f"invalid request: {_first_error(exc)}"}, request_id
    return None, _NO_ID


def _first_error(exc: ValueError) -> str:
    return " ".join(str(exc).split())[:300]
