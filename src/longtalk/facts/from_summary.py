"""Durable facts from a structured LLM summary: its preferences, decisions, questions, people.

An LLM summary already chose what matters; this module files it as facts. Each item of
``user_preferences``, ``decisions`` and ``open_questions`` becomes one fact in the LLM's own
words, its claim read by the same language layer as the offline facts (``Ana is allergic to
latex`` is a claim on ``allergic:latex``, so a later statement supersedes it), its kind from
the same model, else from the list it came from. People and pets with details become
relations and possessions (``Maya: Ana's sister, lives in Porto``).

Provenance: given the messages the summary covered, an item is traced to the human message
that shares the most content words with it (its sequence, time and speaker); an item no
message explains gets ``sequences`` (the summary row's whole range, say). For the offline
summarizer use :func:`longtalk.facts.offline.extract_facts` on the messages instead.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from datetime import datetime

from longtalk.core.history import episode_numbers
from longtalk.core.messages import Message
from longtalk.facts.durable_fact import DurableFact, FactKind, FactSource
from longtalk.facts.guard import is_human, is_suspicious
from longtalk.facts.merge import merge_facts
from longtalk.facts.offline import holder_of
from longtalk.language import Said, Statement, read_statements
from longtalk.language.kinds import likeliest_kind
from longtalk.language.statements import SAID
from longtalk.summary.model import ConversationSummary, SummaryEntity
from longtalk.summary.offline_text import content_words

__all__ = ["episode_sequences", "facts_from_summary"]

MAX_ITEM_WORDS = 30
SOURCE: FactSource = "summary"
"""Every fact found here was said in a summary."""
_USER_WORDS = ("the user", "user")
_PET_TYPES = frozenset("pet animal dog cat".split())
_NOT_DETAILS = frozenset("participant speaker user assistant person".split())


def facts_from_summary(
    summary: ConversationSummary,
    messages: Sequence[tuple[int, Message]] = (),
    *,
    sequences: Sequence[int] = (),
    holder: str | None = None,
    people: Collection[str] | None = None,
) -> list[DurableFact]:
    """The facts a structured summary states, traced to ``messages`` where they can be.

    ``holder`` is whose facts the items are when an item does not name its holder (default:
    the first human speaker of ``messages``, else ``user``). ``people`` limits the speakers
    a fact may be traced to, as in :func:`longtalk.facts.offline.extract_facts`.
    """
    spoken = [(s, m) for s, m in messages if is_human(m, people)]
    default = holder or (holder_of(spoken[0][1]) if spoken else "user")
    names = {holder_of(m) for _, m in spoken} | {default}
    found: list[DurableFact] = []
    lists: tuple[tuple[FactKind, tuple[str, ...]], ...] = (
        ("preference", summary.user_preferences),
        ("decision", summary.decisions),
        ("question", summary.open_questions),
    )
    for kind, items in lists:
        for item in items:
            fact = _item_fact(item, kind, names, default, spoken, sequences)
            if fact is not None:
                found.append(fact)
    for entity in summary.entities:
        fact = _entity_fact(entity, names, default, spoken, sequences)
        if fact is not None:
            found.append(fact)
    return merge_facts([], found)


def _item_fact(
    item: str,
    kind: FactKind,
    names: Collection[str],
    default: str,
    spoken: Sequence[tuple[int, Message]],
    sequences: Sequence[int],
) -> DurableFact | None:
    text = _sentence(item)
    if not text or len(text.split()) > MAX_ITEM_WORDS or is_suspicious(text):
        return None
    holder = _named_holder(text, names) or default
    hit = _claim(text, holder)
    subject = hit.claim.key if hit else f"{_list_key(kind)}:{_topic(text, holder)}"
    source = _source(text, holder, spoken)
    said, said_at = _provenance(source, spoken, sequences)
    value = hit.value if hit else ""
    return DurableFact(_model_kind(hit, kind), subject, holder, text, said, said_at, SOURCE, value)


def _entity_fact(
    entity: SummaryEntity,
    names: Collection[str],
    default: str,
    spoken: Sequence[tuple[int, Message]],
    sequences: Sequence[int],
) -> DurableFact | None:
    details = " ".join(entity.details.split())
    kind_name = entity.type.casefold()
    if len(content_words(details)) < 2 or details.casefold() in _NOT_DETAILS:
        return None
    if kind_name == "person":
        own = entity.name in names
        kind: FactKind = "identity" if own else "relation"
        holder = entity.name if own else default
        subject = "profile" if own else f"person:{entity.name.casefold()}"
    elif kind_name in _PET_TYPES:
        kind, holder, subject = "possession", default, f"pet:{entity.name.casefold()}"
    else:
        return None
    text = _sentence(f"{entity.name}: {details}")
    if len(text.split()) > MAX_ITEM_WORDS or is_suspicious(text):
        return None
    source = _source(f"{entity.name} {details}", holder, spoken)
    said, said_at = _provenance(source, spoken, sequences)
    return DurableFact(kind, subject, holder, text, said, said_at, SOURCE, details)


def _sentence(item: str) -> str:
    text = " ".join(item.split()).strip()
    if not text:
        return ""
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _named_holder(text: str, names: Collection[str]) -> str | None:
    """The person an item starts with (``Ana is…``, ``The user prefers…``), if a speaker."""
    lower = text.casefold()
    for word in _USER_WORDS:
        if lower.startswith(word + " ") or lower.startswith(word + "'s "):
            return next((n for n in names if n.casefold() == "user"), None) or "user"
    for name in sorted(names, key=len, reverse=True):
        if re.match(rf"{re.escape(name)}(?:'s)?\b", text, re.IGNORECASE):
            return name
    return None


def _claim(text: str, holder: str) -> Statement | None:
    """The item's first asserted claim about ``holder``, read as the offline facts are.

    A sentence quoted whole (``quiet neighbourhoods``) is no claim: the list names it.
    """
    for statement in read_statements([Said(0, holder, text)]):
        quoted = statement.claim.predicate.startswith(f"{SAID}:")
        own = statement.holder.casefold() == holder.casefold()
        if statement.modality == "asserted" and own and not quoted:
            return statement
    return None


def _model_kind(hit: Statement | None, listed: FactKind) -> FactKind:
    """The kind of the list an item came from, or the model's for a listed preference.

    An allergy listed among preferences is a constraint. The summary's writer judged the
    item durable; the model is asked only what kind it is.
    """
    kind = likeliest_kind(hit) if hit is not None and listed == "preference" else None
    kinds: dict[str, FactKind] = {
        "constraint": "constraint",
        "identity": "identity",
        "relation": "relation",
        "possession": "possession",
    }
    return kinds.get(kind or "", listed)


def _list_key(kind: FactKind) -> str:
    return {"preference": "taste", "decision": "decision", "question": "decision"}.get(kind, kind)


def _topic(text: str, holder: str) -> str:
    skip = {w.casefold() for w in holder.split()} | {"user"}
    words = [w for w in content_words(text) if w not in skip]
    return " ".join(words[:2]) or "note"


def _provenance(
    source: tuple[int, Message] | None,
    spoken: Sequence[tuple[int, Message]],
    sequences: Sequence[int],
) -> tuple[tuple[int, ...], datetime | None]:
    """Where a summary's fact was said: its source message, else every summarized one."""
    if source:
        return (source[0],), source[1].timestamp
    return tuple(sequences), _latest(spoken)


def _source(
    text: str, holder: str, spoken: Sequence[tuple[int, Message]]
) -> tuple[int, Message] | None:
    """The human message that shares the most content words with ``text`` (2 at least)."""
    wanted = set(content_words(text)) - {w.casefold() for w in holder.split()}
    best, best_score = None, 1
    for sequence, message in spoken:
        score = len(wanted & set(content_words(message.content)))
        if score > best_score or (score == best_score and best is not None and score > 1):
            best, best_score = (sequence, message), score
    return best


def _latest(spoken: Sequence[tuple[int, Message]]) -> datetime | None:
    times = [m.timestamp for _, m in spoken if m.timestamp is not None]
    return max(times) if times else None


def episode_sequences(
    messages: Sequence[tuple[int, Message]], first: int, last: int, *, last_episode: int = 0
) -> tuple[int, ...]:
    """The sequences of ``messages`` in episodes ``first``..``last`` (a summary row's range).

    Episodes are numbered as the summary chain numbers them: continuing after
    ``last_episode``, a user message opening the next one.
    """
    numbers = episode_numbers(messages, last_episode=last_episode)
    return tuple(
        sequence
        for (sequence, _), number in zip(messages, numbers, strict=True)
        if first <= number <= last
    )
