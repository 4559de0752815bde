"""The field types every request and response shares: strict integers, ids, timestamps.

Request models accept what their OpenAPI schema says and nothing else: integers are strict
(``false`` is not ``0``), a timestamp is a date-time string (not a number of seconds); the
episode-summary service's numeric ``sessionId`` is declared as the integer it may be.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from longtalk.core.limits import MAX_INT

__all__ = [
    "Budget",
    "ChatIdIn",
    "Count",
    "EpisodeRange",
    "RequestBody",
    "StrategyName",
    "SummaryState",
    "Tokens",
    "Turns",
]

StrategyName = Literal["none", "running_summary", "rag_augmented"]
SummaryState = Literal["idle", "summarizing", "failed"]
"""Where a chat's background summary stands."""


def _json_integer(value: Any) -> Any:
    """JSON's integers only: ``true``/``false`` and text are not numbers here."""
    if isinstance(value, bool | str):
        raise ValueError("an integer is expected (not true, false or text)")
    return value


# Integers as the schema says: ``5`` or ``5.0``, never ``false`` or ``"5"`` (the bounds come
# before the check, so the schema states them).
Count = Annotated[int, Field(ge=0, le=MAX_INT), BeforeValidator(_json_integer)]
"""A non-negative integer every JSON client and storage hold exactly."""
MIN_BUDGET = 32
"""The smallest context budget (the engine's ``MIN_BUDGET_TOKENS``: a header and a message)."""
Budget = Annotated[int, Field(ge=MIN_BUDGET, le=1_000_000), BeforeValidator(_json_integer)]
Turns = Annotated[int, Field(ge=0, le=10_000), BeforeValidator(_json_integer)]
Tokens = Annotated[int, Field(ge=0, le=1_000_000), BeforeValidator(_json_integer)]
EpisodeRange = Annotated[
    tuple[int, int],
    WithJsonSchema({"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}),
]
"""``[first, last]`` episodes of a summary row (a plain array in the schema, which every
OpenAPI tool reads; ``prefixItems`` some do not). An episode is an exchange: a user message
and the replies it got, numbered from 1 in the chat."""
MessageRange = Annotated[
    tuple[int, int],
    WithJsonSchema({"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}),
]
"""``[first, last]`` message sequences (a plain array in the schema, as :data:`EpisodeRange`)."""


def _numeric_id(value: Any) -> Any:
    """The episode-summary service sends ``sessionId`` as a number: read it as text."""
    if isinstance(value, float) and value.is_integer():  # 7.0 is the integer 7 in JSON
        value = int(value)
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


ChatIdIn = Annotated[
    str,
    BeforeValidator(_numeric_id),
    WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
]
"""A chat id in a request body: text, or (the episode-summary service's) an integer."""


def _date_time_text(value: Any) -> Any:
    """A timestamp is an ISO 8601 date-time string, as the schema says (not seconds)."""
    if isinstance(value, int | float) or (
        isinstance(value, str) and value.strip().lstrip("+-").replace(".", "", 1).isdigit()
    ):
        raise ValueError("a timestamp is an ISO 8601 date-time string, e.g. 2024-05-08T13:56:00Z")
    return value


Timestamp = Annotated[datetime | None, BeforeValidator(_date_time_text)]
"""A message's timestamp in a request: date-time text or null."""


class RequestBody(BaseModel):
    """A request body: unknown fields are refused, not ignored."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
