"""Load conversations from files into a memory: JSONL messages or LoCoMo JSON.

Resumable and idempotent: every batch is appended in one transaction, and a chat that
already holds the first N messages of a file gets only the rest (checked by comparing all N,
so a different conversation is refused rather than mixed in, even when some of its messages
are the same). Re-running an
ingest after it finished, or after it stopped half-way, ends in the same state.

JSONL: one message per line (``Message`` fields: ``role``, ``content``, optional ``name``,
``timestamp``, ``id``, ...), with an optional ``chat_id`` per line; without one the chat id
is the ``chat_id`` argument, else the file's stem. LoCoMo: a JSON list of samples, one chat
per sample (``locomo-<sample_id>``), speaker A as the user and speaker B as the assistant.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from pydantic import ValidationError

from longtalk.core.limits import InputLimits
from longtalk.core.messages import Message, Role
from longtalk.engine import MemoryEngine
from longtalk.errors import InputError, InputTooLarge, UsageError
from longtalk.tools.datasets.locomo import Conversation, iter_conversations

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


@dataclass(frozen=True, slots=True)
class ChatFile:
    """One conversation read from a file."""

    chat_id: str
    messages: list[Message]
    title: str | None = None


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


def read_chats(path: str | Path, *, chat_id: str | None = None) -> list[ChatFile]:
    """The conversations in ``path`` (JSONL messages or a LoCoMo JSON file)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read {path}: not UTF-8 text ({exc.reason})") from None
    if path.suffix == ".json" or text.lstrip().startswith("["):
        return _locomo(path, text)
    return _jsonl(path, text, chat_id or path.stem)


def _jsonl(path: Path, text: str, default_chat: str) -> list[ChatFile]:
    chats: dict[str, list[Message]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise ValueError("a line must be a JSON object")
            chat = str(data.pop("chat_id", None) or default_chat)
            message = Message.model_validate(data)
        except (ValueError, ValidationError) as exc:
            raise UsageError(f"{path}:{number}: not a message: {_first_line(exc)}") from exc
        chats.setdefault(chat, []).append(message)
    return [ChatFile(chat, messages) for chat, messages in chats.items()]


def _locomo(path: Path, text: str) -> list[ChatFile]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{path}: not valid JSON: {exc}") from exc
    if not isinstance(data, list) or not all(isinstance(s, dict) for s in data):
        raise UsageError(f"{path}: a LoCoMo file is a JSON list of samples")
    try:
        return [_locomo_sample(conversation) for conversation in iter_conversations(data)]
    except (KeyError, TypeError, ValidationError) as exc:
        raise UsageError(f"{path}: not a LoCoMo sample: {_first_line(exc)}") from exc


def _locomo_sample(conversation: Conversation) -> ChatFile:
    names = [
        next((m.name for m in conversation.messages if m.role == role and m.name), None)
        for role in (Role.USER, Role.ASSISTANT)
    ]
    title = " & ".join(name for name in names if name) or None
    return ChatFile(f"locomo-{conversation.sample_id}", conversation.messages, title)


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


async def ingest_chats(
    engine: MemoryEngine,
    chats: list[ChatFile],
    *,
    tenant: str = "default",
    batch: int = DEFAULT_BATCH,
    progress: Progress | None = None,
    index: bool = True,
) -> IngestReport:
    """Append each chat's messages that are not stored yet, in batches.

    Every chat and message first passes the input gate (the engine's limits): one refused
    message stops the ingest before anything of any chat is stored. ``index`` False leaves
    recall indexing to the caller (``MemoryEngine.index_pending``).
    """
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
            await engine.add_messages(chat.chat_id, chunk, index=index)
            report.added += len(chunk)
            if progress is not None:
                progress(len(chunk))
    return report


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
            limits.text("chat_id", chat.chat_id, "max_id_chars")
            limits.text("title", chat.title, "max_title_chars")
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
    batch: int = DEFAULT_BATCH,
    progress: Progress | None = None,
) -> IngestReport:
    """Read ``path`` and ingest every conversation in it."""
    chats = read_chats(path, chat_id=chat_id)
    return await ingest_chats(engine, chats, tenant=tenant, batch=batch, progress=progress)


async def _prepare(engine: MemoryEngine, chat: ChatFile, tenant: str, report: IngestReport) -> int:
    """Create the chat if needed; how many of its messages are already stored."""
    record = await engine.storage.get_chat(chat.chat_id)
    if record is None:
        await engine.create_chat(chat.chat_id, tenant=tenant, title=chat.title)
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
