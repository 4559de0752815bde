"""Orbiter's multi-template summaries over longtalk messages.

The longtalk-shaped form of ``orbiter.memory.summary`` (``longtalk.compat.orbiter.summary``
is the Orbiter-shaped one, over Orbiter's items): ``generate_summary`` splits the messages
into older ones (summarized) and the ``keep_recent`` most recent ones (kept verbatim),
renders one prompt per configured template with the older messages' transcript, and returns
one cleaned summary per template. ``LLMSummarizer`` answers the prompts with any longtalk LLM.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, runtime_checkable

from longtalk.core.cleaning import clean_output
from longtalk.core.filters import tool_groups
from longtalk.core.messages import Message, format_transcript
from longtalk.errors import ConfigError, LLMOutputError
from longtalk.llm.base import LLM, prompt_request
from longtalk.summary.prompts import DEFAULT_COMPRESSION_SYSTEM_PROMPT, render_prompt

__all__ = [
    "DEFAULT_TEMPLATE_PROMPTS",
    "LLMSummarizer",
    "Summarizer",
    "SummaryConfig",
    "SummaryResult",
    "SummaryTemplate",
    "generate_summary",
    "split_recent",
]


class SummaryTemplate(StrEnum):
    """Built-in summary templates."""

    CONVERSATION = "conversation"
    FACTS = "facts"
    PROFILES = "profiles"


DEFAULT_TEMPLATE_PROMPTS: Mapping[SummaryTemplate, str] = {
    SummaryTemplate.CONVERSATION: (
        "Summarize the conversation below. Keep the key decisions, action items and the "
        "context needed to continue it; drop greetings and filler.\n\n"
        "Conversation:\n{transcript}"
    ),
    SummaryTemplate.FACTS: (
        "List the factual statements and verified information in the conversation below, "
        "one per line: names, numbers, dates, places, results. No opinions, no filler.\n\n"
        "Conversation:\n{transcript}"
    ),
    SummaryTemplate.PROFILES: (
        "Describe the people in the conversation below: their preferences, personality "
        "traits and background, one short line per person, only what they said or showed.\n\n"
        "Conversation:\n{transcript}"
    ),
}


@dataclass(frozen=True, slots=True)
class SummarySettings:
    """Orbiter's summary settings, names and defaults, declared once.

    Both configurations hold them: :class:`SummaryConfig` here (checked, prompts over
    ``{transcript}``) and Orbiter's own in ``longtalk.compat.orbiter.summary`` (as upstream,
    prompts over ``{content}``).
    """

    message_threshold: int = 20
    token_threshold: int = 4000
    templates: tuple[SummaryTemplate, ...] = (SummaryTemplate.CONVERSATION,)
    prompts: dict[SummaryTemplate, str] = field(default_factory=dict)
    keep_recent: int = 4
    token_estimate_ratio: float = 4.0


@dataclass(frozen=True, slots=True)
class SummaryConfig(SummarySettings):
    """When to summarize and what to produce (Orbiter's names and defaults).

    Triggers when the message count or the estimated tokens exceed their thresholds
    (strictly); ``keep_recent`` messages stay verbatim; ``prompts`` override the built-in
    prompt per template and must contain ``{transcript}``.
    """

    def __post_init__(self) -> None:
        for name in ("message_threshold", "token_threshold", "keep_recent"):
            if getattr(self, name) < 0:
                raise ConfigError(f"must be zero or positive, got {getattr(self, name)}", path=name)
        if self.token_estimate_ratio <= 0:
            raise ConfigError(
                f"must be positive, got {self.token_estimate_ratio}", path="token_estimate_ratio"
            )
        object.__setattr__(self, "templates", _templates(self.templates))
        object.__setattr__(self, "prompts", _prompts(self.prompts))

    def get_prompt(self, template: SummaryTemplate | str) -> str:
        """The prompt for ``template``: the override if configured, else the default."""
        chosen = SummaryTemplate(template)
        return self.prompts.get(chosen) or DEFAULT_TEMPLATE_PROMPTS[chosen]


def _templates(values: Sequence[SummaryTemplate | str]) -> tuple[SummaryTemplate, ...]:
    try:
        chosen = tuple(SummaryTemplate(value) for value in values)
    except ValueError as exc:
        expected = [t.value for t in SummaryTemplate]
        raise ConfigError(f"{exc}; expected one of {expected}", path="templates") from exc
    if not chosen:
        raise ConfigError("at least one template is needed", path="templates")
    return tuple(dict.fromkeys(chosen))


def _prompts(
    values: Mapping[SummaryTemplate, str] | Mapping[str, str],
) -> dict[SummaryTemplate, str]:
    prompts: dict[SummaryTemplate, str] = {}
    for key, prompt in values.items():
        try:
            template = SummaryTemplate(key)
        except ValueError as exc:
            raise ConfigError(f"unknown template {key!r}", path=f"prompts.{key}") from exc
        if "{transcript}" not in prompt:
            raise ConfigError("the prompt must contain {transcript}", path=f"prompts.{key}")
        prompts[template] = prompt
    return prompts


@dataclass(slots=True, kw_only=True)
class SummaryResult:
    """One generation run: summaries by template name, and the recent items kept."""

    summaries: dict[str, str] = field(default_factory=dict)
    compressed_items: list[Message]
    original_count: int


@runtime_checkable
class Summarizer(Protocol):
    """Anything that answers a summarization prompt."""

    async def summarize(self, prompt: str) -> str:
        """The summary the prompt asks for."""
        ...


@dataclass(frozen=True, slots=True)
class LLMSummarizer:
    """A :class:`Summarizer` over the ``LLM`` seam: one chat call per prompt."""

    llm: LLM
    system: str | None = DEFAULT_COMPRESSION_SYSTEM_PROMPT
    temperature: float = 0.2
    max_tokens: int | None = 500

    async def summarize(self, prompt: str) -> str:
        """The model's answer to ``prompt``."""
        request = prompt_request(
            prompt, system=self.system, temperature=self.temperature, max_tokens=self.max_tokens
        )
        return (await self.llm.complete(request)).text


def split_recent(items: Sequence[Message], keep_recent: int) -> tuple[list[Message], list[Message]]:
    """``(older, recent)``: the last ``keep_recent`` items kept verbatim.

    The cut moves earlier when needed so that no tool call is separated from its results.
    """
    cut = max(0, len(items) - keep_recent)
    groups = tool_groups(items)
    recent_groups = {groups[index] for index in range(cut, len(items))}
    while cut > 0 and groups[cut - 1] in recent_groups:
        cut -= 1
    return list(items[:cut]), list(items[cut:])


async def generate_summary(
    items: Sequence[Message], config: SummaryConfig, summarizer: Summarizer
) -> SummaryResult:
    """Summarize all but the recent items, once per configured template.

    The templates are asked concurrently; each answer is cleaned of special tokens. With
    nothing older than the recent items, no call is made and ``summaries`` is empty.
    Raises ``LLMOutputError`` when an answer is empty after cleaning; the summarizer's own
    errors propagate, so a failure is never stored as a summary.
    """
    older, recent = split_recent(items, config.keep_recent)
    result = SummaryResult(compressed_items=recent, original_count=len(items))
    if not older:
        return result
    transcript = format_transcript(older)
    prompts = [
        render_prompt(config.get_prompt(template), {"transcript": transcript})
        for template in config.templates
    ]
    answers = await asyncio.gather(*(summarizer.summarize(prompt) for prompt in prompts))
    for template, answer in zip(config.templates, answers, strict=True):
        cleaned = clean_output(answer)
        if not cleaned:
            raise LLMOutputError(f"the summarizer returned an empty {template.value} summary")
        result.summaries[template.value] = cleaned
    return result
