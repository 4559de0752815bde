"""Input limits of the HTTP API, and JSON values that storage and responses can carry.

Every limit is a ``service.*`` setting; an error names the field, the limit and the setting.
Sizes over a limit are ``PayloadTooLarge`` (413); text no JSON encoder can write (lone
surrogates), numbers JSON cannot hold (NaN, infinities) and metadata nested too deep are
``UsageError`` (422). ``scrub`` makes a value already stored safe to answer with.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from longtalk.config import ServiceConfig
from longtalk.core.messages import Message
from longtalk.errors import UsageError
from longtalk.service.errors import PayloadTooLarge

MAX_INT = 2**53 - 1
"""The largest integer accepted: every JSON client reads it exactly, storage holds it."""
BODY_DEPTH_MARGIN = 4
"""How much deeper than metadata a request body nests (body, messages, [i], metadata)."""
SCRUB_DEPTH = 32
REPLACEMENT = "\ufffd"


def has_surrogate(text: str) -> bool:
    """True when ``text`` holds a lone surrogate (UTF-8 cannot encode it)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def json_problem(value: Any, *, max_depth: int) -> str | None:
    """The first reason ``value`` cannot be stored and answered as JSON, with its path."""
    stack: list[tuple[Any, str, int]] = [(value, "", 1)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > max_depth:
                return f"{path or 'body'}: nested deeper than {max_depth} levels"
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in pairs:
                if isinstance(key, str) and has_surrogate(key):
                    return f"{path or 'body'}: a key holds a lone surrogate (invalid Unicode)"
                stack.append((child, f"{path}.{key}" if path else str(key), depth + 1))
        elif isinstance(item, str) and has_surrogate(item):
            return f"{path or 'body'}: text holds a lone surrogate (invalid Unicode)"
        elif isinstance(item, float) and not math.isfinite(item):
            return f"{path or 'body'}: {item} is not a JSON number"
    return None


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


def depth_of(value: Any) -> int:
    """How deep containers nest in ``value`` (a scalar is 0, ``{}`` is 1)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth + 1)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


class Limits:
    """The configured limits, checked before anything is stored."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config

    @property
    def body_depth(self) -> int:
        """The deepest nesting a request body may have."""
        return self.config.max_metadata_depth + BODY_DEPTH_MARGIN

    def text(self, field: str, value: str | None, setting: str) -> None:
        """``value`` within ``service.<setting>`` characters."""
        limit: int = getattr(self.config, setting)
        if value is not None and len(value) > limit:
            raise PayloadTooLarge(
                f"{field} has {len(value)} characters; the limit is {limit} (service.{setting})"
            )

    def chat(self, user: str | None, title: str | None) -> None:
        """A new chat's user and title."""
        self.text("user", user, "max_name_chars")
        self.text("title", title, "max_title_chars")

    def messages(self, messages: Sequence[Message]) -> None:
        """Every message's ids, name, tool calls and metadata."""
        for index, message in enumerate(messages):
            self.message(f"messages.{index}", message)

    def message(self, where: str, message: Message) -> None:
        """One message's fields besides its content (the service checks that)."""
        self.text(f"{where}.id", message.id, "max_id_chars")
        self.text(f"{where}.name", message.name, "max_name_chars")
        if len(message.tool_call_ids) > self.config.max_tool_calls:
            raise PayloadTooLarge(
                f"{where}.tool_call_ids has {len(message.tool_call_ids)} ids; the limit is "
                f"{self.config.max_tool_calls} (service.max_tool_calls)"
            )
        for number, call_id in enumerate(message.tool_call_ids):
            self.text(f"{where}.tool_call_ids.{number}", call_id, "max_id_chars")
        self.metadata(f"{where}.metadata", message.metadata)

    def metadata(self, where: str, metadata: dict[str, Any]) -> None:
        """Metadata within the depth and size limits, and storable as JSON."""
        depth = depth_of(metadata)
        if depth > self.config.max_metadata_depth:
            raise UsageError(
                f"{where} nests {depth} levels; the limit is {self.config.max_metadata_depth} "
                "(service.max_metadata_depth)"
            )
        problem = json_problem(metadata, max_depth=self.config.max_metadata_depth)
        if problem is not None:
            raise UsageError(f"{where}.{problem}")
        size = len(json.dumps(metadata, ensure_ascii=False).encode("utf-8"))
        if size > self.config.max_metadata_bytes:
            raise PayloadTooLarge(
                f"{where} is {size} bytes as JSON; the limit is "
                f"{self.config.max_metadata_bytes} (service.max_metadata_bytes)"
            )
