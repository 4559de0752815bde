"""The offline summarizer: a real summary with no network and no LLM (the embedded default).

The narrative is extractive-compressive: the conversation is cut into sentences, filler is
dropped, each sentence is scored by embedding centrality (cosine to the length-weighted
centroid of the conversation) with mild length and position priors, and sentences are picked
by maximal marginal relevance under a word budget, then told as reported speech
(``Alice: I moved to Lyon`` becomes ``Alice moved to Lyon``, ``Do you cook?`` becomes
``Alice asks whether Bob cooks``; :mod:`longtalk.summary.offline_speech`; a speaker's
next sentence and the reply to a question join it), with speakers
labelled only ``Speaker 2`` named as the others call them. Topics, entities, decisions, open
questions and preferences come from :mod:`longtalk.summary.offline_facts`; items from dated
messages carry their day, e.g. ``(8 May 2023)``.

Extending a summary re-selects from the old narrative's sentences plus the new ones under
the same budget, so the narrative stays bounded however long the chat gets, while the lists
and entities are merged with :meth:`ConversationSummary.merge` and keep what was there.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import cast

import numpy as np
import numpy.typing as npt

from longtalk.core.messages import Message, Role
from longtalk.core.relative_dates import event_day
from longtalk.embed.base import Embedder
from longtalk.embed.priority import SUMMARIES, in_background
from longtalk.summary import offline_facts
from longtalk.summary.consolidate import capped_details
from longtalk.summary.model import LIST_FIELDS, ConversationSummary
from longtalk.summary.offline_callnames import called_names
from longtalk.summary.offline_details import is_ai_assistant
from longtalk.summary.offline_facts import merge_first_names
from longtalk.summary.offline_questions import answered
from longtalk.summary.offline_speech import reported
from longtalk.summary.offline_text import (
    Sentence,
    content_words,
    dated,
    is_acknowledgement,
    is_filler,
    split_sentences,
    words,
)
from longtalk.summary.writer import SummaryDraft

__all__ = ["NarrativeConfig", "OfflineSummarizer", "OfflineSummaryWriter", "select_sentences"]


@dataclass(frozen=True, slots=True)
class NarrativeConfig:
    """How long the narrative is and how sentences are chosen.

    A first summary's budget is ``ratio`` of the input's words; an extension's is the old
    narrative plus ``ratio`` of the new words; both are clamped to ``[min_words,
    max_words]``, so the narrative grows with the chat up to ``max_words`` and is then
    re-selected (the old narrative's sentences, chosen once already, weigh ``story_prior``
    times a new opening's). A sentence about the speaker or the listener (``I``, ``you``,
    ``let's``; the old narrative counts as one) weighs ``personal_prior`` times another:
    the narrative is what the participants said of themselves and each other.
    ``diversity`` is MMR's weight on novelty (0 = centrality only); the length and position
    priors favour informative sentences and conversation openings, and a first summary's
    first sentence, which usually says what the conversation is for, weighs
    ``opening_prior`` times more. A sentence whose content words come up again elsewhere in
    the conversation weighs up to ``1 + cohesion`` times one whose words are said once:
    what the participants keep talking about is what the conversation is about. Beyond
    ``max_candidates`` sentences only the richest are embedded.
    """

    ratio: float = 0.2
    min_words: int = 12
    max_words: int = 160
    diversity: float = 0.2
    length_prior: float = 1.0
    position_prior: float = 0.8
    max_sentence_words: int = 60
    max_candidates: int = 400
    story_prior: float = 1.25
    personal_prior: float = 1.3
    opening_prior: float = 1.2
    cohesion: float = 0.5


def default_embedder() -> Embedder:
    """The bundled MiniLM embedder."""
    from longtalk.embed.minilm import MiniLMEmbedder

    return cast(Embedder, MiniLMEmbedder())


def conversation_sentences(messages: Sequence[Message]) -> list[Sentence]:
    """The sentences of the text messages, each with its speaker and addressee."""
    spoken = [m for m in messages if not m.is_tool and m.role != Role.SYSTEM and m.content]
    speakers = [m.speaker() for m in spoken]
    sentences: list[Sentence] = []
    for turn, message in enumerate(spoken):
        me = speakers[turn]
        you = _addressee(speakers, turn)
        previous = spoken[turn - 1].content if turn else ""
        for text in split_sentences(message.content):
            echo = is_ai_assistant(me) and is_acknowledgement(text, previous)
            when = event_day(text, message.timestamp)
            sentences.append(Sentence(text, me, you, turn, when, echo))
    return sentences


def _addressee(speakers: Sequence[str], turn: int) -> str:
    me = speakers[turn]
    for other in (*reversed(speakers[:turn]), *speakers[turn + 1 :]):
        if other != me:
            return other
    return ""


def select_sentences(
    sentences: Sequence[Sentence],
    embedder: Embedder,
    config: NarrativeConfig = NarrativeConfig(),  # noqa: B008 - frozen value
    *,
    budget: int | None = None,
) -> list[Sentence]:
    """The most central, non-redundant sentences within the word budget, in original order."""
    candidates = _participants_first([s for s in sentences if not _filler(s)])
    if not candidates:
        candidates = [s for s in sentences if content_words(s.text)]
    if not candidates:
        return []
    if len(candidates) > config.max_candidates:
        richest = sorted(
            range(len(candidates)), key=lambda i: (-len(content_words(candidates[i].text)), i)
        )
        candidates = [candidates[i] for i in sorted(richest[: config.max_candidates])]
    total = sum(len(words(s.text)) for s in sentences)
    if budget is None:
        budget = round(config.ratio * total)
    budget = max(config.min_words, min(config.max_words, budget))
    vectors = embedder.embed([s.text for s in candidates])
    scores = _relevance(candidates, vectors, config)
    chosen = _mmr(candidates, vectors, scores, budget, config)
    return [candidates[i] for i in sorted(chosen)]


def _filler(sentence: Sentence) -> bool:
    return sentence.echo or is_filler(sentence.text)


def _participants_first(candidates: list[Sentence]) -> list[Sentence]:
    """What the participants said; the AI assistant's answers only when they said nothing.

    The narrative is what the people said, asked and decided: an assistant's answers can
    be asked again, the user's facts and choices cannot.
    """
    said = [s for s in candidates if not is_ai_assistant(s.speaker)]
    return said if said else candidates


def _relevance(
    candidates: Sequence[Sentence], vectors: npt.NDArray[np.float32], config: NarrativeConfig
) -> npt.NDArray[np.float64]:
    lengths = np.array([len(content_words(s.text)) for s in candidates], dtype=np.float64)
    weights = np.sqrt(np.maximum(lengths, 1.0))
    centroid = (vectors * weights[:, None]).sum(axis=0)
    centroid /= max(float(np.linalg.norm(centroid)), 1e-12)
    centrality = vectors @ centroid
    length_factor = 1.0 - np.exp(-lengths / config.length_prior)
    too_long = np.array([len(words(s.text)) > config.max_sentence_words for s in candidates])
    position = _position_prior(
        candidates, config.position_prior, config.story_prior, config.opening_prior
    )
    personal = np.array([s.turn < 0 or _PERSONAL.match(s.text) is not None for s in candidates])
    weight = position * np.where(too_long, 0.5, 1.0) * np.where(personal, config.personal_prior, 1)
    weight *= 1.0 + config.cohesion * _recurrence(candidates)
    return np.asarray(centrality * length_factor * weight)


_RECURRENCE_CAP = 2
"""Mentions elsewhere beyond this many add nothing (a word said everywhere is no topic)."""


def _recurrence(candidates: Sequence[Sentence]) -> npt.NDArray[np.float64]:
    """Per sentence, how often its content words recur in the others, from 0 to 1.

    The mean over its content words (compared by their first five letters, so ``train``
    and ``trains`` count as one) of the other sentences that use them, capped at
    ``_RECURRENCE_CAP`` and divided by it.
    """
    stems = [{w[:5] for w in content_words(s.text)} for s in candidates]
    used = Counter(stem for group in stems for stem in group)
    return np.array(
        [
            sum(min(used[stem] - 1, _RECURRENCE_CAP) for stem in group)
            / (_RECURRENCE_CAP * len(group))
            if group
            else 0.0
            for group in stems
        ],
        dtype=np.float64,
    )


_PERSONAL = re.compile(
    r"^(?:\W*(?:well|oh|yes|no|so|and|but)\W+)*(?:I|I'm|I've|I'll|I'd|my|you|you're|your|we"
    r"|let's|(?:do|did|are|have|can|could|would|will) you)\b",
    re.IGNORECASE,
)
"""A sentence whose subject is the speaker or the listener (after an interjection)."""


def _position_prior(
    candidates: Sequence[Sentence], strength: float, story: float = 1.0, opening: float = 1.0
) -> npt.NDArray[np.float64]:
    """Earlier new sentences weigh more (openings set the topic); old narrative gets ``story``.

    The conversation's first sentence weighs ``opening`` times more again; an extension's
    first new sentence does not (the conversation opened in the old narrative).
    """
    fresh = [i for i, s in enumerate(candidates) if s.turn >= 0]
    prior = np.full(len(candidates), story)
    for rank, index in enumerate(fresh):
        prior[index] = 1.0 - strength * rank / max(len(fresh) - 1, 1)
    if fresh and len(fresh) == len(candidates):
        prior[fresh[0]] *= opening
    return prior


def _mmr(
    candidates: Sequence[Sentence],
    vectors: npt.NDArray[np.float32],
    scores: npt.NDArray[np.float64],
    budget: int,
    config: NarrativeConfig,
) -> list[int]:
    """Greedy maximal marginal relevance until the word budget is spent."""
    lengths = [len(words(s.text)) for s in candidates]
    redundancy = np.zeros(len(candidates))
    open_ = np.ones(len(candidates), dtype=bool)
    chosen: list[int] = []
    used = 0
    while open_.any() and used < budget:
        value = (1 - config.diversity) * scores - config.diversity * redundancy
        best = int(np.argmax(np.where(open_, value, -np.inf)))
        open_[best] = False
        if chosen and used + lengths[best] > budget * 1.15:
            continue
        chosen.append(best)
        used += lengths[best]
        redundancy = np.maximum(redundancy, vectors @ vectors[best])
    return chosen


def narrative_text(sentences: Sequence[Sentence], names: Mapping[str, str] | None = None) -> str:
    """The chosen sentences told in the third person, as one paragraph.

    Each day's first sentence carries the day (``(8 May 2023)``); the sentences after it on
    the same day do not repeat it. ``names`` gives placeholder speakers their real names
    (:func:`~longtalk.summary.offline_callnames.called_names`).
    """
    names = names or {}
    parts: list[str] = []
    day = ""
    previous: Sentence | None = None
    for sentence in sentences:
        named = replace(
            sentence,
            speaker=names.get(sentence.speaker, sentence.speaker),
            addressee=names.get(sentence.addressee, sentence.addressee),
        )
        text = reported(named).strip()
        if text and text[-1] not in ".!?":
            text += "."
        if previous and _continues(previous, named, parts[-1], text):
            parts[-1] = f"{parts[-1][:-1]} and {text[len(named.speaker) + 1 :]}"
            previous = None
            continue
        if previous and _answers(previous, named, parts[-1], text):
            parts[-1] = f"{parts[-1][:-1]}, and {text}"
            previous = None
            continue
        parts.append(dated(text, sentence.when) if sentence.when != day else text)
        day = sentence.when or day
        previous = named
    return " ".join(parts)


def _continues(previous: Sentence, sentence: Sentence, told: str, text: str) -> bool:
    """Whether ``text`` joins ``told`` as one sentence: same speaker and day, both short.

    ``Ann moved to Lyon and asks whether Bob cooks`` reads as one account. After a reported
    clause (``asks whether…``) only another reporting verb may follow, or the added words
    would read as part of what was asked; a sentence already joined stays alone.
    """
    subject = f"{sentence.speaker} "
    if not (
        sentence.speaker
        and previous.speaker == sentence.speaker
        and told.startswith(subject)
        and text.startswith(subject)
        and _joinable(previous, sentence, told, text)
    ):
        return False
    return _REPORTING.match(told, len(subject)) is None or (
        _REPORTING.match(text, len(subject)) is not None
    )


def _answers(previous: Sentence, sentence: Sentence, told: str, text: str) -> bool:
    """Whether ``text`` is the reply to the question ``told``, told in the same sentence.

    ``Ann asks Bob whether he cooks, and Bob says he never does``: the exchange reads as one.
    """
    return (
        bool(sentence.speaker)
        and sentence.speaker == previous.addressee != previous.speaker
        and sentence.turn == previous.turn + 1
        and told.startswith(f"{previous.speaker} asks ")
        and _joinable(previous, sentence, told, text)
    )


def _joinable(previous: Sentence, sentence: Sentence, told: str, text: str) -> bool:
    """Two whole sentences of one day, short together, the first not joined already."""
    return (
        sentence.when == previous.when
        and told.endswith(".")
        and text.endswith(".")
        and not _CLAUSE_JOINT.search(told)
        and len(words(told)) + len(words(text)) <= _MAX_JOINED_WORDS
    )


_MAX_JOINED_WORDS = 40
_CLAUSE_JOINT = re.compile(r" and |[,;:]| [–—-] ")
"""A sentence already joined (``and``, a comma, a dash) takes no further clause."""
_REPORTING = re.compile(r"(?:asks|says|tells|suggests|offers|thanks)\b")


class OfflineSummaryWriter:
    """A :class:`~longtalk.summary.writer.SummaryWriter` with no network and no LLM.

    Args:
        embedder: Any :class:`~longtalk.embed.base.Embedder`; the bundled MiniLM by default.
        config: Narrative length and selection settings.

    Deterministic: the same input gives the same summary. Usage is always zero tokens.
    """

    def __init__(
        self, embedder: Embedder | None = None, config: NarrativeConfig | None = None
    ) -> None:
        self._embedder = embedder
        self.config = config or NarrativeConfig()

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
        fresh = conversation_sentences(new_messages)
        old = (
            [Sentence(t, turn=-1) for t in split_sentences(existing.narrative)] if existing else []
        )
        narrative = self._narrative(old, fresh)
        turns = sum(1 for m in new_messages if m.role == Role.USER) or int(bool(new_messages))
        if not structured:
            base = ConversationSummary(covered_turns=existing.covered_turns if existing else 0)
            return base.merge(ConversationSummary(narrative=narrative, covered_turns=turns))
        facts = offline_facts.extract(new_messages, fresh, existing)
        update = facts.model_copy(update={"narrative": narrative, "covered_turns": turns})
        return bounded(merge_update(existing or ConversationSummary(), update, fresh))

    def _narrative(self, old: list[Sentence], fresh: list[Sentence]) -> str:
        if not fresh:
            return " ".join(s.text for s in old)
        old_words = sum(len(words(s.text)) for s in old)
        budget = old_words + round(self.config.ratio * sum(len(words(s.text)) for s in fresh))
        chosen = select_sentences([*old, *fresh], self.embedder, self.config, budget=budget)
        return narrative_text(chosen, called_names(fresh))


def merge_update(
    existing: ConversationSummary, update: ConversationSummary, fresh: Sequence[Sentence]
) -> ConversationSummary:
    """Merge ``update`` into ``existing``; drop old questions the new sentences answer.

    A name first typed ``thing`` (or ``other``) takes the specific type it gets later; a
    first name joins the one full name it starts (``Ana``, ``Ana Lima``).
    """
    people = [e.name for e in (*existing.entities, *update.entities) if e.type == "person"]
    closed = answered(existing.open_questions, fresh, people)
    merged = existing.merge(update)
    newer = {e.name.casefold(): e.type for e in update.entities}
    entities = tuple(
        e.model_copy(update={"type": newer.get(e.name.casefold(), e.type)})
        if e.type in ("thing", "other")
        else e
        for e in merge_first_names(merged.entities)
    )
    questions = tuple(q for q in merged.open_questions if q not in closed)
    return merged.model_copy(update={"entities": entities, "open_questions": questions})


MAX_SUMMARY_ITEMS = 20
MAX_SUMMARY_ENTITIES = 30


def bounded(summary: ConversationSummary) -> ConversationSummary:
    """Keep a merged summary's size bounded across extensions.

    Lists keep their newest ``MAX_SUMMARY_ITEMS``; entities the first
    ``MAX_SUMMARY_ENTITIES`` (participants and the earliest, most established ones), each
    with its details capped (:func:`~longtalk.summary.consolidate.capped_details`).
    """
    lists = {name: getattr(summary, name)[-MAX_SUMMARY_ITEMS:] for name in LIST_FIELDS}
    entities = tuple(capped_details(e) for e in summary.entities[:MAX_SUMMARY_ENTITIES])
    return summary.model_copy(update={**lists, "entities": entities})


class OfflineSummarizer:
    """Orbiter's ``Summarizer`` protocol (``async summarize(prompt) -> str``) offline.

    The prompt's text (after any instruction line ending in a colon) is read as a
    transcript of ``Speaker: text`` lines and summarized to a narrative.
    """

    def __init__(self, writer: OfflineSummaryWriter | None = None) -> None:
        self._writer = writer or OfflineSummaryWriter()

    async def summarize(self, prompt: str) -> str:
        """A narrative summary of the transcript in ``prompt``."""
        messages = offline_facts.parse_transcript(prompt)
        return self._writer.summarize(None, messages, structured=False).narrative
