"""Reading conversations from files: JSONL messages, a ``longtalk export`` file, LoCoMo JSON.

``read_chats`` tells the formats apart by content (a ``.jsonl`` file is always JSONL, so a
line holding a JSON array is a bad line there, never a LoCoMo file):

- JSONL: one message per line (``Message`` fields: ``role``, ``content``, optional ``name``,
  ``timestamp``, ``id``, ``type``, ``tool_call_ids``, ``metadata``), with an optional
  ``chat_id`` per line; without one the chat id is the ``chat_id`` argument, else the
  file's stem.
- Export: the JSON object ``longtalk export`` writes (``chat`` with its id, title and user,
  and ``messages``); its summaries are not read (they are made again from the messages).
- LoCoMo: a JSON list of samples, one chat per sample (``locomo-<sample_id>``), speaker A as
  the user and speaker B as the assistant.

A bad entry is a ``UsageError`` naming the file, the line (or the entry) and the field,
raised before anything is stored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from longtalk.core.limits import has_surrogate
from longtalk.core.messages import Message, Role
from longtalk.errors import UsageError
from longtalk.tools.datasets.locomo import Conversation, iter_conversations

__all__ = ["ChatFile", "read_chats"]

SHOWN_ERRORS = 3


@dataclass(frozen=True, slots=True)
class ChatFile:
    """One conversation read from a file."""

    chat_id: str
    messages: list[Message]
    title: str | None = None
    user: str | None = None


def read_chats(path: str | Path, *, chat_id: str | None = None) -> list[ChatFile]:
    """The conversations in ``path`` (JSONL messages, an export, or a LoCoMo JSON file).

    ``chat_id`` names the chat of JSONL lines without one and of an export (default: the
    chat id the file gives, else the file's stem).
    """
    path = Path(path)
    text = _read_text(path)
    data = _whole_document(path, text)
    one_message = isinstance(data, dict) and "messages" not in data
    if data is None or (one_message and path.suffix.lower() != ".json"):
        return _jsonl(path, text, chat_id or path.stem)
    if isinstance(data, dict) and not one_message:
        return [_export(path, data, chat_id)]
    if isinstance(data, list):
        return _locomo(path, data)
    raise UsageError(
        f"{path}: a JSON file holds a longtalk export (an object with 'messages') or a LoCoMo "
        f"list of samples, not {_kind(data)}; see 'longtalk ingest --help'"
    )


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read {path}: not UTF-8 text ({exc.reason})") from None


def _whole_document(path: Path, text: str) -> Any:
    """The file as one JSON value, or None when it is JSON lines."""
    if path.suffix.lower() == ".jsonl":
        return None
    try:
        return _loads(text, "line {line}, column {column}")
    except UsageError as exc:
        if path.suffix.lower() == ".json":
            raise UsageError(f"{path}: {exc}") from None
        return None  # several values, one a line: JSON lines


def _loads(text: str, at: str) -> Any:
    """``text`` as JSON; a ``UsageError`` saying where (``at``) it is not."""
    try:
        return json.loads(text)
    except RecursionError:
        raise UsageError("not readable JSON: it nests too deep") from None
    except json.JSONDecodeError as exc:
        where = at.format(line=exc.lineno, column=exc.colno)
        raise UsageError(f"not valid JSON: {exc.msg} ({where})") from None


def _jsonl(path: Path, text: str, default_chat: str) -> list[ChatFile]:
    chats: dict[str, list[Message]] = {}
    # "\n" only: str.splitlines() would also split at U+2028 and friends inside a string
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = _loads(line, "column {column}")
        except UsageError as exc:
            raise UsageError(f"{where}: {exc}") from None
        if not isinstance(data, dict):
            raise UsageError(
                f"{where}: not a message: a line holds one message as a JSON object, not "
                f"{_kind(data)}"
            )
        chat = data.pop("chat_id", None)
        if chat is not None and not (isinstance(chat, str) and chat.strip()):
            raise UsageError(f"{where}: not a message: chat_id: a chat id is a non-empty string")
        chats.setdefault(chat or default_chat, []).append(message_of(where, data))
    return [ChatFile(chat, messages) for chat, messages in chats.items()]


def _export(path: Path, data: dict[str, Any], chat_id: str | None) -> ChatFile:
    chat, messages = data.get("chat") or {}, data["messages"]
    if not isinstance(chat, dict) or not isinstance(messages, list):
        raise UsageError(f"{path}: an export holds 'chat' (an object) and 'messages' (a list)")
    found = []
    for index, raw in enumerate(messages):
        where = f"{path}: messages[{index}]"
        if not isinstance(raw, dict):
            raise UsageError(f"{where}: not a message: {_kind(raw)}, not a JSON object")
        fields = {key: value for key, value in raw.items() if key != "sequence"}
        found.append(message_of(where, fields))
    return ChatFile(
        chat_id or _text(chat.get("id")) or path.stem,
        found,
        _text(chat.get("title")),
        _text(chat.get("user")),
    )


def _locomo(path: Path, data: list[Any]) -> list[ChatFile]:
    for index, sample in enumerate(data):
        if not isinstance(sample, dict) or not isinstance(sample.get("conversation"), dict):
            raise UsageError(
                f"{path}: sample {index}: not a LoCoMo sample (an object with 'conversation')"
            )
    if (where := lone_surrogate(data)) is not None:
        raise UsageError(f"{path}: {where}: text holds a lone surrogate (not valid Unicode)")
    try:
        return [_locomo_sample(conversation) for conversation in iter_conversations(data)]
    except ValidationError as exc:
        raise UsageError(f"{path}: not a LoCoMo sample: {describe(exc)}") from None
    except (KeyError, TypeError, AttributeError) as exc:
        raise UsageError(f"{path}: not a LoCoMo sample: {type(exc).__name__} {exc}") from None


def _locomo_sample(conversation: Conversation) -> ChatFile:
    names = [
        next((m.name for m in conversation.messages if m.role == role and m.name), None)
        for role in (Role.USER, Role.ASSISTANT)
    ]
    title = " & ".join(name for name in names if name) or None
    return ChatFile(f"locomo-{conversation.sample_id}", conversation.messages, title)


def message_of(where: str, data: dict[str, Any]) -> Message:
    """``data`` as a message; a ``UsageError`` naming ``where`` and the field otherwise."""
    if (field := lone_surrogate(data)) is not None:
        raise UsageError(f"{where}: not a message: {field}: a lone surrogate (not valid Unicode)")
    try:
        return Message.model_validate(data)
    except ValidationError as exc:
        raise UsageError(f"{where}: not a message: {describe(exc)}") from None


def describe(exc: ValidationError) -> str:
    """The validation errors as ``field: problem (got value)``, the first few of them."""
    shown = []
    for error in exc.errors()[:SHOWN_ERRORS]:
        field = ".".join(str(part) for part in error["loc"]) or "the value"
        text = f"{field}: {error['msg']}"
        value = error.get("input")
        if error["type"] != "missing" and isinstance(value, str | int | float | bool):
            text += f" (got {json.dumps(value, ensure_ascii=False)[:60]})"
        shown.append(text)
    more = exc.error_count() - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def lone_surrogate(value: Any) -> str | None:
    """Where in ``value`` a string (or a key) holds a lone surrogate, or None."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and has_surrogate(item):
                return where or "the value"
        elif isinstance(item, dict):
            for key, child in item.items():
                name = f"{where}.{key}" if where else str(key)
                if isinstance(key, str) and has_surrogate(key):
                    return name
                stack.append((child, name))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{i}]") for i, child in enumerate(item))
    return None


def _kind(value: Any) -> str:
    names = {
        list: "an array",
        dict: "an object without 'messages'",
        str: "a string",
        bool: "a boolean",
        type(None): "null",
    }
    return names.get(type(value), "a number" if isinstance(value, int | float) else "a value")


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
