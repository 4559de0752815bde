"""The context's durable-facts part: within its share, the facts the question needs kept.

The chat's facts (merged and resolved, :func:`longtalk.facts.keeper.stored_facts`) that the
recent window does not already show word for word are rendered within
``min(facts_max_tokens, facts_share * budget)`` (without a question, nothing is recalled and
the whole ``facts_share * budget``). When they all fit, that is the part. When
they do not, the facts furthest in meaning from the question are left out first (and
counted), durability breaking near ties; without a question (or an embedder), the least
durable first. The embedder compares the question with each fact; facts' vectors are cached
by text, so a chat's facts are embedded once.

The comparison reads the facts with their holders' names put as "they": a short sentence's
embedding is dominated by a name it shares with the question ("In which city is Maya's
sibling based?" sat closer to "Maya is Catholic." than to "Maya's sister moved to
Rotterdam."), so every fact of the person asked about looked alike. Whom the question names
still counts, as a bonus for that person's facts, and half of it for a fact that names them
though another holds it ("Maya's partner Tom is allergic to peanuts" for a question on Maya)
or that they told of another ("Tom is allergic to peanuts", said by Maya: someone in her life).
A question that names someone only as the owner of a relation asks about that relation
(:mod:`longtalk.language.questions`): for "Maya's partner", what Maya told of others counts
as much as her own facts; for "Maya's friend Sam", Sam is the one asked about, and Maya's own
facts count as facts that name him.
The bonuses come from LoCoMo's questions whose evidence turns gave a fact: a logistic fit
on each half of the conversations, checked on the other, weighed naming the holder at 0.2
to 0.3 of the cosine; a small grid over both halves chose these (``bench/fact_order.py``).
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from longtalk.config import MemoryConfig
from longtalk.core.context import ContextPart
from longtalk.core.messages import Role
from longtalk.core.tokens import TokenCounter
from longtalk.embed.semantic_shortener import TextEmbedder
from longtalk.facts.durable_fact import DurableFact
from longtalk.facts.keeper import stored_facts
from longtalk.facts.render import RenderedFacts, render_facts
from longtalk.language.questions import relations_asked
from longtalk.storage.base import ChatState

log = logging.getLogger(__name__)
DURABILITY_WEIGHT = 0.02
"""What a step of durability (0 to 5) weighs against the question's cosine."""
HOLDER_WEIGHT = 0.2
"""What naming a fact's holder in the question adds to that fact's cosine."""
MENTION_WEIGHT = 0.1
"""What naming someone a fact names, not its holder, adds: their relation's fact."""
VECTOR_CACHE = 4096
"""Fact vectors kept in memory (by text)."""


@dataclass(frozen=True, slots=True)
class FactsDraft:
    """The part's facts and cap, and how they render without a question to rank them by."""

    facts: tuple[DurableFact, ...]
    cap: int
    plain: RenderedFacts | None

    @property
    def needs_question(self) -> bool:
        """True when some facts, not all, fit: the question decides which stay."""
        return self.plain is not None and bool(self.plain.text and self.plain.left_out)

    @property
    def reserve(self) -> int:
        """The most tokens the part can take (with its separator).

        0 without facts, and when not even one fits its share: the room is the others'.
        """
        if self.plain is None or not self.plain.text:
            return 0
        return self.cap + 1 if self.needs_question else _cost(self.plain)


class DurablePart:
    """Builds the durable-facts part of a context (see the module docstring)."""

    def __init__(
        self, config: MemoryConfig, counter: TokenCounter, embedder: TextEmbedder | None
    ) -> None:
        self.config = config
        self.counter = counter
        self.embedder = embedder
        self._vectors: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()

    def draft(
        self, state: ChatState, budget: int, window: set[int], *, asked: bool = True
    ) -> FactsDraft:
        """The facts the part may show, its cap, and their rendering by durability alone.

        Asked a question, the part keeps to ``facts_max_tokens``: recall needs the room.
        Without one nothing is recalled, and the facts may take their whole share.
        """
        facts = tuple(
            fact
            for fact in stored_facts(state.facts)
            if not (fact.sequences and window.issuperset(fact.sequences))
        )
        share = math.floor(budget * self.config.facts_share)
        cap = min(self.config.facts_max_tokens, share) if asked else share
        plain = render_facts(facts, cap, self.counter) if facts else None
        return FactsDraft(facts, cap, plain)

    async def part(self, draft: FactsDraft, query: str | None) -> tuple[ContextPart | None, int]:
        """The part and how many facts it leaves out (see the module docstring)."""
        rendered = draft.plain
        if rendered is not None and draft.needs_question and query and self.embedder is not None:
            try:
                order = await self.least_needed_first(query, draft.facts)
            except Exception as exc:  # noqa: BLE001 - any embedder's failure: durability alone
                log.warning("ranking durable facts for the question failed: %r", exc)
            else:
                rendered = render_facts(draft.facts, draft.cap, self.counter, order=order)
        if rendered is None:
            return None, 0
        if not rendered.text:
            return None, len(rendered.left_out)
        part = ContextPart("facts", rendered.text, rendered.tokens, sequences=rendered.sequences)
        return part, len(rendered.left_out)

    async def least_needed_first(
        self, query: str, facts: Sequence[DurableFact]
    ) -> list[DurableFact]:
        """The facts in the order to leave them out: furthest from ``query`` first.

        Closeness in meaning decides, durability a little: a constraint edges out a taste
        that is about as close.
        """
        names = names_pattern(
            {name for fact in facts for name in (fact.holder, fact.said_by) if name}
        )
        texts = [without_names(fact.text, names) for fact in facts]
        scores = await asyncio.to_thread(self._scores, without_names(query, names), texts)
        asked = await asyncio.to_thread(asked_about, query, names)
        need = [
            float(score) + DURABILITY_WEIGHT * fact.durability + asked.weight(fact, names)
            for score, fact in zip(scores, facts, strict=True)
        ]
        return [facts[index] for index in np.argsort(need, kind="stable")]

    def _scores(self, query: str, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Cosine of each text to ``query`` (texts embedded once, then cached)."""
        assert self.embedder is not None
        missing = [text for text in dict.fromkeys(texts) if text not in self._vectors]
        vectors = np.asarray(self.embedder.embed([query, *missing]), dtype=np.float32)
        for text, vector in zip(missing, vectors[1:], strict=True):
            self._vectors[text] = vector
            if len(self._vectors) > VECTOR_CACHE:
                self._vectors.popitem(last=False)
        for text in texts:
            self._vectors.move_to_end(text)
        matrix = np.stack([self._vectors[text] for text in texts])
        scores: npt.NDArray[np.float32] = matrix @ vectors[0]
        return scores


@dataclass(frozen=True, slots=True)
class Asked:
    """Whom a question asks about, by the names its facts give (see the module docstring).

    ``people``: named and asked about. ``circles``: named as the owner of a relation the
    question does not name ("Maya's partner"): what they told of others is asked about as
    much as their own facts. ``pointers``: named only to point at a relation the question
    names ("Maya's friend Sam"): their own facts count as facts that name the person asked.
    """

    people: frozenset[str]
    circles: frozenset[str]
    pointers: frozenset[str]

    def weight(self, fact: DurableFact, names: re.Pattern[str]) -> float:
        """The bonus of ``fact`` for this question."""
        holder = _key(fact.holder)
        told_by = _key(fact.said_by) if fact.hearsay else ""
        if holder in self.people or told_by in self.circles:
            return HOLDER_WEIGHT
        named = {_key(m.group("name")) for m in names.finditer(fact.text)}
        mentioned = named & (self.people | self.pointers) or told_by in self.people
        return MENTION_WEIGHT if mentioned or holder in self.pointers else 0.0


def asked_about(query: str, names: re.Pattern[str]) -> Asked:
    """Whom ``query`` asks about among the people ``names`` knows."""
    found = list(names.finditer(query))
    people = {_key(m.group("name")) for m in found}
    circles: set[str] = set()
    pointers: set[str] = set()
    owning = any(m.group("owner") for m in found)  # no "Maya's": nothing to parse for
    for relation in relations_asked(query) if owning else ():
        owner = _key(relation.owner)
        if owner not in people:
            continue
        if _key(relation.name) in people:
            pointers.add(owner)
        else:
            circles.add(owner)
    return Asked(frozenset(people - pointers), frozenset(circles), frozenset(pointers))


def _key(name: str) -> str:
    """A name as it is compared: case folded, the unnamed user's article dropped."""
    return name.casefold().removeprefix("the ").strip()


def names_pattern(names: set[str]) -> re.Pattern[str]:
    """Any of ``names`` as a whole word (group ``name``, the longest first), with its ``'s``.

    The unnamed user's facts say "the user": the article goes with the word, so "The user
    is Maya." reads "they is Maya.", not "The they is Maya.". Without names, a pattern that
    matches nothing.
    """
    if not names:
        return re.compile(r"(?!)(?P<name>)(?P<owner>)")
    alternatives = "|".join(
        _UNNAMED_USER if name.casefold() == Role.USER.value else re.escape(name)
        for name in sorted(names, key=len, reverse=True)
    )
    return re.compile(rf"\b(?P<name>{alternatives})\b(?P<owner>'s|’s)?", re.IGNORECASE)


_UNNAMED_USER = rf"(?:the\s+)?{Role.USER.value}"
"""The unnamed user as their facts name them, with the article."""


def without_names(text: str, names: re.Pattern[str]) -> str:
    """``text`` with each name ``names`` matches put as "they" ("their" for a possessive)."""
    return names.sub(lambda m: "their" if m.group("owner") else "they", text)


def _cost(rendered: RenderedFacts) -> int:
    return rendered.tokens + 1 if rendered.text else 0
