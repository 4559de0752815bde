"""``Memory`` and ``Chat``: ``AsyncMemory`` run on a private event loop in its own thread."""

from __future__ import annotations

from typing import Any, Self

from longtalk.config import Settings
from longtalk.engine import MemoryEngine, SummarizeOutcome
from longtalk.memory.async_memory import AsyncChat, AsyncMemory
from longtalk.memory.blocking import BlockingChat, BlockingMemory, arguments_of
from longtalk.storage.base import ChatRecord


class Chat(BlockingChat[AsyncChat]):
    """One chat of a :class:`Memory`: the synchronous face of :class:`AsyncChat`."""

    @property
    def record(self) -> ChatRecord:
        """The chat's record, read now: title, message count, summary cost and backoff."""
        return self._runner.run(self.aio.refresh())

    def summarize(self, *, force: bool = False) -> SummarizeOutcome:
        """Extend the running summary now if its trigger holds (or ``force``)."""
        return self._runner.run(self.aio.summarize(force=force))


class Memory(BlockingMemory[AsyncMemory, Chat]):
    """The synchronous front door: :class:`AsyncMemory` run on a private event loop.

    Takes the same arguments as ``AsyncMemory``; use it as a context manager or ``close()`` it.
    """

    chat_class = Chat

    @arguments_of(AsyncMemory)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("Memory", AsyncMemory(*args, **kwargs))

    @property
    def engine(self) -> MemoryEngine:
        """The engine underneath (opened on first use)."""
        return self._runner.run(self._async.open())

    @property
    def settings(self) -> Settings | None:
        """The resolved settings (None for a memory built on your own engine)."""
        return self._async.settings

    def open(self) -> Self:
        """Open the storage and vector store now instead of on first use."""
        self._runner.run(self._async.open())
        return self

    def settle(self) -> None:
        """Wait until every background summary queued so far has run."""
        self._runner.run(self._async.settle())

    def __enter__(self) -> Self:
        return self.open()
