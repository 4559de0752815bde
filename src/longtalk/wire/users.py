"""What the memory keeps about a user across chats, and the chat's own durable facts."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import AliasChoices, BaseModel, Field

from longtalk.core.context import KnownFactLike
from longtalk.core.fields import field_names, same_named
from longtalk.storage.records import Origin, UserFact, UserFactKind
from longtalk.wire.fields import MessageRange, RequestBody

if TYPE_CHECKING:
    from longtalk.facts.durable_fact import DurableFact

__all__ = ["FactList", "FactOut", "ForgetOut", "RememberIn", "UserFactOut", "UserMemoryOut"]


class UserFactOut(BaseModel):
    """One item known about a user, and where it came from."""

    id: int | None
    kind: UserFactKind
    text: str
    origin: Origin = Field(description="derived: taken from a chat's summary; given: stored.")
    chat_id: str | None
    messages: MessageRange = Field(
        (0, 0),
        validation_alias=AliasChoices("messages", "episodes"),
        description="The first and last sequence of the chat's messages it was taken from "
        "(read from the former key episodes too, which held the same numbers).",
    )
    created_at: datetime | None

    @classmethod
    def of(cls, fact: UserFact | KnownFactLike) -> UserFactOut:
        """From a stored item (or any item of a context's user part that carries the fields)."""
        return cls(
            id=getattr(fact, "id", None),
            kind=getattr(fact, "kind", "fact"),
            text=fact.text,
            origin=getattr(fact, "origin", "given"),
            chat_id=getattr(fact, "chat_id", None),
            messages=getattr(fact, "messages", (0, 0)),
            created_at=getattr(fact, "created_at", None),
        )

    def fact(self) -> UserFact:
        """The item as the library's value."""
        return UserFact(**same_named(field_names(UserFact), self))


class UserMemoryOut(BaseModel):
    """A user's items, oldest first."""

    tenant: str
    user: str
    items: list[UserFactOut]


class RememberIn(RequestBody):
    """``POST /users/{user_id}/memory``: keep one item about the user."""

    text: str = Field(min_length=1, description="What to keep, one short line.")
    kind: UserFactKind = "fact"


class ForgetOut(BaseModel):
    """What ``DELETE /users/{user_id}/memory`` removed."""

    tenant: str
    user: str
    forgotten: int = Field(description="How many items went.")


class FactOut(BaseModel):
    """One durable fact of a chat, with the messages that said it."""

    kind: str
    subject: str
    holder: str
    text: str
    sequences: list[int]
    said_at: datetime | None
    source: str
    value: str = Field("", description="What two statements on one subject share when equal.")
    said_by: str = ""

    @classmethod
    def of(cls, fact: DurableFact) -> FactOut:
        """From the chat's fact."""
        return cls(**same_named(cls.model_fields, fact, sequences=list(fact.sequences)))

    def fact(self) -> DurableFact:
        """The fact as the library's value."""
        from longtalk.facts.durable_fact import DurableFact  # the facts package only when asked

        data: dict[str, Any] = self.model_dump()
        data["sequences"] = tuple(self.sequences)
        return DurableFact(**data)


class FactList(BaseModel):
    """``GET /chats/{id}/facts``: the chat's durable facts, merged, as a context shows them."""

    chat_id: str
    items: list[FactOut]
