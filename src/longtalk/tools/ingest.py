"""Load conversations from files into a memory (the formats: ``longtalk.tools.chat_files``).

Resumable and idempotent: every batch is appended in one transaction, and a chat that
already holds the first N messages of a file gets only the rest (checked by comparing all N,
so a different conversation is refused rather than mixed in, even when some of its messages
are the same). Re-running an ingest after it finished, or after it stopped half-way, ends in
the same state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from longtalk.core.limits import InputLimits
from longtalk.engine import MemoryEngine, index_later
from longtalk.errors import InputError, InputTooLarge, UsageError
from longtalk.tools.chat_files import ChatFile, read_chats

__all__ = [
    "DEMO_CHAT_ID",
    "ChatFile",
    "IngestReport",
    "check_chats",
    "demo_path",
    "ingest_chats",
    "ingest_file",
    "read_chats",
]

DEMO_CHAT_ID = "demo"
DEFAULT_BATCH = 100
PREFIX_PAGE = 500

Progress = Callable[[int], None]


@dataclass(slots=True)
class IngestReport:
    """What an ingest did."""

    chats: int = 0
    created: int = 0
    added: int = 0
    skipped: int = 0


def demo_path() -> Path:
    """The bundled demo conversation (JSONL)."""
    return Path(str(files("longtalk") / "data" / "demo_chat.jsonl"))


async def ingest_chats(
    engine: MemoryEngine,
    chats: list[ChatFile],
    *,
    tenant: str = "default",
    batch: int | None = None,
    progress: Progress | None = None,
    index: bool = True,
) -> IngestReport:
    """Append each chat's messages that are not stored yet, in batches.

    Every chat and message first passes the input gate (the engine's limits): one refused
    message stops the ingest before anything of any chat is stored. ``index`` False leaves
    recall indexing to the caller (``MemoryEngine.index_pending``). ``batch`` (messages per
    transaction) defaults to ``DEFAULT_BATCH`` or the configured ``max_batch_size`` when that
    is smaller; a ``batch`` given over the limit is refused.
    """
    batch = batch_size(engine.limits, batch)
    check_chats(chats, engine.limits, batch=batch)
    report = IngestReport()
    for chat in chats:
        report.chats += 1
        stored = await _prepare(engine, chat, tenant, report)
        report.skipped += stored
        if progress is not None and stored:
            progress(stored)
        for start in range(stored, len(chat.messages), batch):
            chunk = chat.messages[start : start + batch]
            await engine.append(chat.chat_id, chunk, after=None if index else index_later)
            report.added += len(chunk)
            if progress is not None:
                progress(len(chunk))
    return report


def batch_size(limits: InputLimits, batch: int | None) -> int:
    """``batch``, or by default ``DEFAULT_BATCH`` within the configured ``max_batch_size``."""
    if batch is not None:
        return batch
    return min(DEFAULT_BATCH, limits.max_batch_size) or DEFAULT_BATCH


def check_chats(chats: list[ChatFile], limits: InputLimits, *, batch: int) -> None:
    """Raise ``InputError`` naming the chat and message when anything is over a limit."""
    if batch > limits.max_batch_size:
        raise InputTooLarge(
            f"batches of {batch} messages; the limit is {limits.max_batch_size} "
            f"({limits.setting('max_batch_size')}): pass a smaller --batch",
            field="batch",
            setting=limits.setting("max_batch_size"),
        )
    for chat in chats:
        try:
            limits.chat(chat.user, chat.title, chat.chat_id, id_field="chat_id")
            for index, message in enumerate(chat.messages):
                limits.message(message, index)
        except InputError as exc:
            raise type(exc)(
                f"chat {chat.chat_id[:80]!r}: {exc}; nothing was stored",
                field=exc.field,
                index=exc.index,
                setting=exc.setting,
            ) from None


async def ingest_file(
    engine: MemoryEngine,
    path: str | Path,
    *,
    chat_id: str | None = None,
    tenant: str = "default",
    batch: int | None = None,
    progress: Progress | None = None,
) -> IngestReport:
    """Read ``path`` and ingest every conversation in it."""
    chats = read_chats(path, chat_id=chat_id)
    return await ingest_chats(engine, chats, tenant=tenant, batch=batch, progress=progress)


async def _prepare(engine: MemoryEngine, chat: ChatFile, tenant: str, report: IngestReport) -> int:
    """Create the chat if needed; how many of its messages are already stored."""
    record = await engine.storage.get_chat(chat.chat_id)
    if record is None:
        await engine.create_chat(chat.chat_id, tenant=tenant, user=chat.user, title=chat.title)
        report.created += 1
        return 0
    if record.tenant != tenant:
        raise UsageError(f"chat {chat.chat_id!r} belongs to another tenant; pick another id")
    count = record.message_count
    if count == 0:
        return 0
    if count <= len(chat.messages) and await _holds_prefix(engine, chat, count):
        return count
    raise UsageError(
        f"chat {chat.chat_id!r} already holds {count} messages that are not this file's "
        "first ones; ingest into another chat (--chat)"
    )


async def _holds_prefix(engine: MemoryEngine, chat: ChatFile, count: int) -> bool:
    """True when the chat's ``count`` stored messages are the file's first ``count``."""
    after = 0
    while after < count:
        page = await engine.storage.list_messages(
            chat.chat_id, after_sequence=after, limit=PREFIX_PAGE
        )
        if not page:
            return False
        for stored in page:
            if stored.sequence > count:
                return True
            wanted = chat.messages[stored.sequence - 1]
            if stored.message.content_hash != wanted.content_hash:
                return False
        after = page[-1].sequence
    return True
