"""The threads of a conversation, told in the speakers' own words.

Every candidate is one sentence a participant said, kept word for word with their name and
the day they said it: ``Caroline (8 May 2023): "I went to a LGBTQ support group yesterday."``.
Nothing is rewritten, so nothing can be garbled: no pronoun is swapped, no verb inflected,
no negation lost. What the summary decides is only which sentences tell the conversation:

* **salience**: the learned model of :mod:`longtalk.language.salience` (how much a sentence
  tells of what happened to its speaker, what they decided or still plan);
* **recurrence**: a sentence whose matter the same speaker comes back to (other sentences
  of theirs close to it in meaning) weighs more: the threads a person keeps returning to;
* **consolidation**: an extension re-selects from the lines already told and the new
  sentences together under one budget, and a new sentence that says again what a told
  line says does not enter twice.

The lines are shown grouped by participant (in the order they first spoke), each
participant's lines in the order they were said.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from longtalk.core.messages import Message, Role
from longtalk.embed.base import Embedder
from longtalk.language.salience import load_model
from longtalk.summary.chain import TOLD_LINE, join_told, told_pieces
from longtalk.summary.offline_text import (
    content_words,
    day_label,
    is_filler,
    split_sentences,
    words,
)

__all__ = [
    "Line",
    "NarrativeConfig",
    "candidates",
    "is_assistant",
    "parse_lines",
    "render",
    "select",
]

_AI = frozenset("assistant ai bot system tool".split())


@dataclass(frozen=True, slots=True)
class NarrativeConfig:
    """How long the told threads are and how sentences are chosen.

    An extension's budget (a first summary's too, with nothing told yet) is the lines
    already told plus ``ratio`` of the new sentences' words, at least ``min_words`` more,
    and at most ``max_words`` in all. A told line weighs ``story_prior`` more (log-odds)
    than a new sentence of the same salience: it was chosen once already. Each sentence of
    the same speaker within ``recurrence_cosine`` of it adds ``cohesion`` times the log of
    one plus their count. A sentence within ``duplicate_cosine`` of one already chosen is
    not told again. Sentences of fewer than ``min_sentence_words`` or more than
    ``max_sentence_words`` words, or of fewer than ``min_content_words`` words that carry
    meaning, are not quoted.
    """

    ratio: float = 0.3
    min_words: int = 40
    max_words: int = 400
    min_sentence_words: int = 4
    min_content_words: int = 3
    max_sentence_words: int = 45
    story_prior: float = 1.0
    cohesion: float = 0.5
    recurrence_cosine: float = 0.55
    duplicate_cosine: float = 0.85


@dataclass(frozen=True, slots=True)
class Line:
    """One told sentence: who said it, the day, their words; ``turn`` -1 for a told line."""

    speaker: str
    day: str
    quote: str
    turn: int = -1

    def render(self) -> str:
        """``Name (8 May 2023): "their words"``; without a day ``Name said: "their words"``.

        (``User: "…"`` would read as a turn of the conversation, not as a quote of it.)
        """
        when = f" ({self.day})" if self.day else " said"
        return f'{self.speaker}{when}: "{self.quote}"'


def parse_lines(narrative: str) -> list[Line]:
    """The quotes of a told narrative, one a line (a line not in the told form is a quote).

    A line telling several quotes of one speaker and day gives one :class:`Line` a quote.
    """
    lines = []
    for text in told_pieces(narrative):
        match = TOLD_LINE.match(text)
        if match:
            lines.append(Line(match["speaker"], match["day"] or "", match["quote"]))
        else:
            lines.append(Line("", "", text))
    return lines


def render(lines: Sequence[Line]) -> str:
    """The chosen lines, grouped by participant, each group in the order said.

    A speaker's quotes of one day share a line (see :func:`~longtalk.summary.chain.join_told`).
    """
    order: dict[str, int] = {}
    for line in lines:
        order.setdefault(line.speaker, len(order))
    ranked = sorted(range(len(lines)), key=lambda i: (order[lines[i].speaker], i))
    return join_told([lines[i].render() if lines[i].speaker else lines[i].quote for i in ranked])


def speaker_label(message: Message) -> str:
    """The name a line gives the speaker (``User`` for an unnamed user)."""
    return message.speaker()


def is_assistant(message: Message) -> bool:
    """An unnamed AI assistant, as opposed to a named participant."""
    if message.name:
        return message.name.casefold() in _AI
    return message.role != Role.USER


def candidates(messages: Sequence[Message], config: NarrativeConfig) -> list[Line]:
    """Every sentence the participants said that could be quoted, in order.

    An AI assistant's sentences count only when nobody else said anything quotable: its
    answers can be asked again, what a person said of themselves cannot.
    """
    spoken = [m for m in messages if not m.is_tool and m.role != Role.SYSTEM and m.content]
    people: list[Line] = []
    assistant: list[Line] = []
    for turn, message in enumerate(spoken):
        for text in split_sentences(message.content):
            size = len(words(text))
            if (
                is_filler(text)
                or len(content_words(text)) < config.min_content_words
                or not config.min_sentence_words <= size <= config.max_sentence_words
            ):
                continue
            line = Line(speaker_label(message), day_label(message.timestamp), _quotable(text), turn)
            (assistant if is_assistant(message) else people).append(line)
    return people or assistant


def _quotable(text: str) -> str:
    """The sentence as it can stand inside double quotes on one line."""
    return " ".join(text.replace('"', "'").split())


def select(
    told: Sequence[Line],
    fresh: Sequence[Line],
    embedder: Embedder,
    config: NarrativeConfig,
) -> list[Line]:
    """The lines that tell the threads within the budget: told lines and new sentences."""
    pool = [*told, *fresh]
    if not pool:
        return []
    fresh_words = sum(len(words(line.quote)) for line in fresh)
    told_words = sum(len(words(line.quote)) for line in told)
    budget = min(
        config.max_words, round(told_words + max(config.min_words, config.ratio * fresh_words))
    )
    texts = [line.quote for line in pool]
    vectors = embedder.embed(texts)
    scores = load_model().scores(texts, vectors, embedder)
    scores = scores + np.array([config.story_prior if line.turn < 0 else 0.0 for line in pool])
    scores = scores + config.cohesion * np.log1p(_recurrence(pool, vectors, config))
    chosen = _greedy(pool, vectors, scores, budget, config)
    return [pool[i] for i in sorted(chosen)]


def _recurrence(
    pool: Sequence[Line], vectors: npt.NDArray[np.float32], config: NarrativeConfig
) -> npt.NDArray[np.float64]:
    """Per line, how many other sentences of the same speaker come back to its matter."""
    similar = np.asarray(vectors @ vectors.T) >= config.recurrence_cosine
    same = np.array([[a.speaker == b.speaker for b in pool] for a in pool])
    np.fill_diagonal(similar, False)
    return np.asarray((similar & same).sum(axis=1), dtype=np.float64)


def _greedy(
    pool: Sequence[Line],
    vectors: npt.NDArray[np.float32],
    scores: npt.NDArray[np.float64],
    budget: int,
    config: NarrativeConfig,
) -> list[int]:
    """Best first until the word budget is spent, near-duplicates of a chosen line skipped."""
    chosen: list[int] = []
    used = 0
    for index in np.argsort(-scores, kind="stable"):
        size = len(words(pool[index].quote))
        if chosen and used + size > budget:
            continue
        if chosen and float(np.max(vectors[chosen] @ vectors[index])) >= config.duplicate_cosine:
            continue
        chosen.append(int(index))
        used += size
        if used >= budget:
            break
    return chosen
