"""The synchronous face of an async door: its coroutines run on a private loop in a thread.

``Memory`` wraps ``AsyncMemory`` and ``Client`` wraps ``AsyncClient`` with these, so the
chat API is written once per transport (in its async form) and once here as the blocking
calls over it. A door's own extras (the library's ``summarize(force=)``, ``settle()``) are
added by its subclass. Nothing here loads the engine, so the HTTP client can use it.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import threading
from collections.abc import Callable, Coroutine, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, Protocol, Self, TypeVar

from longtalk.core.receipt import ForgetReceipt
from longtalk.errors import UsageError
from longtalk.memory.api import AsyncChatAPI, AsyncMemoryAPI
from longtalk.memory.handle import ChatIdentity

if TYPE_CHECKING:
    from longtalk.storage.base import ChatRecord

__all__ = ["BlockingChat", "BlockingMemory", "LoopThread", "arguments_of"]

T = TypeVar("T")
P = ParamSpec("P")


class LoopThread:
    """A private event loop on a daemon thread; ``run`` waits for a coroutine on it."""

    def __init__(self, door: str) -> None:
        self.door = door
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="longtalk-loop", daemon=True
        )
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """The coroutine's result, run on this loop (an error from its own thread)."""
        if threading.current_thread() is self.thread:
            coroutine.close()
            raise UsageError(
                f"{self.door} was called from its own loop: use Async{self.door} in async code"
            )
        if self.loop.is_closed():
            coroutine.close()
            raise UsageError(f"this {self.door.lower()} is closed: open a new one")
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    @property
    def stopped(self) -> bool:
        """Whether the loop has been stopped and closed."""
        return self.loop.is_closed()

    def stop(self) -> None:
        """Stop the loop and wait for its thread (a second call does nothing)."""
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


class AsyncChatDoor(AsyncChatAPI, Protocol):
    """An async door's chat: the chat API plus its user and forgetting."""

    @property
    def user(self) -> str | None:
        """The user the chat belongs to."""

    async def forget(self, sequences: Sequence[int]) -> ForgetReceipt:
        """Forget messages everywhere; the receipt."""

    async def forget_fact(self, text: str) -> ForgetReceipt:
        """Forget one durable fact and keep it forgotten; the receipt."""


class Blocking(Protocol):
    """A blocking face: the async object it wraps and the loop its calls run on."""

    _runner: LoopThread

    @property
    def aio(self) -> Any:
        """The async object underneath."""


def blocking(
    method: Callable[Concatenate[Any, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[Blocking, P], T]:
    """The blocking form of an async method: the same call on ``aio``, run on the loop.

    A blocking door is its async twin's API call for call; this writes each call once, from
    the async declaration (its parameters and docstring), instead of again by hand.
    """
    name = method.__name__

    @functools.wraps(method)
    def call(self: Blocking, /, *args: P.args, **kwargs: P.kwargs) -> T:
        result: T = self._runner.run(getattr(self.aio, name)(*args, **kwargs))
        return result

    return call


def arguments_of(
    door: Callable[P, Any],
) -> Callable[[Callable[..., None]], Callable[Concatenate[Any, P], None]]:
    """Give a blocking door's ``__init__`` the parameters of its async twin's.

    A blocking door takes the same arguments as the door it wraps and hands them on: they
    are declared once, on the async door, and checked (by mypy, and shown by ``help()``)
    as declared there.
    """
    signature = inspect.signature(door)
    myself = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)

    def declare(init: Callable[..., None]) -> Callable[Concatenate[Any, P], None]:
        init.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[myself, *signature.parameters.values()]
        )
        return init

    return declare


C = TypeVar("C", bound=AsyncChatDoor)
M = TypeVar("M", bound=AsyncMemoryAPI)
W = TypeVar("W", bound="BlockingChat[Any]")


class BlockingChat(ChatIdentity, Generic[C]):
    """One chat of a blocking door: each call runs the async chat's on the door's loop."""

    def __init__(self, runner: LoopThread, chat: C) -> None:
        self._runner = runner
        self.aio = chat

    def last_read(self) -> ChatRecord:
        """The async chat's record as last read."""
        return self.aio.record

    @property
    def record(self) -> ChatRecord:
        """The chat's record as last read."""
        return self.aio.record

    append = blocking(AsyncChatDoor.append)
    extend = blocking(AsyncChatDoor.extend)
    context = blocking(AsyncChatDoor.context)
    messages = blocking(AsyncChatDoor.messages)
    facts = blocking(AsyncChatDoor.facts)
    delete = blocking(AsyncChatDoor.delete)
    forget = blocking(AsyncChatDoor.forget)
    forget_fact = blocking(AsyncChatDoor.forget_fact)


class BlockingMemory(Generic[M, W]):
    """A blocking door over an async one; its chats are wrapped in ``chat_class``."""

    chat_class: type[W]

    def __init__(self, door: str, memory: M) -> None:
        self._async = memory
        self._runner = LoopThread(door)

    @property
    def aio(self) -> M:
        """The async door underneath (its coroutines run on this door's loop only)."""
        return self._async

    def close(self) -> None:
        """Close the async door (waiting for what it waits for), then stop the loop."""
        if self._runner.stopped:
            return
        try:
            self._runner.run(self.aio.aclose())
        finally:
            self._runner.stop()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def chat(
        self, chat_id: str | None = None, *, user: str | None = None, title: str | None = None
    ) -> W:
        """The chat ``chat_id``, created if it does not exist (a new id when None)."""
        found = self._runner.run(self.aio.chat(chat_id, user=user, title=title))
        return self.chat_class(self._runner, found)

    def get(self, chat_id: str) -> W | None:
        """The chat ``chat_id``, or None when there is none."""
        found = self._runner.run(self.aio.get(chat_id))
        return None if found is None else self.chat_class(self._runner, found)

    chats = blocking(AsyncMemoryAPI.chats)
    delete = blocking(AsyncMemoryAPI.delete)
    user_memory = blocking(AsyncMemoryAPI.user_memory)
    remember = blocking(AsyncMemoryAPI.remember)
    forget = blocking(AsyncMemoryAPI.forget)
