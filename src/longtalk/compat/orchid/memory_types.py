"""Orchid's ``core/memory_types.py``: structured summary dataclasses and prompt constants.

Lists are lists (longtalk's ``ConversationSummary`` uses tuples: it is immutable), the
context string ends with ``Summary: <narrative>``, and ``from_json`` returns None on bad
JSON (longtalk's ``ConversationSummary.parse`` repairs it instead). ``to_native`` and
``from_native`` convert to and from longtalk's model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from longtalk.summary.model import ConversationSummary

SUMMARY_JSON_SCHEMA = """{
  "topics": ["topic1", "topic2"],
  "entities": [
    {"name": "entity_name", "type": "person|product|concept|other", "details": "key information"}
  ],
  "actions_taken": ["action1", "action2"],
  "decisions": ["decision1"],
  "open_questions": ["question1"],
  "user_preferences": ["preference1"],
  "narrative": "A brief prose summary of the conversation flow (2-3 sentences)",
  "covered_turns": 5
}"""

DEFAULT_STRUCTURED_SUMMARY_SYSTEM_PROMPT = (
    "You are a conversation summarizer that produces structured summaries. "
    "Output ONLY valid JSON with this schema:\n"
    f"{SUMMARY_JSON_SCHEMA}\n\n"
    "Be factual and concise. Extract all entities, topics, and decisions mentioned."
)

DEFAULT_STRUCTURED_SUMMARY_USER_PROMPT = (
    "Summarise the following conversation excerpt in structured JSON format. "
    "Focus on: (1) the key topics discussed, (2) any entities or "
    "names mentioned, (3) actions taken or decisions made, (4) any "
    "outstanding questions. Be factual and concise.\n\n"
    "{transcript}"
)

DEFAULT_STRUCTURED_EXTENSION_SYSTEM_PROMPT = (
    "You are a conversation summarizer that produces structured summaries. "
    "You have an existing summary and new messages to incorporate. "
    "Update the summary to reflect new information, remove contradicted facts, "
    "and merge duplicate entities.\n\n"
    "Output ONLY valid JSON with this schema:\n"
    f"{SUMMARY_JSON_SCHEMA}"
)

DEFAULT_STRUCTURED_EXTENSION_USER_PROMPT = (
    "Given the existing summary below and the new conversation messages, "
    "produce an updated summary that incorporates all new information.\n\n"
    "Existing summary:\n{existing_summary}\n\n"
    "New messages:\n{new_messages}"
)

DEFAULT_NARRATIVE_FALLBACK_PROMPT = (
    "Summarise the following conversation excerpt in 2-4 sentences. "
    "Focus on: (1) the key topics discussed, (2) any entities or "
    "names mentioned, (3) actions taken or decisions made, (4) any "
    "outstanding questions. Be factual and concise.\n\n"
    "{transcript}"
)


@dataclass
class OrchidSummaryEntity:
    """A named entity extracted from the conversation."""

    name: str
    type: str = "other"
    details: str = ""


@dataclass
class OrchidConversationSummary:
    """Structured conversation summary with entity tracking (mutable, list fields)."""

    topics: list[str] = field(default_factory=list)
    entities: list[OrchidSummaryEntity] = field(default_factory=list)
    actions_taken: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    open_questions: list[str] = field(default_factory=list)
    user_preferences: list[str] = field(default_factory=list)
    narrative: str = ""
    covered_turns: int = 0

    def to_context_string(self) -> str:
        """Render as a human-readable context block for LLM injection."""
        parts: list[str] = []
        if self.topics:
            parts.append(f"Topics: {', '.join(self.topics)}")
        if self.entities:
            lines = [f"  - {e.name} ({e.type}): {e.details}" for e in self.entities]
            parts.append("Entities:\n" + "\n".join(lines))
        for label, values in (
            ("Actions taken", self.actions_taken),
            ("Decisions", self.decisions),
            ("Open questions", self.open_questions),
            ("User preferences", self.user_preferences),
        ):
            if values:
                parts.append(f"{label}: {'; '.join(values)}")
        if self.narrative:
            parts.append(f"Summary: {self.narrative}")
        return "\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """Serialize to a plain dict for JSON storage."""
        return {
            "topics": list(self.topics),
            "entities": [
                {"name": e.name, "type": e.type, "details": e.details} for e in self.entities
            ],
            "actions_taken": list(self.actions_taken),
            "decisions": list(self.decisions),
            "open_questions": list(self.open_questions),
            "user_preferences": list(self.user_preferences),
            "narrative": self.narrative,
            "covered_turns": self.covered_turns,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OrchidConversationSummary:
        """Deserialize from a plain dict (e.g. from JSON storage)."""
        return cls(
            topics=data.get("topics", []),
            entities=[OrchidSummaryEntity(**e) for e in data.get("entities", [])],
            actions_taken=data.get("actions_taken", []),
            decisions=data.get("decisions", []),
            open_questions=data.get("open_questions", []),
            user_preferences=data.get("user_preferences", []),
            narrative=data.get("narrative", ""),
            covered_turns=data.get("covered_turns", 0),
        )

    @classmethod
    def from_json(cls, json_str: str) -> OrchidConversationSummary | None:
        """Parse JSON; None when it is not valid JSON or not an object."""
        try:
            data = json.loads(json_str)
        except (json.JSONDecodeError, TypeError):
            return None
        if not isinstance(data, dict):
            return None
        return cls.from_dict(data)

    @classmethod
    def from_string_or_json(cls, text: str) -> OrchidConversationSummary:
        """Structured JSON, or else a summary with only the narrative set."""
        structured = cls.from_json(text)
        if structured is not None:
            return structured
        return cls(narrative=text.strip())

    @classmethod
    def merge(
        cls, existing: OrchidConversationSummary, new_data: dict[str, Any]
    ) -> OrchidConversationSummary:
        """Append new items (deduplicated), overwrite the narrative, add up covered turns."""
        return OrchidConversationSummary(
            topics=_deduplicate_list(existing.topics, new_data.get("topics", [])),
            entities=_merge_entities(existing.entities, new_data.get("entities", [])),
            actions_taken=_deduplicate_list(
                existing.actions_taken, new_data.get("actions_taken", [])
            ),
            decisions=_deduplicate_list(existing.decisions, new_data.get("decisions", [])),
            open_questions=_deduplicate_list(
                existing.open_questions, new_data.get("open_questions", [])
            ),
            user_preferences=_deduplicate_list(
                existing.user_preferences, new_data.get("user_preferences", [])
            ),
            narrative=new_data.get("narrative", existing.narrative),
            covered_turns=existing.covered_turns + new_data.get("covered_turns", 1),
        )

    def to_native(self) -> ConversationSummary:
        """The same content as longtalk's (immutable, tuple-valued) summary model."""
        return ConversationSummary.model_validate(self.to_dict())

    @classmethod
    def from_native(cls, summary: ConversationSummary) -> OrchidConversationSummary:
        """The Orchid form of a longtalk summary."""
        return cls(
            topics=list(summary.topics),
            entities=[OrchidSummaryEntity(e.name, e.type, e.details) for e in summary.entities],
            actions_taken=list(summary.actions_taken),
            decisions=list(summary.decisions),
            open_questions=list(summary.open_questions),
            user_preferences=list(summary.user_preferences),
            narrative=summary.narrative,
            covered_turns=summary.covered_turns,
        )


def _deduplicate_list(existing: list[str], new: list[str]) -> list[str]:
    seen = set(existing)
    result = list(existing)
    for item in new:
        if item not in seen:
            result.append(item)
            seen.add(item)
    return result


def _merge_entities(
    existing: list[OrchidSummaryEntity], new: list[dict[str, Any]]
) -> list[OrchidSummaryEntity]:
    seen: dict[str, OrchidSummaryEntity] = {}
    result: list[OrchidSummaryEntity] = []
    for entity in existing:
        copy = OrchidSummaryEntity(entity.name, entity.type, entity.details)
        seen[copy.name.lower()] = copy
        result.append(copy)
    for data in new:
        key = (data.get("name") or "").lower()
        if key in seen:
            known = seen[key]
            known.type = data.get("type", known.type)
            details = data.get("details", "")
            if details and details not in known.details:
                known.details += "; " + details
        else:
            entity = OrchidSummaryEntity(
                data.get("name", ""), data.get("type", "other"), data.get("details", "")
            )
            result.append(entity)
            seen[key] = entity
    return result


__all__ = [
    "DEFAULT_NARRATIVE_FALLBACK_PROMPT",
    "DEFAULT_STRUCTURED_EXTENSION_SYSTEM_PROMPT",
    "DEFAULT_STRUCTURED_EXTENSION_USER_PROMPT",
    "DEFAULT_STRUCTURED_SUMMARY_SYSTEM_PROMPT",
    "DEFAULT_STRUCTURED_SUMMARY_USER_PROMPT",
    "SUMMARY_JSON_SCHEMA",
    "OrchidConversationSummary",
    "OrchidSummaryEntity",
]
