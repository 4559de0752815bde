"""The structured conversation summary (Orchid's JSON entity extraction) and how summaries merge."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

LIST_FIELDS = ("topics", "actions_taken", "decisions", "open_questions", "user_preferences")
SCHEMA_KEYS = ("topics", "entities", *LIST_FIELDS[1:], "narrative", "covered_turns")
"""The keys an LLM is asked for (``since``/``until`` come from message timestamps)."""
SCHEMA_BOUNDS = {"items": 4, "entities": 5, "chars": 120, "narrative": 1200}
"""Per reply: items in a list, entities, characters in an item or entity field and in the
narrative. Merging keeps what earlier extensions found, so a reply needs only what is new.
Fewer items than a repetition loop needs repeats, and shorter strings than its span (see
``longtalk.llm.repetition``): a grammar-bounded list is never mistaken for a loop."""


class SummaryEntity(BaseModel):
    """A person, place, product, date or other thing the conversation mentioned."""

    model_config = ConfigDict(frozen=True)

    name: str
    type: str = "other"
    details: str = ""

    @field_validator("name", "type", "details", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None else str(value).strip()


class ConversationSummary(BaseModel):
    """A structured running summary.

    ``parse()`` reads an LLM's JSON answer and falls back to narrative-only on anything it
    cannot read; ``merge()`` folds a newer summary into this one without losing entities.
    """

    model_config = ConfigDict(frozen=True)

    topics: tuple[str, ...] = ()
    entities: tuple[SummaryEntity, ...] = ()
    actions_taken: tuple[str, ...] = ()
    decisions: tuple[str, ...] = ()
    open_questions: tuple[str, ...] = ()
    user_preferences: tuple[str, ...] = ()
    narrative: str = ""
    covered_turns: int = Field(default=0, ge=0)
    since: date | None = None
    until: date | None = None

    @field_validator(*LIST_FIELDS, mode="before")
    @classmethod
    def _string_list(cls, value: Any) -> tuple[str, ...]:
        items = _listed(value, str, "strings")
        return dedupe(str(item).strip() for item in items if str(item).strip())

    @field_validator("entities", mode="before")
    @classmethod
    def _entity_list(cls, value: Any) -> Any:
        return tuple(
            item if isinstance(item, SummaryEntity) else _entity_from_any(item)
            for item in _listed(value, dict, "entities")
            if item
        )

    @field_validator("narrative", mode="before")
    @classmethod
    def _narrative(cls, value: Any) -> str:
        return "" if value is None else str(value).strip()

    @field_validator("covered_turns", mode="before")
    @classmethod
    def _turns(cls, value: Any) -> int:
        try:
            return max(0, int(value or 0))
        except (TypeError, ValueError):
            return 0

    @classmethod
    def parse(cls, text: str) -> ConversationSummary:
        """Read a JSON summary; anything unreadable becomes a narrative-only summary."""
        data = extract_json_object(text)
        if data is not None:
            try:
                return cls.model_validate(data)
            except ValidationError:
                pass
        return cls(narrative=text.strip())

    @property
    def is_empty(self) -> bool:
        """True when nothing at all is recorded."""
        return not (self.narrative or self.entities or any(getattr(self, f) for f in LIST_FIELDS))

    def merge(self, newer: ConversationSummary) -> ConversationSummary:
        """Fold ``newer`` into this summary.

        Lists keep first-seen order without duplicates (case-insensitive); entities merge by
        case-insensitive name, combining details without repeats; the newer narrative wins
        when it has one (an extension rewrites the story), and covered turns add up.
        """
        merged: dict[str, Any] = {
            name: dedupe((*getattr(self, name), *getattr(newer, name))) for name in LIST_FIELDS
        }
        return ConversationSummary(
            **merged,
            entities=merge_entities((*self.entities, *newer.entities)),
            narrative=newer.narrative or self.narrative,
            covered_turns=self.covered_turns + newer.covered_turns,
            since=earliest(self.since, newer.since),
            until=_latest(self.until, newer.until),
        )

    def extended_by(self, prose: str) -> ConversationSummary:
        """The summary with a prose reply folded into its narrative (Orchid's fallback).

        Lists and entities stay as they are. The prose extends the narrative; when it already
        restates the whole narrative (the model rewrote the story, as asked), it replaces it.
        """
        prose = prose.strip()
        if not prose:
            return self
        old = self.narrative
        narrative = prose if not old or _normal(old) in _normal(prose) else f"{old} {prose}"
        return self.model_copy(update={"narrative": narrative})

    @property
    def period(self) -> str:
        """The dates the summary covers, e.g. ``8 May 2023 – 12 June 2023`` ('' if unknown)."""
        if self.since is None or self.until is None:
            return ""
        first, last = _day(self.since), _day(self.until)
        return first if first == last else f"{first} – {last}"

    def to_context_string(self) -> str:
        """Render for injection into an LLM prompt: compact labelled sections.

        Entities with details are listed with their type; the others by name only, under
        ``Also mentioned``, when that is a list a person would read (see
        :func:`also_mentioned`).
        """
        lines: list[str] = []
        if self.narrative:
            lines.append(f"({self.period}) {self.narrative}" if self.period else self.narrative)
        sections = (
            ("Topics", self.topics),
            ("Decisions", self.decisions),
            ("Actions taken", self.actions_taken),
            ("Open questions", self.open_questions),
            ("User preferences", self.user_preferences),
        )
        for label, items in sections:
            if items:
                lines.append(f"{label}: " + "; ".join(_unstopped(item) for item in items))
        described = [e for e in self.entities if e.details]
        if described:
            lines.append("Entities: " + "; ".join(_render_entity(e) for e in described))
        named = also_mentioned(self.entities)
        if named:
            lines.append("Also mentioned: " + ", ".join(named))
        return "\n".join(lines)

    @staticmethod
    def json_schema() -> dict[str, Any]:
        """The JSON schema an LLM is asked to follow for structured output.

        Lists and strings are bounded (:data:`SCHEMA_BOUNDS`): far above what one extension
        writes, but a server that enforces the schema with a grammar (llama.cpp, vLLM,
        Ollama) then cannot let a small model repeat one item or one phrase until the
        output limit: the list or string closes and the summary completes.
        """
        text = {"type": "string", "maxLength": SCHEMA_BOUNDS["chars"]}
        text_list = {"type": "array", "items": text, "maxItems": SCHEMA_BOUNDS["items"]}
        return {
            "type": "object",
            "properties": {
                "topics": text_list,
                "entities": {
                    "type": "array",
                    "maxItems": SCHEMA_BOUNDS["entities"],
                    "items": {
                        "type": "object",
                        "properties": {"name": text, "type": text, "details": text},
                        "required": ["name", "type", "details"],
                        "additionalProperties": False,
                    },
                },
                "actions_taken": text_list,
                "decisions": text_list,
                "open_questions": text_list,
                "user_preferences": text_list,
                "narrative": {"type": "string", "maxLength": SCHEMA_BOUNDS["narrative"]},
                "covered_turns": {"type": "integer", "minimum": 0},
            },
            "required": [*SCHEMA_KEYS],
            "additionalProperties": False,
        }

    def to_json(self) -> str:
        """Compact JSON, the stored form of a structured summary."""
        data = self.model_dump(mode="json", exclude_none=True)
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    def to_prompt_json(self) -> str:
        """Compact JSON as a prompt shows it: what a model can use, no bookkeeping.

        Empty lists say nothing, and ``covered_turns`` is counted by the planner whatever
        the model answers, so neither is read again on every extension and consolidation.
        """
        data = self.model_dump(mode="json", exclude_none=True, exclude={"covered_turns"})
        shown = {key: value for key, value in data.items() if value not in ([], "")}
        return json.dumps(shown, ensure_ascii=False, separators=(",", ":"))


def _day(value: date) -> str:
    return f"{value.day} {value:%B %Y}"


def earliest(a: date | None, b: date | None) -> date | None:
    """The earlier of two optional days (None when both are)."""
    return min(a, b) if a and b else a or b


def _latest(a: date | None, b: date | None) -> date | None:
    return max(a, b) if a and b else a or b


def _listed(value: Any, single: type, what: str) -> list[Any] | tuple[Any, ...]:
    """A field's items as given: none for None, one ``single`` value as a list of one."""
    if value is None:
        return ()
    if isinstance(value, single):
        return [value]
    if not isinstance(value, list | tuple):
        raise ValueError(f"expected a list of {what}, got {type(value).__name__}")
    return value


def _entity_from_any(item: Any) -> SummaryEntity:
    if isinstance(item, str):
        return SummaryEntity(name=item)
    if isinstance(item, dict):
        return SummaryEntity(
            name=item.get("name", ""),
            type=item.get("type") or "other",
            details=item.get("details") or "",
        )
    raise ValueError(f"an entity must be an object or a name, got {type(item).__name__}")


MAX_MENTIONED = 8
"""The longest ``Also mentioned`` list shown: past it, the names are a dump, not a list."""


def also_mentioned(entities: Iterable[SummaryEntity]) -> tuple[str, ...]:
    """The names an ``Also mentioned`` line shows: none when they would not read as a list.

    Only entities without details count, and dates and amounts are never listed (a date
    says nothing without its turn, an amount nothing without what it pays for). More than
    :data:`MAX_MENTIONED` names is an index, not a sentence a person reads: nothing is shown.
    """
    names = tuple(e.name for e in entities if not e.details and not _date_or_amount(e))
    return names if len(names) <= MAX_MENTIONED else ()


def _date_or_amount(entity: SummaryEntity) -> bool:
    return entity.type in ("date", "amount") or any(char.isdigit() for char in entity.name)


def _render_entity(entity: SummaryEntity) -> str:
    text = (
        f"{entity.name} ({entity.type})" if entity.type and entity.type != "other" else entity.name
    )
    return f"{text}: {entity.details}" if entity.details else text


def dedupe(items: Iterable[str]) -> tuple[str, ...]:
    """Keep first occurrences, comparing case-insensitively and ignoring outer whitespace."""
    seen: set[str] = set()
    kept: list[str] = []
    for item in items:
        key = _normal(item)
        if key and key not in seen:
            seen.add(key)
            kept.append(item.strip())
    return tuple(kept)


def merge_entities(entities: Iterable[SummaryEntity]) -> tuple[SummaryEntity, ...]:
    """Merge entities by case-insensitive name; details combine without repeats.

    The first-seen spelling of a name is kept; a specific type replaces ``other``.
    """
    merged: dict[str, SummaryEntity] = {}
    for entity in entities:
        key = _normal(entity.name)
        if not key:
            continue
        known = merged.get(key)
        if known is None:
            merged[key] = entity
            continue
        merged[key] = SummaryEntity(
            name=known.name,
            type=known.type if known.type not in ("", "other") else entity.type,
            details=combine_details(known.details, entity.details),
        )
    return tuple(merged.values())


def combine_details(old: str, new: str) -> str:
    """Join two detail strings, dropping parts (split on ``;``) already present."""
    parts = [p.strip() for p in re.split(r";", old) if p.strip()]
    known = {_normal(p) for p in parts}
    for part in (p.strip() for p in re.split(r";", new)):
        key = _normal(part)
        if not part or key in known or any(key in k for k in known):
            continue
        parts = [p for p in parts if _normal(p) not in key]
        known = {_normal(p) for p in parts}
        parts.append(part)
        known.add(key)
    return "; ".join(parts)


def _normal(text: str) -> str:
    return " ".join(text.casefold().split())


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def extract_json_object(text: str) -> dict[str, Any] | None:
    """The JSON object in ``text``: bare, fenced, or surrounded by prose; None if there is none.

    Near-JSON (trailing commas, single quotes, missing brackets) is repaired with json-repair.
    """
    candidates = [m.group(1) for m in _FENCE.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if start != -1:
        candidates.append(text[start : end + 1] if end > start else text[start:])
    for candidate in candidates:
        data = _load_object(candidate.strip())
        if data is not None:
            return data
    return None


def _load_object(candidate: str) -> dict[str, Any] | None:
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError:
        import json_repair

        try:
            data = json_repair.loads(candidate)
        except Exception:  # noqa: BLE001 - json-repair raises assorted errors on garbage
            return None
    return data if isinstance(data, dict) and data else None


def _unstopped(item: str) -> str:
    """A list item without its closing full stop (items are joined with ``;``)."""
    return item[:-1] if item.endswith(".") and not item.endswith("..") else item
