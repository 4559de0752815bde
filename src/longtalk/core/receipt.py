"""A forget's receipt: every artefact derived from the forgotten messages, and its fate.

The receipt names artefacts by kind, id and provenance, never by their text: it must not
carry what was forgotten to a log or a screen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

ForgetAction = Literal["removed", "rewritten", "cut", "kept"]
"""``removed``: gone; ``rewritten``: re-derived without the messages; ``cut``: deleted
because it could not be re-derived; ``kept``: untouched (it never drew on them)."""

Artefact = Literal[
    "message", "summary row", "digest", "archived row", "fact", "user memory", "vectors", "title"
]

_ACTIONS = frozenset(get_args(ForgetAction))
_ARTEFACTS = frozenset(get_args(Artefact))


@dataclass(frozen=True, slots=True)
class ForgetItem:
    """One artefact: what it is, which one (``ref``), what happened to it, and why."""

    artefact: Artefact
    ref: str
    action: ForgetAction
    reason: str

    def to_dict(self) -> dict[str, str]:
        """The JSON shape."""
        return {
            "artefact": self.artefact,
            "ref": self.ref,
            "action": self.action,
            "reason": self.reason,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ForgetItem:
        """Read :meth:`to_dict`'s shape; ``ValueError`` names a wrong field."""
        artefact, action = data.get("artefact"), data.get("action")
        if artefact not in _ARTEFACTS:
            raise ValueError(f"receipt item artefact: unknown {artefact!r}")
        if action not in _ACTIONS:
            raise ValueError(f"receipt item action: unknown {action!r}")
        ref, reason = str(data.get("ref", "")), str(data.get("reason", ""))
        return cls(cast(Artefact, artefact), ref, cast(ForgetAction, action), reason)


@dataclass(frozen=True, slots=True)
class ForgetReceipt:
    """What forgetting messages of one chat did, artefact by artefact.

    ``resumed`` says the rewrite was finished by a later run (the process that deleted the
    messages stopped before it).
    """

    chat_id: str
    sequences: tuple[int, ...]
    items: tuple[ForgetItem, ...]
    resumed: bool = False

    def of(self, action: ForgetAction) -> tuple[ForgetItem, ...]:
        """The items that met ``action``."""
        return tuple(item for item in self.items if item.action == action)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape (the service answers with it)."""
        return {
            "chat_id": self.chat_id,
            "sequences": list(self.sequences),
            "resumed": self.resumed,
            "items": [item.to_dict() for item in self.items],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ForgetReceipt:
        """Read :meth:`to_dict`'s shape."""
        return cls(
            chat_id=str(data["chat_id"]),
            sequences=tuple(int(s) for s in data.get("sequences", ())),
            items=tuple(ForgetItem.from_dict(item) for item in data.get("items", ())),
            resumed=bool(data.get("resumed", False)),
        )

    def lines(self) -> list[str]:
        """One line per artefact, for a terminal."""
        return [f"{i.action:9} {i.artefact} {i.ref}: {i.reason}" for i in self.items]
