"""Orbiter's summary module (``orbiter.memory.summary``): triggers and template summaries.

Orbiter's wording and formats are kept: trigger reasons read ``Message count N exceeds
threshold T``, the transcript is ``[HUMAN]: ...`` / ``[AI]: ...`` / ``[SYSTEM]: ...``,
prompts use ``{content}``, and with no more items than ``keep_recent`` every item is still
summarized. The templates and the ``Summarizer`` protocol are longtalk's own (the same
values and method); :func:`native_config` gives the longtalk ``SummaryConfig`` of the same
thresholds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from longtalk.compat import templates as native
from longtalk.compat.orbiter.base import MemoryItem
from longtalk.compat.templates import Summarizer, SummarySettings, SummaryTemplate

__all__ = [
    "Summarizer",
    "SummaryConfig",
    "SummaryResult",
    "SummaryTemplate",
    "TriggerResult",
    "check_trigger",
    "generate_summary",
    "native_config",
]

_DEFAULT_PROMPTS: dict[SummaryTemplate, str] = {
    SummaryTemplate.CONVERSATION: (
        "Summarize the following conversation, preserving key decisions, "
        "action items, and important context:\n\n{content}"
    ),
    SummaryTemplate.FACTS: (
        "Extract factual statements and verified information from the "
        "following conversation. Return them as a bullet list:\n\n{content}"
    ),
    SummaryTemplate.PROFILES: (
        "Extract user preferences, personality traits, and background "
        "information mentioned in the following conversation:\n\n{content}"
    ),
}


@dataclass(frozen=True, slots=True)
class SummaryConfig(SummarySettings):
    """Configuration for summary triggers and generation."""

    def get_prompt(self, template: SummaryTemplate) -> str:
        """The prompt for a template, falling back to the built-in default."""
        return self.prompts.get(template, _DEFAULT_PROMPTS[template])


@dataclass(frozen=True, slots=True)
class TriggerResult:
    """Result of a trigger check."""

    estimated_tokens: int
    message_count: int
    reason: str
    triggered: bool


def check_trigger(items: Sequence[MemoryItem], config: SummaryConfig) -> TriggerResult:
    """Triggered when the message count OR the estimated tokens exceed the thresholds.

    The message count is checked first and names the reason when both are exceeded.
    """
    count = len(items)
    tokens = _estimate_tokens(items, config.token_estimate_ratio)
    if count > config.message_threshold:
        reason = f"Message count {count} exceeds threshold {config.message_threshold}"
        return TriggerResult(tokens, count, reason, True)
    if tokens > config.token_threshold:
        reason = f"Estimated tokens {tokens} exceeds threshold {config.token_threshold}"
        return TriggerResult(tokens, count, reason, True)
    return TriggerResult(tokens, count, "No threshold exceeded", False)


def _estimate_tokens(items: Sequence[MemoryItem], ratio: float) -> int:
    """Characters divided by ``ratio``, rounded down."""
    return int(sum(len(item.content) for item in items) / ratio)


@dataclass(slots=True)
class SummaryResult:
    """Generated summaries (by template name), the recent items kept, the count before."""

    compressed_items: list[MemoryItem]
    original_count: int
    summaries: dict[str, str] = field(default_factory=dict)


async def generate_summary(
    items: Sequence[MemoryItem], config: SummaryConfig, summarizer: Any
) -> SummaryResult:
    """One summary per configured template of all but the last ``keep_recent`` items.

    With nothing older than the recent items, all items are summarized (and all kept).
    Templates are asked one after the other, in the configured order.
    """
    if not items:
        return SummaryResult(compressed_items=[], original_count=0)
    keep = max(0, min(config.keep_recent, len(items)))
    older, recent = list(items[: len(items) - keep]), list(items[len(items) - keep :])
    content = _format_items(older or items)
    summaries: dict[str, str] = {}
    for template in config.templates:
        prompt = config.get_prompt(template).format(content=content)
        summaries[template.value] = await summarizer.summarize(prompt)
    return SummaryResult(compressed_items=recent, original_count=len(items), summaries=summaries)


def _format_items(items: Sequence[MemoryItem]) -> str:
    """``[TYPE]: content`` lines, the type upper-cased (``[HUMAN]``, ``[AI]``, ...)."""
    return "\n".join(f"[{item.memory_type.upper()}]: {item.content}" for item in items)


def native_config(config: SummaryConfig) -> native.SummaryConfig:
    """The longtalk ``SummaryConfig`` with the same thresholds, templates and recency.

    Custom prompts carry over with ``{content}`` renamed to ``{transcript}``.
    """
    settings = {item.name: getattr(config, item.name) for item in fields(SummarySettings)}
    prompts = {t: p.replace("{content}", "{transcript}") for t, p in config.prompts.items()}
    return native.SummaryConfig(**{**settings, "prompts": prompts})
