"""The input gate: what every door (library, CLI, HTTP, MCP) lets into storage.

Pure and checked once, before anything is stored. A message over a limit, or holding what no
backend can store (a lone surrogate, a NUL, a number JSON cannot hold, metadata nested past
the depth a vector store can read back), raises an :class:`~longtalk.errors.InputError`
naming the message's index, the field and the limit with its setting; sizes and counts over a
limit are :class:`~longtalk.errors.InputTooLarge`. Nothing of a refused batch is stored.

Every walk over metadata is iterative: a value nested thousands of levels deep is measured,
not recursed into.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from longtalk.core.messages import Message
from longtalk.errors import InputError, InputTooLarge, UsageError

CHAT_ID_PATTERN = r"^[A-Za-z0-9_.:-]+$"
"""What a chat id may hold: letters, digits and ``_ . : -`` (it is a path segment)."""
USER_PATTERN = r"^[A-Za-z0-9_.:@+-]+$"
"""What a user name may hold: letters, digits and ``_ . : @ + -`` (an id or an e-mail
address; ASCII, so every JSON Schema tool reads the pattern the same way)."""
_CHAT_ID = re.compile(CHAT_ID_PATTERN)
_USER = re.compile(USER_PATTERN)
SECTION = "limits"
"""The configuration section every door reads the limits from."""
NUL = "\x00"


@dataclass(frozen=True, slots=True)
class InputLimits:
    """The limits; the defaults are every door's (``limits.*`` in the configuration).

    ``section`` is the configuration section errors name (``limits.max_batch_size``); the
    service passes ``service`` when its own ``service.max_*`` keys set a limit.
    """

    max_message_chars: int = 100_000
    max_batch_size: int = 500
    max_id_chars: int = 200
    max_name_chars: int = 200
    max_title_chars: int = 500
    max_metadata_bytes: int = 16_384
    max_metadata_depth: int = 8
    max_metadata_keys: int = 512
    max_tool_calls: int = 128
    max_query_chars: int = 10_000
    max_summary_chars: int = 100_000
    section: str = SECTION
    overridden: frozenset[str] = frozenset()
    """Limits set under another section (named as ``service.<key>`` in errors)."""

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if item.name.startswith("max_") and (not isinstance(value, int) or value < 0):
                raise UsageError(f"{self.section}.{item.name} must be 0 or more, not {value!r}")

    def setting(self, key: str) -> str:
        """The configuration key of a limit, as errors name it."""
        return f"service.{key}" if key in self.overridden else f"{self.section}.{key}"

    # -- fields -------------------------------------------------------------------------

    def text(self, field: str, value: str | None, key: str, *, index: int | None = None) -> None:
        """``value`` within the limit ``key`` (characters) and storable."""
        if value is None:
            return
        self._within(key, len(value), field, "has {} characters", index=index)
        check_storable(field, value, index=index)

    def _within(
        self,
        key: str,
        amount: int,
        field: str,
        measured: str,
        *,
        index: int | None = None,
        error: type[InputError] = InputTooLarge,
    ) -> None:
        """Raise ``error`` when ``amount`` is over the limit ``key``; ``measured`` says it."""
        limit: int = getattr(self, key)
        if amount > limit:
            raise error(
                f"{_where(index, field)} {measured.format(amount)}; the limit is {limit} "
                f"({self.setting(key)})",
                field=field,
                index=index,
                setting=self.setting(key),
            )

    def chat(
        self,
        user: str | None,
        title: str | None,
        chat_id: str | None = None,
        *,
        id_field: str = "id",
    ) -> None:
        """A new chat's id, user and title: the rules every door applies before creating."""
        self.chat_id(chat_id, id_field)
        self.user(user)
        self.text("title", title, "max_title_chars")

    def chat_id(self, value: str | None, field: str = "chat_id") -> None:
        """A chat id: 1 to ``max_id_chars`` characters of :data:`CHAT_ID_PATTERN`."""
        self._identifier(field, value, "max_id_chars", _CHAT_ID, "letters, digits and _ . : -")

    def user(self, value: str | None, field: str = "user") -> None:
        """A user name: 1 to ``max_name_chars`` characters of :data:`USER_PATTERN`."""
        self._identifier(field, value, "max_name_chars", _USER, "letters, digits and _ . : @ + -")

    def _identifier(
        self, field: str, value: str | None, key: str, pattern: re.Pattern[str], allowed: str
    ) -> None:
        if value is None:
            return
        self.text(field, value, key)
        if not value:
            raise InputError(f"{field} is empty: give at least one character", field=field)
        if not pattern.fullmatch(value):
            shown = ascii(value[:40] + ("…" if len(value) > 40 else ""))
            raise InputError(
                f"{field} {shown} may hold only {allowed} (no spaces, slashes or markup)",
                field=field,
            )

    def batch(self, messages: Sequence[Message]) -> None:
        """A whole append: not empty, within the batch size, every message within limits."""
        if not messages:
            raise InputError("the batch is empty: send at least one message", field="messages")
        if len(messages) > self.max_batch_size:
            raise InputTooLarge(
                f"{len(messages)} messages in one batch; the limit is {self.max_batch_size} "
                f"({self.setting('max_batch_size')}): split the batch",
                field="messages",
                setting=self.setting("max_batch_size"),
            )
        for index, message in enumerate(messages):
            self.message(message, index)

    def message(self, message: Message, index: int | None = None) -> None:
        """One message: content, id, name, tool-call ids and metadata."""
        self.text("content", message.content, "max_message_chars", index=index)
        if message.id == "":
            raise InputError(
                f"{_where(index, 'id')} is empty: give at least one character, or none",
                field="id",
                index=index,
            )
        self.text("id", message.id, "max_id_chars", index=index)
        self.text("name", message.name, "max_name_chars", index=index)
        calls = message.tool_call_ids
        self._within("max_tool_calls", len(calls), "tool_call_ids", "has {} ids", index=index)
        for number, call_id in enumerate(calls):
            self.text(f"tool_call_ids.{number}", call_id, "max_id_chars", index=index)
        self.metadata(message.metadata, index)

    def metadata(self, metadata: Mapping[str, Any], index: int | None = None) -> None:
        """Metadata within the depth, key-count and size limits, and storable as JSON."""
        shape = measure(metadata)
        self._within(
            "max_metadata_depth",
            shape.depth,
            "metadata",
            "nests {} levels",
            index=index,
            error=InputError,
        )
        self._within("max_metadata_keys", shape.keys, "metadata", "has {} keys", index=index)
        problem = json_problem(metadata, max_depth=self.max_metadata_depth)
        if problem is not None:
            path, _, reason = problem.partition(": ")
            field = f"metadata.{path}" if path != "body" else "metadata"
            raise InputError(f"{_where(index, field)}: {reason}", field=field, index=index)
        size = len(json.dumps(metadata, ensure_ascii=False).encode("utf-8"))
        self._within("max_metadata_bytes", size, "metadata", "is {} bytes as JSON", index=index)


DEFAULT_LIMITS = InputLimits()


def check_messages(messages: Sequence[Message], limits: InputLimits = DEFAULT_LIMITS) -> None:
    """The gate for an append: raise ``InputError`` unless the whole batch may be stored."""
    limits.batch(messages)


def _where(index: int | None, field: str) -> str:
    return field if index is None else f"message {index}: {field}"


# -- what storage and JSON can hold ------------------------------------------------------------


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored (a lone surrogate, a NUL), or None."""
    if NUL in text:
        return "holds a NUL character (\\u0000), which databases cannot store"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "holds a lone surrogate (invalid Unicode)"
    return None


def check_storable(field: str, text: str, *, index: int | None = None) -> None:
    """Raise ``InputError`` when ``text`` cannot be stored."""
    problem = text_problem(text)
    if problem is not None:
        raise InputError(f"{_where(index, field)} {problem}", field=field, index=index)


def has_surrogate(text: str) -> bool:
    """True when ``text`` holds a lone surrogate (UTF-8 cannot encode it)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def json_problem(value: Any, *, max_depth: int) -> str | None:
    """The first reason ``value`` cannot be stored and answered as JSON, with its path.

    ``"<path>: <reason>"`` (the path is ``body`` for the value itself): nesting deeper than
    ``max_depth``, a key or text with a lone surrogate or a NUL, a non-finite number.
    """
    stack: list[tuple[Any, str, int]] = [(value, "", 1)]
    while stack:
        item, path, depth = stack.pop()
        where = path or "body"
        if isinstance(item, dict | list | tuple):
            if depth > max_depth:
                return f"{where}: nested deeper than {max_depth} levels"
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in pairs:
                if isinstance(key, str) and (problem := text_problem(key)) is not None:
                    return f"{where}: a key {problem}"
                stack.append((child, f"{path}.{key}" if path else str(key), depth + 1))
        elif isinstance(item, str) and (problem := text_problem(item)) is not None:
            return f"{where}: text {problem}"
        elif isinstance(item, float) and not math.isfinite(item):
            return f"{where}: {item} is not a JSON number"
    return None


@dataclass(frozen=True, slots=True)
class Shape:
    """How deep containers nest in a value (a scalar is 0, ``{}`` is 1) and its dict keys."""

    depth: int
    keys: int


def measure(value: Any) -> Shape:
    """The nesting depth and the number of dict keys of ``value`` (iteratively)."""
    deepest, keys, stack = 0, 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            keys += len(item)
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        stack.extend((child, depth + 1) for child in children)
    return Shape(deepest, keys)


def depth_of(value: Any) -> int:
    """How deep containers nest in ``value`` (a scalar is 0, ``{}`` is 1)."""
    return measure(value).depth


# -- values already stored, made fit to answer with ------------------------------------------

MAX_INT = 2**53 - 1
"""The largest integer accepted: every JSON client reads it exactly, storage holds it."""
SCRUB_DEPTH = 32
REPLACEMENT = "\ufffd"


def scrub(value: Any, depth: int = 0) -> Any:
    """``value`` made answerable (for rows stored before the limits existed).

    Lone surrogates become U+FFFD; non-finite numbers and nesting past ``SCRUB_DEPTH`` None.
    """
    if depth >= SCRUB_DEPTH:
        return None
    if isinstance(value, dict):
        return {scrub(str(k), depth): scrub(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(v, depth + 1) for v in value]
    if isinstance(value, str) and has_surrogate(value):
        return "".join(REPLACEMENT if "\ud800" <= ch <= "\udfff" else ch for ch in value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
