"""Chat titles regenerated from the summary (as the LangGraph backend does), offline fallback."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from longtalk.core.messages import Message
from longtalk.llm.base import LLM, prompt_request
from longtalk.summary.model import ConversationSummary
from longtalk.summary.offline_title import MAX_TITLE_WORDS, natural_title
from longtalk.summary.prompts import TITLE_PROMPT, render_prompt
from longtalk.summary.replies import title_from_reply

log = logging.getLogger(__name__)
MAX_TITLE_CHARS = 80
DEFAULT_TITLE = "New chat"


def fallback_title(summary: ConversationSummary | None, messages: Sequence[Message] = ()) -> str:
    """A title without an LLM: a short natural phrase (see :func:`natural_title`).

    Without topics or user words, the narrative's opening words; else ``New chat``.
    """
    title = natural_title(summary, messages)
    if title:
        return _tidy(title)
    if summary is not None and summary.narrative:
        return _tidy(" ".join(summary.narrative.split()[:MAX_TITLE_WORDS]))
    return DEFAULT_TITLE


async def generate_title(
    llm: LLM | None,
    summary: ConversationSummary,
    messages: Sequence[Message] = (),
    *,
    current: str | None = None,
) -> str:
    """Ask the LLM for a short title.

    Without an LLM the offline :func:`fallback_title` is used. When the LLM fails or its
    reply is not a title (several lines, a preamble, JSON, cut off, only template markers;
    see :func:`title_from_reply`), the ``current`` title stays (or the offline one is used
    when there is none).
    """
    if llm is None:
        return fallback_title(summary, messages)
    prompt = render_prompt(TITLE_PROMPT, {"summary": summary.to_context_string()})
    try:
        response = await llm.complete(prompt_request(prompt, temperature=0.2, max_tokens=30))
    except Exception as exc:  # noqa: BLE001 - LLMError or a custom LLM's own error
        log.warning("title generation failed, keeping the current title: %r", exc)
        return current or fallback_title(summary, messages)
    title = None if response.finish_reason == "length" else title_from_reply(response.text)
    if title is None:
        log.warning("the title reply is not a title, keeping the current title: %r", response.text)
        return current or fallback_title(summary, messages)
    return _tidy(title)


def _tidy(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip().strip("*#").strip()
    text = re.sub(r"^title\s*:\s*", "", text, flags=re.IGNORECASE)
    text = text.strip("\"'“”‘’*").strip().rstrip(".!?;:,")
    if len(text) > MAX_TITLE_CHARS:
        text = text[: MAX_TITLE_CHARS - 1].rstrip() + "…"
    return (text[:1].upper() + text[1:]) if text else DEFAULT_TITLE
