"""Orchid's ``OrchidAgent`` history helpers over longtalk's filter pipeline and writer.

``extract_conversation_history`` runs longtalk's filters (skip blanks, skip routing noise,
exclude the unanswered query) and truncation, then strips agent labels from assistant
messages and caps to ``max_turns * 2`` messages, returning Orchid's ``{"role", "content"}``
dicts. ``compress_conversation_history`` summarizes everything before the last
``recent_turns * 2`` messages with longtalk's ``LLMSummaryWriter`` and puts the summary
first as an ``assistant`` message labelled ``[Conversation summary]``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from longtalk.compat.compression import SUMMARY_PREFIX
from longtalk.compat.orchid.memory_types import OrchidConversationSummary
from longtalk.compat.orchid.messages import native_message
from longtalk.compat.orchid.writer import extend_summary, orchid_prompts, to_messages
from longtalk.core.cleaning import clean_output
from longtalk.core.filters import (
    ExcludeLastUserFilter,
    MaxCharsFilter,
    MessageFilterPipeline,
    SkipBlankFilter,
    SkipPrefixFilter,
)
from longtalk.core.messages import Message, Role
from longtalk.core.truncation import TruncationStrategy
from longtalk.errors import LLMError
from longtalk.summary.model import ConversationSummary

__all__ = ["OrchidAgent"]

log = logging.getLogger(__name__)


class OrchidAgent:
    """The memory helpers of Orchid's agent base class, as static methods."""

    @staticmethod
    def extract_user_query(state: Mapping[str, Any]) -> str:
        """The content of the last human message ('' when there is none)."""
        for message in reversed(state.get("messages", [])):
            if getattr(message, "type", None) == "human":
                return str(message.content)
        return ""

    @staticmethod
    def extract_conversation_history(
        state: Mapping[str, Any],
        *,
        max_turns: int = 10,
        max_chars: int | None = None,
        skip_prefixes: tuple[str, ...] = ("[Supervisor",),
        strip_prefixes: tuple[str, ...] = (),
        truncation_strategy: str = "hard",
        pipeline: MessageFilterPipeline | None = None,
    ) -> list[dict[str, str]]:
        """Clean user/assistant pairs from graph state, without the current query.

        With ``pipeline`` (``SUPERVISOR_PIPELINE``, ``agent_pipeline(...)``) the history is
        that pipeline's output and the other parameters are ignored.
        """
        messages = [m for raw in state.get("messages", []) if (m := native_message(raw))]
        if pipeline is not None:
            return [_as_dict(m) for m in pipeline.apply(messages)]
        strategy = TruncationStrategy(truncation_strategy)
        pipeline = MessageFilterPipeline(
            (SkipBlankFilter(), SkipPrefixFilter(tuple(skip_prefixes)), ExcludeLastUserFilter())
        )
        history = [_strip(m, strip_prefixes) for m in pipeline.apply(messages)]
        if max_chars is not None:
            history = MaxCharsFilter(max_chars, strategy).apply(history)
        history = history[-max_turns * 2 :] if max_turns > 0 else []
        return [_as_dict(m) for m in history]

    @staticmethod
    async def compress_conversation_history(
        history: list[dict[str, str]],
        *,
        chat_model: Any,
        recent_turns: int = 3,
        running_summary: str | None = None,
        structured_output: bool = False,
        compression_system_prompt: str | None = None,
        compression_user_prompt: str | None = None,
        extension_user_prompt: str | None = None,
    ) -> list[dict[str, str]]:
        """Summarize the older messages, keep the last ``recent_turns`` pairs verbatim.

        History that fits the window is returned unchanged (no LLM call); when the model
        fails, only the recent messages are returned.
        """
        max_recent = recent_turns * 2
        if len(history) <= max_recent:
            return history
        older, recent = history[: len(history) - max_recent], history[len(history) - max_recent :]
        prompts = orchid_prompts(
            structured=structured_output,
            extending=bool(running_summary),
            system_prompt=compression_system_prompt,
            user_prompt=compression_user_prompt,
            extension_prompt=extension_user_prompt,
        )
        try:
            summary, raw = await extend_summary(
                chat_model,
                running_summary,
                to_messages(older),
                structured=structured_output,
                prompts=prompts,
            )
        except LLMError as exc:
            log.warning("History compression failed (%s), falling back to truncation", exc)
            return recent
        if summary is None:  # not a JSON summary: the answer itself is the narrative
            log.warning("Structured summary JSON parse failed, falling back to narrative")
            summary = ConversationSummary(narrative=clean_output(raw))
        text = (
            OrchidConversationSummary.from_native(summary).to_context_string()
            if structured_output
            else summary.narrative.strip()
        )
        return [{"role": "assistant", "content": f"{SUMMARY_PREFIX}\n{text}"}, *recent]


def _as_dict(message: Message) -> dict[str, str]:
    return {"role": message.role.value, "content": message.content}


def _strip(message: Message, prefixes: Sequence[str]) -> Message:
    """An assistant message without the first matching agent label."""
    if message.role != Role.ASSISTANT:
        return message
    for prefix in prefixes:
        if prefix and message.content.startswith(prefix):
            return message.with_content(message.content[len(prefix) :])
    return message
