"""The offline :class:`~longtalk.summary.writer.SummaryWriter` and Orbiter's summarizer."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import cast

from longtalk.core.messages import Message, Role
from longtalk.embed.base import Embedder
from longtalk.embed.priority import SUMMARIES, in_background
from longtalk.language.salience import load_model
from longtalk.summary.model import ConversationSummary, SummaryEntity
from longtalk.summary.offline.threads import (
    NarrativeConfig,
    candidates,
    is_assistant,
    parse_lines,
    render,
    select,
)
from longtalk.summary.offline.transcript import parse_transcript
from longtalk.summary.writer import SummaryDraft

__all__ = ["OfflineSummarizer", "OfflineSummaryWriter", "default_embedder"]

SALIENCE_MEMO = 4096
"""Told lines whose salience a writer remembers."""


def default_embedder() -> Embedder:
    """The bundled MiniLM embedder."""
    from longtalk.embed.minilm import MiniLMEmbedder

    return cast(Embedder, MiniLMEmbedder())


class OfflineSummaryWriter:
    """A :class:`~longtalk.summary.writer.SummaryWriter` with no network and no LLM.

    Args:
        embedder: Any :class:`~longtalk.embed.base.Embedder`; the bundled MiniLM by default.
        config: How long the told threads are and how sentences are chosen.

    Deterministic: the same input gives the same summary. Usage is always zero tokens.
    """

    def __init__(
        self, embedder: Embedder | None = None, config: NarrativeConfig | None = None
    ) -> None:
        self._embedder = embedder
        self.config = config or NarrativeConfig()
        self._salience: dict[str, float] = {}

    def salience(self, lines: Sequence[str]) -> list[float]:
        """Each told line's salience: the learned model's log-odds of its quote.

        A line telling several quotes is as salient as its most salient quote. A line is
        scored once: the shown summary is cut again as the chain grows, and its lines stay
        the same; a bounded memo keeps the newest scores.
        """
        missing = [line for line in dict.fromkeys(lines) if line not in self._salience]
        if missing:
            quotes = [[told.quote for told in parse_lines(line)] or [line] for line in missing]
            flat = [quote for each in quotes for quote in each]
            scores = iter(float(x) for x in load_model().scores(flat, None, self.embedder))
            for line, each in zip(missing, quotes, strict=True):
                self._salience[line] = max(next(scores) for _ in each)
            while len(self._salience) > SALIENCE_MEMO:
                self._salience.pop(next(iter(self._salience)))
        return [self._salience.get(line, 0.0) for line in lines]

    @property
    def embedder(self) -> Embedder:
        """The embedder, loaded on first use."""
        if self._embedder is None:
            self._embedder = default_embedder()
        return self._embedder

    async def extend(
        self,
        existing: ConversationSummary | None,
        new_messages: Sequence[Message],
        *,
        structured: bool,
    ) -> SummaryDraft:
        """The summary covering ``existing`` and ``new_messages``.

        The numpy work runs in a niced worker thread (background priority, like indexing),
        so the event loop and the request path stay first.
        """
        summary = await in_background(
            partial(self.summarize, existing, new_messages, structured=structured),
            pool=SUMMARIES,
        )
        return SummaryDraft(summary)

    def summarize(
        self,
        existing: ConversationSummary | None,
        new_messages: Sequence[Message],
        *,
        structured: bool = True,
    ) -> ConversationSummary:
        """Synchronous core of :meth:`extend`."""
        told = parse_lines(existing.narrative) if existing else []
        fresh = candidates(new_messages, self.config)
        if fresh:
            narrative = render(select(told, fresh, self.embedder, self.config))
        else:
            narrative = existing.narrative if existing else ""
        turns = sum(1 for m in new_messages if m.role == Role.USER) or int(bool(new_messages))
        update = ConversationSummary(
            narrative=narrative,
            covered_turns=turns,
            entities=participants(new_messages) if structured else (),
        )
        return (existing or ConversationSummary()).merge(update)


def participants(messages: Sequence[Message]) -> tuple[SummaryEntity, ...]:
    """The named people who spoke, in the order they first did."""
    names = dict.fromkeys(
        m.name for m in messages if m.name and not is_assistant(m) and not m.is_tool
    )
    return tuple(SummaryEntity(name=name, type="person") for name in names)


class OfflineSummarizer:
    """Orbiter's ``Summarizer`` protocol (``async summarize(prompt) -> str``) offline.

    The prompt's text (after any instruction line ending in a colon) is read as a
    transcript of ``Speaker: text`` lines and summarized to a narrative.
    """

    def __init__(self, writer: OfflineSummaryWriter | None = None) -> None:
        self._writer = writer or OfflineSummaryWriter()

    async def summarize(self, prompt: str) -> str:
        """A narrative summary of the transcript in ``prompt``."""
        messages = parse_transcript(prompt)
        return self._writer.summarize(None, messages, structured=False).narrative
