"""Build a ready memory from ``Settings``: the one place backends are chosen.

``async with open_memory(settings) as memory:`` gives a set-up ``MemoryEngine`` on the
embedded defaults unless configured otherwise (SQLite, Qdrant edge, the bundled MiniLM
embedder, the offline summarizer) and closes everything on exit.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from memstrata.config import Settings
from memstrata.core.writer import SummaryWriter
from memstrata.engine import MemoryEngine, RecallBackend
from memstrata.llm.base import LLM
from memstrata.llm.writer import LLMSummaryWriter
from memstrata.storage.base import ChatStorage
from memstrata.storage.memory import InMemoryStorage
from memstrata.storage.resolve import resolve_storage

log = logging.getLogger(__name__)


def summary_llm(settings: Settings) -> LLM | None:
    """The configured summary model, or None for the offline summarizer."""
    model = settings.memory.summary_model
    if not model or model in ("offline", "none"):
        return None
    from memstrata.llm.resolve import resolve_llm

    return resolve_llm(
        model,
        base_url=settings.llm.base_url,
        api_key_env=settings.llm.api_key_env,
        timeout=settings.llm.timeout_seconds,
        max_retries=settings.llm.max_retries,
    )


def summary_writer(settings: Settings, llm: LLM | None, agent: str | None = None) -> SummaryWriter:
    """An LLM-backed writer with the agent's prompts, or the offline summarizer."""
    if llm is None:
        from memstrata.llm.offline import OfflineSummaryWriter

        return OfflineSummaryWriter()
    return LLMSummaryWriter(llm, prompts=settings.prompts_for(agent))


def chat_storage(settings: Settings) -> ChatStorage:
    """The chat storage; ``persist_summary: false`` keeps the whole memory in process."""
    if not settings.memory.persist_summary:
        return InMemoryStorage()
    return resolve_storage(settings.storage)


async def recall_backend(settings: Settings, stack: AsyncExitStack) -> RecallBackend | None:
    """The recall backend for ``rag_augmented`` (None otherwise)."""
    if settings.memory.strategy != "rag_augmented":
        return None
    log.warning("rag_augmented: recall is not wired yet, degrading to running_summary")
    return None


@asynccontextmanager
async def open_memory(
    settings: Settings | None = None, *, agent: str | None = None
) -> AsyncIterator[MemoryEngine]:
    """A set-up memory engine for ``settings`` (defaults: the embedded stack)."""
    settings = settings or Settings()
    async with AsyncExitStack() as stack:
        storage = chat_storage(settings)
        await storage.setup()
        stack.push_async_callback(storage.close)
        llm = summary_llm(settings)
        recall = await recall_backend(settings, stack)
        yield MemoryEngine(
            storage,
            config=settings.memory,
            writer=summary_writer(settings, llm, agent),
            recall=recall,
            title_llm=llm,
            truncation_llm=llm,
        )
