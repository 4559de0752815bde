"""LLM truncation: a model writes a short version of a long message.

The filter pipeline is synchronous, so :class:`LLMShortener` answers ``shorten`` from what
``prepare`` (awaited before the pipeline runs) asked the model; anything not prepared, or
any failure, falls back to ``middle``. Answers are remembered (the last ``cache_size``), so
a long message that stays in the verbatim window is shortened once, not on every turn.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import OrderedDict
from collections.abc import Iterable

from longtalk.core.cleaning import clean_output
from longtalk.core.truncation import truncate_hard, truncate_middle
from longtalk.errors import LLMError
from longtalk.llm.base import LLM, prompt_request

log = logging.getLogger(__name__)

LLM_TRUNCATION_SYSTEM_PROMPT = (
    "You shorten messages for a conversation history. Keep every fact, name, number, "
    "decision and question; drop filler. Answer with the shortened message only."
)


def llm_truncation_prompt(content: str, max_chars: int) -> str:
    """The user prompt that asks for a version of ``content`` within ``max_chars``."""
    return (
        f"Shorten the message below to at most {max_chars} characters. "
        "Keep its meaning, facts and numbers.\n\nMessage:\n" + content
    )


async def shorten_with_llm(llm: LLM | None, content: str, max_chars: int) -> str:
    """The model's short version of ``content`` (cut to ``max_chars``), or ``middle``."""
    if max_chars < 0:
        raise ValueError(f"max_chars must be zero or positive, got {max_chars}")
    if len(content) <= max_chars:
        return content
    answer = await _ask(llm, content, max_chars) if llm is not None else ""
    return truncate_hard(answer, max_chars) if answer else truncate_middle(content, max_chars)


class LLMShortener:
    """The ``llm`` strategy's shortener: ``prepare`` asks the model, ``shorten`` answers."""

    def __init__(self, llm: LLM, *, concurrency: int = 4, cache_size: int = 256) -> None:
        self.llm = llm
        self.concurrency = concurrency
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple[str, int], str] = OrderedDict()

    async def prepare(self, contents: Iterable[str], max_chars: int) -> None:
        """Ask the model for every content over ``max_chars`` not answered yet."""
        wanted = {c for c in contents if len(c) > max_chars and (c, max_chars) not in self._cache}
        gate = asyncio.Semaphore(max(1, self.concurrency))

        async def one(content: str) -> None:
            async with gate:
                answer = await _ask(self.llm, content, max_chars)
            if answer:
                self._remember((content, max_chars), truncate_hard(answer, max_chars))

        await asyncio.gather(*(one(content) for content in sorted(wanted)))

    def shorten(self, content: str, max_chars: int, query: str | None) -> str:
        """The prepared answer, or ``middle`` when there is none."""
        key = (content, max_chars)
        cached = self._cache.get(key)
        if cached is None:
            return truncate_middle(content, max_chars)
        self._cache.move_to_end(key)
        return cached

    def _remember(self, key: tuple[str, int], value: str) -> None:
        if self.cache_size <= 0:
            return
        self._cache[key] = value
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)


async def _ask(llm: LLM, content: str, max_chars: int) -> str:
    """The cleaned answer, or ``""`` on a failure of the model (the caller falls back)."""
    request = prompt_request(
        llm_truncation_prompt(content, max_chars),
        system=LLM_TRUNCATION_SYSTEM_PROMPT,
        temperature=0.0,
        max_tokens=max(16, math.ceil(max_chars / 2)),
    )
    try:
        response = await llm.complete(request)
    except LLMError as exc:
        log.warning("llm truncation failed, using middle truncation: %r", exc)
        return ""
    except Exception as exc:  # noqa: BLE001 - a custom LLM's own error degrades the same way
        log.warning("llm truncation failed (%s), using middle truncation", type(exc).__name__)
        return ""
    return clean_output(response.text or "")
