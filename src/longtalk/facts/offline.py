"""Durable facts found without an LLM: cue patterns over what people said of themselves.

Every message of a human speaker (see :func:`guard.is_human`) is split into sentences, and
each sentence is read by the cues of :mod:`longtalk.facts.cues`, most specific first; a
span one cue took is not read again. A statement does not count when something before it
in its sentence makes it hypothetical, past or hedged (``if I were vegan``, ``when I was a
kid I loved…``, ``I don't think I'm allergic…``), when it is quoted, or when it is a question
(except ``Should I move to Lisbon?``, an open question). Messages that imitate a role
marker, instruct the assistant or carry a secret are skipped whole (:func:`guard.is_suspicious`).

The facts of one batch are merged (:func:`longtalk.facts.merge.merge_facts`): a statement
repeated is one fact with both sources, and a later one on the same subject replaces the
earlier.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence

from longtalk.core.messages import Message
from longtalk.facts.cues import CUES, Found
from longtalk.facts.guard import is_human, is_suspicious
from longtalk.facts.merge import merge_facts
from longtalk.facts.model import DurableFact
from longtalk.facts.phrases import holder_name, spoken, value_of
from longtalk.summary.offline_text import split_sentences

__all__ = ["extract_facts", "holder_of", "sentence_facts"]

_HEDGED = re.compile(
    r"\b(?:if|unless|suppose|supposing|imagine|pretend|pretending|hypothetically|wish|wished"
    r"|used to|when I was|as a (?:kid|child|teen|teenager)|back then|back in the day"
    r"|years ago|in the past|do not think|did not think|doubt|joking|kidding|would|could"
    r"|might|maybe|perhaps|assume|assuming|what if|not sure|no idea|in case|whether"
    r"|said|says|told me|tells me|asked|thinks|thought|probably)\b",
    re.IGNORECASE,
)
_RELATIVE = frozenset(
    """what that which who whom whose things thing stuff something anything everything
    nothing one ones way how where whatever all""".split()
)
_THAT_OPENERS = frozenset("now so given except glad happy proud sure seeing considering".split())
_DETERMINERS = frozenset("a an the this that these those some any every each another".split())
_QUOTES = re.compile(r"[\"“”]")
_SHARES = re.compile(r"\s*\[shares [^\]]*\]\s*$")


def extract_facts(
    messages: Sequence[tuple[int, Message]],
    *,
    people: Collection[str] | None = None,
) -> list[DurableFact]:
    """The durable facts the human speakers of ``messages`` stated, merged.

    ``messages`` are ``(sequence, message)`` pairs, as the chat stored them; each fact keeps
    the sequences and the timestamp of the message(s) that said it. ``people`` limits the
    speakers taken (names; ``user`` for unnamed user messages); by default every human
    speaker counts (see :func:`longtalk.facts.guard.is_human`).
    """
    found: list[DurableFact] = []
    for sequence, message in messages:
        if not is_human(message, people) or is_suspicious(message.content):
            continue
        holder = holder_of(message)
        for sentence in split_sentences(_SHARES.sub("", message.content)):
            for hit in sentence_facts(sentence):
                if hit.subject == "name" and hit.value == value_of(holder):
                    continue  # "I'm Ana", said by Ana
                found.append(
                    DurableFact(
                        kind=hit.kind,
                        subject=hit.subject,
                        holder=holder,
                        text=fill(hit.text, holder),
                        sequences=(sequence,),
                        said_at=message.timestamp,
                        source="offline",
                        value=hit.value,
                    )
                )
    return merge_facts([], found)


def holder_of(message: Message) -> str:
    """Whose facts a message states: the speaker's name, else the role (``user``)."""
    return (message.name or "").strip() or message.role.value


def sentence_facts(sentence: str) -> Iterator[Found]:
    """The facts one sentence states (``{h}`` standing for the holder in their texts)."""
    text = spoken(sentence)
    question = text.rstrip().endswith("?")
    taken: list[tuple[int, int]] = []
    for cue in CUES:
        if question != (cue.name == "should-i"):
            continue
        for match in cue.pattern.finditer(text):
            start, end = match.span()
            if any(start < stop and begin < end for begin, stop in taken):
                continue
            if _hedged(text, start) or _embedded(text, start):
                continue
            hit = cue.build(match, text)
            if hit is not None:
                taken.append((start, end))
                yield hit


def _hedged(text: str, start: int) -> bool:
    """True when the words before a statement make it hypothetical, past, reported or quoted."""
    before = text[:start]
    return bool(_HEDGED.search(before) or _QUOTES.search(before))


def _embedded(text: str, start: int) -> bool:
    """True when a statement is part of a larger phrase, not said on its own.

    ``the things I love``, ``what I like to hear``, ``a job I enjoy every day``: a relative
    word, or an article and a noun, stands right before it.
    """
    words = re.findall(r"[\w']+|[^\w\s]", text[:start].lower())
    if not words:
        return False
    if words[-1] in _RELATIVE:
        return not (words[-1] == "that" and len(words) > 1 and words[-2] in _THAT_OPENERS)
    return len(words) >= 2 and words[-2] in _DETERMINERS and words[-1].isalpha()


def fill(text: str, holder: str) -> str:
    """A fact's text with its holder named (``The user`` at the start, ``the user`` inside)."""
    name = holder_name(holder)
    inner = "the user" if name == "The user" else name
    if text.startswith("{h}"):
        text = name + text[3:]
    text = text.replace("{h}", inner)
    return text[:1].upper() + text[1:]
