"""The durable part of a context: its lines, and which facts go first when it must be cut.

Lines are grouped by holder and shown most durable first (constraints and identity, then
relations and possessions, preferences, decisions, commitments, open questions), oldest
first within a kind, so the part reads the same turn after turn. Decisions, commitments and
questions carry the day they were said (``next Friday`` means nothing without it).

When the part's token allowance is too small, facts are left out in :func:`cut_order`: the
least durable first, and among equals the oldest. What was left out is returned and the
part says how many (``[2 durable facts left out]``), never silently. Pure: facts in, text out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from longtalk.core.quoting import quoted_item
from longtalk.core.tokens import TokenCounter
from longtalk.facts.durable_fact import DurableFact
from longtalk.language import SAID

__all__ = [
    "DATED_KINDS",
    "FACTS_HEADER",
    "RenderedFacts",
    "cut_order",
    "display_order",
    "fact_line",
    "left_out_note",
    "render_facts",
]

FACTS_HEADER = "Durable facts the participants stated:"
DATED_KINDS = frozenset({"decision", "commitment", "question"})


@dataclass(frozen=True, slots=True)
class RenderedFacts:
    """The durable part: its text and tokens, the facts shown and the facts left out.

    ``text`` is empty when nothing is shown (and no note is needed); ``sequences`` are the
    source messages of the facts shown, for the part's provenance.
    """

    text: str
    tokens: int
    shown: tuple[DurableFact, ...]
    left_out: tuple[DurableFact, ...]

    @property
    def sequences(self) -> tuple[int, ...]:
        """The source sequences of the facts shown, ascending."""
        return tuple(sorted({s for fact in self.shown for s in fact.sequences}))


def fact_line(fact: DurableFact) -> str:
    """One line of the part: ``- Ana is allergic to shellfish.`` (dated for dated kinds)."""
    text = quoted_item(fact.text)  # quoted history, like every part of a context
    if fact.kind in DATED_KINDS and fact.said_at is not None:
        day = f"{fact.said_at.day} {fact.said_at:%B %Y}"
        stripped = text.rstrip(".!?")
        text = f"{stripped} (said {day}){text[len(stripped) :] or '.'}"
    return f"- {text}"


def left_out_note(count: int) -> str:
    """The line that says facts were left out."""
    return f"[{count} durable fact{'s' if count != 1 else ''} left out]"


def display_order(facts: Sequence[DurableFact]) -> list[DurableFact]:
    """Holders in order of first appearance; within one, most durable first, then oldest."""
    holders = list(dict.fromkeys(fact.holder for fact in facts))
    position = {id(fact): index for index, fact in enumerate(facts)}
    return sorted(
        facts,
        key=lambda f: (holders.index(f.holder), -f.durability, _age(f), position[id(f)]),
    )


def cut_order(facts: Sequence[DurableFact]) -> list[DurableFact]:
    """The order facts are left out in: least durable first, and among equals the oldest.

    A sentence quoted whole because no claim could be cut from it goes before any claim the
    parse supports: it is the least certain to state something lasting.
    """
    position = {id(fact): index for index, fact in enumerate(facts)}
    return sorted(facts, key=lambda f: (not _sentence(f), f.durability, _age(f), position[id(f)]))


def _sentence(fact: DurableFact) -> bool:
    return fact.subject.partition(":")[0] == SAID


def _age(fact: DurableFact) -> tuple[float, int]:
    """Oldest first: by time when known, then by sequence."""
    stamp = fact.said_at.timestamp() if fact.said_at is not None else float("-inf")
    return (stamp, fact.last_sequence)


def render_facts(
    facts: Sequence[DurableFact],
    max_tokens: int,
    counter: TokenCounter,
    *,
    header: str = FACTS_HEADER,
    order: Sequence[DurableFact] | None = None,
) -> RenderedFacts:
    """The part within ``max_tokens``: header, lines, and a note when facts were left out.

    Facts are left out in ``order`` (default :func:`cut_order`: least durable first) until
    the part fits with the note. When not even the header, one line and the note fit, the
    note goes first (the caller counts ``left_out`` either way); when not even the header
    and one line fit, nothing is shown and every fact is left out.
    """
    victims = cut_order(facts) if order is None else list(order)
    for with_note in (True, False):
        rendered = _fitted(facts, victims, max_tokens, counter, header, with_note)
        if rendered.text:
            return rendered
    return rendered


def _fitted(
    facts: Sequence[DurableFact],
    victims: Sequence[DurableFact],
    max_tokens: int,
    counter: TokenCounter,
    header: str,
    with_note: bool,
) -> RenderedFacts:
    """Facts left out in ``victims``' order until the text (with or without the note) fits."""
    costs = {id(fact): counter.count(fact_line(fact)) + 1 for fact in facts}
    base = counter.count(header) if header else 0
    shown = list(facts)
    dropped: list[DurableFact] = []
    next_victim = iter(victims)
    while shown and _cost(shown, dropped if with_note else (), costs, base, counter) > max_tokens:
        _drop(next(next_victim), shown, dropped)
    while shown:  # the estimate summed the lines; the joined text decides
        text = _text(header, shown, dropped if with_note else ())
        tokens = counter.count(text)
        if tokens <= max_tokens:
            return RenderedFacts(text, tokens, tuple(display_order(shown)), tuple(dropped))
        _drop(next(next_victim), shown, dropped)
    return RenderedFacts("", 0, (), tuple(dropped))


def _drop(victim: DurableFact, shown: list[DurableFact], dropped: list[DurableFact]) -> None:
    shown[:] = [fact for fact in shown if fact is not victim]
    dropped.append(victim)


def _text(header: str, shown: Sequence[DurableFact], dropped: Sequence[DurableFact]) -> str:
    lines = [header] if header else []
    lines += [fact_line(fact) for fact in display_order(shown)]
    if dropped:
        lines.append(left_out_note(len(dropped)))
    return "\n".join(lines)


def _cost(
    shown: Sequence[DurableFact],
    dropped: Sequence[DurableFact],
    costs: dict[int, int],
    base: int,
    counter: TokenCounter,
) -> int:
    note = counter.count(left_out_note(len(dropped))) + 1 if dropped else 0
    return base + sum(costs[id(fact)] for fact in shown) + note
