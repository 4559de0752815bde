"""Orchid's agent helpers (``orchid_ai.core.helpers``) on longtalk's filters and writer.

``extract_conversation_history`` runs longtalk's filters (skip blanks, skip routing noise,
exclude the unanswered query) and truncation, strips agent labels from assistant messages
and caps to ``max_turns * 2`` messages, returning Orchid's ``{"role", "content"}`` dicts.
Routing noise is an assistant message starting with a skip prefix (a user's message is never
skipped), and the text after a stripped label loses its leading whitespace.
``compress_conversation_history`` summarizes everything before the last ``recent_turns * 2``
messages with longtalk's ``LLMSummaryWriter`` and puts the summary first as an
``assistant`` message labelled ``[Conversation summary]``. ``summarise`` is the agent's
answer call, with the conversation history between the system prompt and the query.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from longtalk.compat.compression import SUMMARY_PREFIX
from longtalk.compat.orchid.memory_types import OrchidConversationSummary
from longtalk.compat.orchid.messages import native_message
from longtalk.compat.orchid.writer import extend_summary
from longtalk.core.cleaning import clean_output
from longtalk.core.filters import (
    ExcludeLastUserFilter,
    MaxCharsFilter,
    MessageFilterPipeline,
    SkipBlankFilter,
)
from longtalk.core.messages import Message, Role
from longtalk.core.truncation import TruncationStrategy
from longtalk.errors import LLMError
from longtalk.summary.model import ConversationSummary

__all__ = [
    "DEFAULT_SUMMARISE_HISTORY_REMINDER",
    "DEFAULT_SUMMARISE_PRIOR_RESULTS_HEADER",
    "DEFAULT_SUMMARISE_RAG_HEADER",
    "DEFAULT_SUMMARISE_USER_TEMPLATE",
    "compress_conversation_history",
    "extract_conversation_history",
    "extract_user_query",
    "filter_summary_messages",
    "summarise",
]

log = logging.getLogger(__name__)

DEFAULT_SUMMARISE_HISTORY_REMINDER = (
    "\n\nIMPORTANT: The conversation history below shows prior exchanges. "
    "Always focus on the user's LATEST message and its relationship to "
    "the most recent topic. Do NOT change topic or introduce unrelated "
    "content unless the user explicitly asks for something new."
)
DEFAULT_SUMMARISE_PRIOR_RESULTS_HEADER = "\n\n--- Previous Tool Results (from prior turns) ---\n"
DEFAULT_SUMMARISE_RAG_HEADER = "Background knowledge (from RAG):\n"
DEFAULT_SUMMARISE_USER_TEMPLATE = (
    "User query: {query}\n\n{rag_section}Live data (from API):\n{mcp_data}"
)


def extract_user_query(state: Mapping[str, Any]) -> str:
    """The content of the last human message ('' when there is none)."""
    for message in reversed(state.get("messages", [])):
        if getattr(message, "type", None) == "human":
            return str(message.content)
    return ""


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
    cleaned = SkipBlankFilter().apply(messages)
    cleaned = ExcludeLastUserFilter().apply(_without_noise(cleaned, skip_prefixes))
    history = [_strip(m, strip_prefixes) for m in cleaned]
    if max_chars is not None:
        history = MaxCharsFilter(max_chars, strategy).apply(history)
    history = history[-max_turns * 2 :] if max_turns > 0 else []
    return [_as_dict(m) for m in history]


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
    try:
        summary, raw = await extend_summary(
            chat_model,
            running_summary,
            older,
            structured=structured_output,
            system_prompt=compression_system_prompt,
            user_prompt=compression_user_prompt,
            extension_prompt=extension_user_prompt,
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


def filter_summary_messages(history: list[dict[str, str]]) -> list[dict[str, str]]:
    """The history without ``[Conversation summary]`` messages (never fed back as turns)."""
    return [m for m in history if not m.get("content", "").startswith(SUMMARY_PREFIX)]


async def summarise(
    query: str,
    mcp_data: dict[str, Any],
    rag_data: list[dict[str, Any]],
    *,
    system_prompt: str,
    chat_model: Any,
    temperature: float = 0.2,
    conversation_history: list[dict[str, str]] | None = None,
    prior_tool_context: dict[str, Any] | None = None,
    history_reminder: str | None = None,
    prior_results_header: str | None = None,
    rag_section_header: str | None = None,
    user_content_template: str | None = None,
    prior_results_max_chars: int = 4000,
) -> str:
    """The agent's answer: system prompt, the conversation history, then the query and data.

    With history, the system prompt gains a reminder to answer the latest message; prior
    tool results are appended to it as JSON (at most ``prior_results_max_chars``).
    """
    system = system_prompt
    if conversation_history:
        system += _or(history_reminder, DEFAULT_SUMMARISE_HISTORY_REMINDER)
    if prior_tool_context:
        dump = json.dumps(prior_tool_context, indent=2, default=str)[:prior_results_max_chars]
        system += _or(prior_results_header, DEFAULT_SUMMARISE_PRIOR_RESULTS_HEADER) + dump
    rag_section = ""
    if rag_data:
        header = _or(rag_section_header, DEFAULT_SUMMARISE_RAG_HEADER)
        rag_section = header + json.dumps(rag_data, indent=2, default=str) + "\n\n"
    user_content = _or(user_content_template, DEFAULT_SUMMARISE_USER_TEMPLATE).format(
        query=query, rag_section=rag_section, mcp_data=json.dumps(mcp_data, indent=2, default=str)
    )
    messages = [
        {"role": "system", "content": system},
        *(conversation_history or []),
        {"role": "user", "content": user_content},
    ]
    result = await chat_model.ainvoke(messages, temperature=temperature)
    return str(getattr(result, "content", "") or "")


def _or(value: str | None, default: str) -> str:
    return default if value is None else value


def _as_dict(message: Message) -> dict[str, str]:
    return {"role": message.role.value, "content": message.content}


def _without_noise(messages: Sequence[Message], prefixes: Sequence[str]) -> list[Message]:
    """Without the assistant messages that start with a skip prefix (routing noise)."""
    skip = tuple(p for p in prefixes if p)
    if not skip:
        return list(messages)
    return [
        m for m in messages if m.role != Role.ASSISTANT or not m.content.lstrip().startswith(skip)
    ]


def _strip(message: Message, prefixes: Sequence[str]) -> Message:
    """An assistant message without the first matching agent label (and the space after it)."""
    if message.role != Role.ASSISTANT:
        return message
    for prefix in prefixes:
        if prefix and message.content.startswith(prefix):
            return message.with_content(message.content[len(prefix) :].lstrip())
    return message
