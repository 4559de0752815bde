"""The durable fact: what a participant said about themselves that outlives the moment.

A fact is a frozen value: its ``kind`` (which decides how long it matters, its
``durability``), its ``subject`` (a normalised key: a later fact of the same holder on the
same subject supersedes the earlier, as a new car budget replaces the old one), its
``value`` (what two statements on one subject must share to be the same fact), whose it is
(``holder``), one short third-person sentence (``text``), and its provenance: the source
message sequences, when it was said, who said it when that is not the holder (``said_by``:
``Maya`` saying ``Tom is allergic to peanuts``), and whether it came from the offline
extractor, an LLM summary, or the application. ``to_dict``/``from_dict`` give the plain JSON shape
storage keeps.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, get_args

from longtalk.language.kinds import FactKind

__all__ = [
    "DURABILITY",
    "DurableFact",
    "Former",
    "FactKind",
    "FactSource",
    "normal_text",
]

FactSource = Literal["offline", "summary", "given"]
"""Where a fact came from: the offline extractor, an LLM summary, or the application."""

DURABILITY: dict[FactKind, int] = {
    "constraint": 5,
    "identity": 5,
    "relation": 4,
    "possession": 4,
    "preference": 3,
    "dislike": 3,
    "decision": 2,
    "commitment": 1,
    "question": 0,
}
"""How long a kind of fact matters (higher lasts longer): when the durable part must be
cut, the lowest go first. A constraint broken or a name forgotten costs more than a taste;
a dated commitment and an open question are soonest out of date."""

_KINDS: frozenset[str] = frozenset(get_args(FactKind))
_SOURCES: frozenset[str] = frozenset(get_args(FactSource))


def normal_text(text: str) -> str:
    """Case-folded, whitespace collapsed, outer punctuation dropped: for comparing texts."""
    return " ".join(text.casefold().split()).strip(" .!;,")


@dataclass(frozen=True, slots=True)
class Former:
    """What a claim was before a later statement changed or retracted it, and from when."""

    text: str
    said_at: datetime | None = None
    sequences: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The plain JSON shape (empty fields left out)."""
        data: dict[str, Any] = {"text": self.text}
        if self.said_at is not None:
            data["said_at"] = self.said_at.isoformat()
        if self.sequences:
            data["sequences"] = list(self.sequences)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> Former:
        """Read :meth:`to_dict`'s shape; a ``ValueError`` names what is wrong."""
        if not isinstance(data, Mapping) or not isinstance(data.get("text"), str):
            raise ValueError(f"a durable fact's history entry needs a text, not {data!r}")
        return cls(
            data["text"], _moment(data.get("said_at")), _sequences(data.get("sequences", ()))
        )


@dataclass(frozen=True, slots=True)
class DurableFact:
    """One durable fact with its provenance.

    ``sequences`` are the chat sequences of the messages that said it (oldest first);
    ``said_at`` the timestamp of the latest of them, when known. ``value`` is the normalised
    content two statements on one subject share when they say the same thing (``vegetarian``,
    ``4200``); empty, the text stands for it. ``said_by`` is the speaker when someone else
    stated the holder's fact (empty: the holder said it, or it is not known).

    ``retracts``: the statement withdraws its claim (``Tom is not vegetarian anymore``); it
    is kept, so the claim's history is, but never shown as a fact. ``changes``: the
    statement says it changes something (``I switched from tennis to padel``), so it may
    replace a claim filed under another subject. ``history``: what the claim was before,
    oldest first (see :class:`Former`). ``tentative``: a statement no fact by itself
    (``sold the civic last weekend``), kept only as the latest word on an earlier claim it
    takes the place of; until it has found one it is never shown.
    """

    kind: FactKind
    subject: str
    holder: str
    text: str
    sequences: tuple[int, ...] = ()
    said_at: datetime | None = None
    source: FactSource = "offline"
    value: str = ""
    said_by: str = ""
    retracts: bool = False
    changes: bool = False
    history: tuple[Former, ...] = ()
    tentative: bool = False

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"unknown fact kind {self.kind!r}: use one of {sorted(_KINDS)}")
        if self.source not in _SOURCES:
            raise ValueError(f"unknown fact source {self.source!r}: use one of {sorted(_SOURCES)}")
        for name in ("subject", "holder", "text"):
            if not getattr(self, name).strip():
                raise ValueError(f"a durable fact needs a {name}")

    @property
    def durability(self) -> int:
        """How long the fact matters (see :data:`DURABILITY`); higher is kept longer."""
        return DURABILITY[self.kind]

    @property
    def denies(self) -> bool:
        """A retraction that says no change: a denial (``I never smoked``) of a claim, if any."""
        return self.retracts and not self.changes

    @property
    def key(self) -> tuple[str, str]:
        """(holder, subject) case-folded: facts with equal keys speak of the same thing."""
        return (self.holder.casefold(), self.subject.casefold())

    @property
    def sameness(self) -> str:
        """What must match for two facts on one key to be duplicates: the value, or the text."""
        return normal_text(self.value or self.text)

    @property
    def hearsay(self) -> bool:
        """True when someone other than the holder stated the fact."""
        return bool(self.said_by) and self.said_by.casefold() != self.holder.casefold()

    @property
    def last_sequence(self) -> int:
        """The newest source sequence (0 when none is known)."""
        return max(self.sequences, default=0)

    def to_dict(self) -> dict[str, Any]:
        """The plain JSON shape (``said_at`` as ISO 8601; empty fields left out)."""
        data: dict[str, Any] = {
            "kind": self.kind,
            "subject": self.subject,
            "holder": self.holder,
            "text": self.text,
            "source": self.source,
        }
        if self.sequences:
            data["sequences"] = list(self.sequences)
        if self.said_at is not None:
            data["said_at"] = self.said_at.isoformat()
        if self.value:
            data["value"] = self.value
        if self.said_by:
            data["said_by"] = self.said_by
        if self.retracts:
            data["retracts"] = True
        if self.changes:
            data["changes"] = True
        if self.history:
            data["history"] = [former.to_dict() for former in self.history]
        if self.tentative:
            data["tentative"] = True
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DurableFact:
        """Read :meth:`to_dict`'s shape; a ``ValueError`` names what is wrong."""
        if not isinstance(data, Mapping):
            raise ValueError(f"a durable fact is an object, not {type(data).__name__}")
        missing = [name for name in ("kind", "subject", "holder", "text") if name not in data]
        if missing:
            raise ValueError(f"a durable fact needs {', '.join(missing)}")
        unknown = set(data) - {*cls.__slots__}
        if unknown:
            raise ValueError(f"unknown durable fact fields: {sorted(unknown)}")
        return cls(
            kind=data["kind"],
            subject=_text(data, "subject"),
            holder=_text(data, "holder"),
            text=_text(data, "text"),
            sequences=_sequences(data.get("sequences", ())),
            said_at=_moment(data.get("said_at")),
            source=data.get("source", "offline"),
            value=_text(data, "value") if "value" in data else "",
            said_by=_text(data, "said_by") if "said_by" in data else "",
            retracts=bool(data.get("retracts", False)),
            changes=bool(data.get("changes", False)),
            history=_history(data.get("history", ())),
            tentative=bool(data.get("tentative", False)),
        )


def _text(data: Mapping[str, Any], name: str) -> str:
    value = data[name]
    if not isinstance(value, str):
        raise ValueError(f"durable fact field {name!r} must be a string, not {value!r}")
    return value


def _history(value: Any) -> tuple[Former, ...]:
    if not isinstance(value, list | tuple):
        raise ValueError(f"durable fact history must be a list, not {value!r}")
    return tuple(Former.from_dict(item) for item in value)


def _sequences(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list | tuple) or not all(
        isinstance(item, int) and not isinstance(item, bool) for item in value
    ):
        raise ValueError(f"durable fact sequences must be a list of integers, not {value!r}")
    return tuple(sorted(set(value)))


def _moment(value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        raise ValueError(f"durable fact said_at must be an ISO 8601 time, not {value!r}") from None
