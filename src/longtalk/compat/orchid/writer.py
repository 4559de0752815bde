"""Orchid's summary calls, made by longtalk's ``LLMSummaryWriter`` over a chat model.

Orchid's prompts (system and user, fresh and extension, narrative and structured) become a
``PromptSet``; the writer formats the transcript, calls the model at temperature 0, cleans
the answer, checks that a structured answer is a JSON summary and merges it into the existing
summary. A failure of the model is an ``LLMError`` and an answer that is no JSON summary is
returned raw: the callers turn both into Orchid's fallbacks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from longtalk.compat.orchid.chat_model import ChatModelLLM
from longtalk.compat.orchid.memory_types import (
    DEFAULT_STRUCTURED_EXTENSION_SYSTEM_PROMPT,
    DEFAULT_STRUCTURED_EXTENSION_USER_PROMPT,
    DEFAULT_STRUCTURED_SUMMARY_SYSTEM_PROMPT,
    DEFAULT_STRUCTURED_SUMMARY_USER_PROMPT,
    OrchidConversationSummary,
)
from longtalk.core.cleaning import clean_output
from longtalk.core.messages import Message, Role
from longtalk.errors import LLMOutputError
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.summary.model import ConversationSummary
from longtalk.summary.prompts import PromptSet

NARRATIVE_SYSTEM_PROMPT = "You are a conversation summarizer. Output only the summary."
NARRATIVE_USER_PROMPT = (
    "Summarise the following conversation in one short paragraph. "
    "Focus on: key topics discussed, entities mentioned, actions taken, "
    "and any outstanding questions or requests.\n\n{transcript}"
)
NARRATIVE_EXTENSION_PROMPT = (
    "Given this existing summary and these new conversation messages, "
    "produce an updated summary that incorporates all new information.\n\n"
    "Existing summary:\n{existing_summary}\n\n"
    "New messages:\n{new_messages}"
)

_ROLES = {"user": Role.USER, "assistant": Role.ASSISTANT, "system": Role.SYSTEM}


def orchid_prompts(
    *,
    structured: bool,
    extending: bool,
    system_prompt: str | None = None,
    user_prompt: str | None = None,
    extension_prompt: str | None = None,
) -> PromptSet:
    """Orchid's prompts for one call, with the per-agent overrides applied."""
    if structured:
        default_system = (
            DEFAULT_STRUCTURED_EXTENSION_SYSTEM_PROMPT
            if extending
            else DEFAULT_STRUCTURED_SUMMARY_SYSTEM_PROMPT
        )
        return PromptSet(
            compression_system=system_prompt or default_system,
            compression_user=user_prompt or DEFAULT_STRUCTURED_SUMMARY_USER_PROMPT,
            extension_user=extension_prompt or DEFAULT_STRUCTURED_EXTENSION_USER_PROMPT,
            structured_instructions="",
        )
    return PromptSet(
        compression_system=NARRATIVE_SYSTEM_PROMPT if system_prompt is None else system_prompt,
        compression_user=user_prompt or NARRATIVE_USER_PROMPT,
        extension_user=extension_prompt or NARRATIVE_EXTENSION_PROMPT,
        structured_instructions="",
    )


def to_messages(history: Sequence[Mapping[str, Any]]) -> list[Message]:
    """Orchid's ``{"role", "content"}`` dicts as longtalk messages."""
    return [
        Message(role=_ROLES.get(str(m.get("role", "")), Role.ASSISTANT), content=m["content"])
        for m in history
    ]


def existing_summary(text: str | None, *, structured: bool) -> ConversationSummary | None:
    """A stored Orchid summary string as longtalk's model (None when there is none)."""
    if not text:
        return None
    if structured:
        return OrchidConversationSummary.from_string_or_json(text).to_native()
    return ConversationSummary(narrative=text)


async def extend_summary(
    chat_model: Any,
    existing: str | None,
    turns: Sequence[Mapping[str, Any]],
    *,
    structured: bool,
    system_prompt: str | None = None,
    user_prompt: str | None = None,
    extension_prompt: str | None = None,
) -> tuple[ConversationSummary | None, str]:
    """One writer call at temperature 0: the updated summary and the model's raw answer.

    ``turns`` are Orchid's ``{"role", "content"}`` dicts; the prompts are Orchid's (see
    :func:`orchid_prompts`, with the overrides given), extending when there is a summary.
    The summary is None when the model answered something longtalk's writer refuses as a
    summary (not a JSON summary in structured mode): the caller applies Orchid's fallback
    to the raw answer. Raises ``LLMError`` when the model failed (longtalk's writer
    translates a chat model's own exceptions) or answered nothing.
    """
    prompts = orchid_prompts(
        structured=structured,
        extending=bool(existing),
        system_prompt=system_prompt,
        user_prompt=user_prompt,
        extension_prompt=extension_prompt,
    )
    llm = ChatModelLLM(chat_model)
    writer = LLMSummaryWriter(llm, prompts=prompts, temperature=0.0, use_json_schema=False)
    try:
        draft = await writer.extend(
            existing_summary(existing, structured=structured),
            to_messages(turns),
            structured=structured,
        )
    except LLMOutputError:
        if not clean_output(llm.last_text):
            raise
        return None, llm.last_text
    if structured and draft.kind == "prose":
        return None, llm.last_text
    return draft.summary, llm.last_text
