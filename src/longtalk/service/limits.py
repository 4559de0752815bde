"""The HTTP door's side of the input gate, and JSON values that responses can carry.

The limits themselves are every door's (``longtalk.core.limits``, the ``limits`` section;
the service's ``service.max_*`` keys set them too): an error names the field, the limit and
the setting. Sizes over a limit are ``InputTooLarge`` (413); text no backend can store (lone
surrogates, NULs), numbers JSON cannot hold and metadata nested too deep are ``InputError``
(422). The service adds only what is HTTP's own: the body's size and nesting. ``scrub``
makes a value already stored safe to answer with.
"""

from __future__ import annotations

from collections.abc import Sequence

from longtalk.config import Settings
from longtalk.core.limits import (
    MAX_INT,
    SCRUB_DEPTH,
    InputLimits,
    depth_of,
    has_surrogate,
    json_problem,
    scrub,
)
from longtalk.core.messages import Message

__all__ = [
    "BODY_DEPTH_MARGIN",
    "MAX_INT",
    "SCRUB_DEPTH",
    "Limits",
    "depth_of",
    "has_surrogate",
    "json_problem",
    "scrub",
]

BODY_DEPTH_MARGIN = 4
"""How much deeper than metadata a request body nests (body, messages, [i], metadata)."""


class Limits:
    """Every door's input limits plus the request body's size, checked before storing."""

    def __init__(self, limits: InputLimits, *, max_body_bytes: int) -> None:
        self.input = limits
        self.max_body_bytes = max_body_bytes

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        """The limits ``settings`` configure."""
        return cls(settings.input_limits, max_body_bytes=settings.service.max_body_bytes)

    @property
    def body_depth(self) -> int:
        """The deepest nesting a request body may have."""
        return self.input.max_metadata_depth + BODY_DEPTH_MARGIN

    def text(self, field: str, value: str | None, setting: str) -> None:
        """``value`` within the limit ``setting`` (characters) and storable."""
        self.input.text(field, value, setting)

    def chat(self, user: str | None, title: str | None, chat_id: str | None = None) -> None:
        """A new chat's id, user and title."""
        self.input.chat(user, title, chat_id)

    def chat_id(self, value: str | None, field: str = "chat_id") -> None:
        """A chat id, as every door checks it."""
        self.input.chat_id(value, field)

    def user(self, value: str | None, field: str = "user_id") -> None:
        """A user name, as every door checks it."""
        self.input.user(value, field)

    def messages(self, messages: Sequence[Message]) -> None:
        """The whole batch (see :meth:`InputLimits.batch`)."""
        self.input.batch(messages)
