"""Build a ready memory from ``Settings``: the one place backends are chosen.

``async with open_memory(settings) as memory:`` gives a set-up ``MemoryEngine`` on the
embedded defaults unless configured otherwise (SQLite, Qdrant edge, the bundled MiniLM
embedder, the offline summarizer) and closes everything on exit.
"""

from __future__ import annotations

import logging
import tempfile
import warnings
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from longtalk.config import Settings, load_settings
from longtalk.core.context import ContextBudget
from longtalk.embed.base import Embedder
from longtalk.engine import MemoryEngine, RecallBackend
from longtalk.errors import BackendError, ConfigError
from longtalk.llm.base import LLM
from longtalk.recall.outbox import open_for_model
from longtalk.storage.base import ChatStorage
from longtalk.storage.in_memory import InMemoryStorage
from longtalk.storage.resolve import resolve_storage
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.summary.prompts import prompts_for
from longtalk.summary.writer import SummaryWriter
from longtalk.vectors.base import NullVectorReader

log = logging.getLogger(__name__)


def summary_llm(settings: Settings) -> LLM | None:
    """The configured summary model, or None for the offline summarizer."""
    model = settings.memory.summary_model
    if not model or model in ("offline", "none"):
        return None
    from longtalk.llm.keys import MissingKeyWarning, missing_key
    from longtalk.llm.resolve import resolve_llm

    problem = missing_key(
        model, base_url=settings.llm.base_url, api_key_env=settings.llm.api_key_env
    )
    if problem is not None:
        warnings.warn(problem, MissingKeyWarning, stacklevel=2)
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
        from longtalk.embed.minilm import MiniLMEmbedder
        from longtalk.summary.offline import OfflineSummaryWriter

        return OfflineSummaryWriter(
            MiniLMEmbedder(background=settings.vectors.background_embedding)
        )
    return LLMSummaryWriter(llm, prompts=prompts_for(settings, agent), config=settings.memory)


def chat_storage(settings: Settings) -> ChatStorage:
    """The chat storage; ``persist_summary: false`` keeps the whole memory in process."""
    if not settings.memory.persist_summary:
        return InMemoryStorage()
    return resolve_storage(settings.storage)


def embedder_for(settings: Settings) -> Embedder:
    """The configured embedder: the bundled MiniLM model, or the hashing fallback."""
    name = settings.vectors.embedder
    if name == "minilm":
        from longtalk.embed.minilm import MiniLMEmbedder

        return MiniLMEmbedder(background=settings.vectors.background_embedding)
    if name == "hashing":
        from longtalk.embed.hashing import HashingEmbedder

        return HashingEmbedder()
    raise ConfigError(f"unknown embedder {name!r}; use minilm or hashing", path="vectors.embedder")


def vectors_url(settings: Settings, storage: ChatStorage, stack: AsyncExitStack) -> str:
    """The configured vector store, or by default Qdrant edge beside the chat storage.

    Beside a SQLite file ``chats.db`` that is the directory ``chats-vectors``, so two
    databases never share vectors; for in-memory storage a temporary directory removed on
    close; for a database server ``vectors`` under the data directory.
    """
    url = settings.vectors.url
    if url is not None and url.strip() != "qdrant-edge:":
        return url
    from longtalk.storage.sqlite import SqliteStorage
    from longtalk.vectors.resolve import default_edge_path

    if isinstance(storage, SqliteStorage):
        return f"qdrant-edge:{storage.path.with_name(storage.path.stem + '-vectors')}"
    if isinstance(storage, InMemoryStorage):
        scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="longtalk-vectors-"))
        return f"qdrant-edge:{scratch}"
    return f"qdrant-edge:{default_edge_path()}"


async def recall_backend(
    settings: Settings, stack: AsyncExitStack, embedder: Embedder, storage: ChatStorage
) -> RecallBackend | None:
    """The recall backend for ``rag_augmented`` (None otherwise).

    A vector store that cannot be opened degrades to no recall (Orchid's
    ``NullVectorReader``): the memory then behaves as ``running_summary``, with a warning.
    A store of another embedding model is rebuilt from ``storage``, never mixed.
    """
    if settings.memory.strategy != "rag_augmented":
        return None
    from longtalk.recall.ranking import RankingConfig
    from longtalk.recall.retriever import HybridRetriever
    from longtalk.vectors.resolve import resolve_vector_store

    store = resolve_vector_store(vectors_url(settings, storage, stack))
    ranking = RankingConfig(fusion=settings.memory.rag_ranking)
    retriever = HybridRetriever(store, embedder, ranking=ranking)
    try:
        await open_for_model(
            storage, store, dimension=embedder.dimension, model_id=embedder.model_id
        )
        await retriever.setup()
    except BackendError as exc:
        log.warning("vector store unavailable, recall is off (running_summary only): %s", exc)
        await store.close()
        return NullVectorReader(unavailable=str(exc))
    stack.push_async_callback(retriever.close)
    return retriever


def context_budget(settings: Settings) -> ContextBudget:
    """The budget rules: fill recall by score per token, except for the hand-set fusion.

    The learned ranker's scores are relevance shares, so score per token packs the most
    needed turns; the hand-set fusion's scores are not, and lost recall that way. Nor are
    they relative to the chat's best match, which ``recall_answered`` reads.
    """
    if settings.memory.rag_ranking == "weighted":
        return ContextBudget(length_penalty=0.0, recall_answered=0.0)
    return ContextBudget()


@asynccontextmanager
async def open_memory(
    settings: Settings | None = None, *, agent: str | None = None
) -> AsyncIterator[MemoryEngine]:
    """A set-up memory engine for ``settings``.

    Without settings: the embedded defaults, with ``LONGTALK_*`` environment overrides.
    """
    settings = settings or load_settings()
    async with AsyncExitStack() as stack:
        storage = chat_storage(settings)
        await storage.setup()
        stack.push_async_callback(storage.close)
        llm = summary_llm(settings)
        close_llm = getattr(llm, "aclose", None)  # an HTTP backend's connection pool
        if close_llm is not None:
            stack.push_async_callback(close_llm)
        embedder = embedder_for(settings)  # loads its model on first use only
        recall = await recall_backend(settings, stack, embedder, storage)
        yield MemoryEngine(
            storage,
            config=settings.memory,
            writer=summary_writer(settings, llm, agent),
            recall=recall,
            title_llm=llm,
            truncation_llm=llm,
            embedder=embedder,  # the semantic truncation strategy ranks sentences with it
            budget=context_budget(settings),
            limits=settings.input_limits,
        )
