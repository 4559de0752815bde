"""Forgetting messages: the batch request and the receipt answered."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, Field

from longtalk.core.limits import MAX_INT
from longtalk.core.receipt import ForgetReceipt
from longtalk.wire.fields import RequestBody, _json_integer

MAX_FORGET = 1000
"""Sequences one batch may name."""
Sequence = Annotated[int, Field(ge=1, le=MAX_INT), BeforeValidator(_json_integer)]
"""A message sequence: a strict JSON integer, 1 or more."""


class ForgetIn(RequestBody):
    """The messages to forget, by sequence."""

    sequences: list[Sequence] = Field(
        min_length=1, max_length=MAX_FORGET, description="Sequences of the messages to forget."
    )


class ForgetFactIn(RequestBody):
    """The durable fact to forget, by its text (as ``GET /chats/{id}/facts`` shows it)."""

    text: str = Field(min_length=1, max_length=4000, description="The fact's text.")


class ForgetItemOut(BaseModel):
    """One derived artefact and what became of it."""

    artefact: Literal[
        "message",
        "summary row",
        "digest",
        "archived row",
        "fact",
        "user memory",
        "vectors",
        "title",
    ]
    ref: str = Field(description="Which one: an id, a sequence, its provenance; never its text.")
    action: Literal["removed", "rewritten", "cut", "kept"]
    reason: str


class ReceiptOut(BaseModel):
    """What forgetting did, artefact by artefact."""

    chat_id: str
    sequences: list[int]
    resumed: bool = Field(description="True when a later run finished an interrupted forget.")
    items: list[ForgetItemOut]

    @classmethod
    def of(cls, receipt: ForgetReceipt) -> ReceiptOut:
        """The receipt as the service answers it."""
        return cls.model_validate(receipt.to_dict())
