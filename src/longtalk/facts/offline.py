"""Durable facts found without an LLM: cue patterns over what people said of themselves.

Every message of a human speaker (see :func:`guard.is_human`) is split into sentences, and
each sentence is read by the cues of :mod:`longtalk.facts.cues`, most specific first; a
span one cue took is not read again. A statement does not count when something before it
in its sentence makes it hypothetical, past or hedged (``if I were vegan``, ``when I was a
kid I loved…``, ``I don't think I'm allergic…``), when it is quoted, or when it is a question
(except ``Should I move to Lisbon?``, an open question). Messages that imitate a role
marker, instruct the assistant or carry a secret are skipped whole (:func:`guard.is_suspicious`).

A clause about someone else (``my sister Ines is allergic to peanuts``, ``Tom loves
castles``) or about "we" (``we are both vegetarian``) is retold in the first person and read
by the cues again (:mod:`longtalk.facts.subjects`): the fact is that person's (``said_by``
the speaker), or the speaker's told of their household. A fact about a person is shown only
when the conversation knows them (:func:`longtalk.facts.known.resolve`).

The facts of one batch are merged (:func:`longtalk.facts.merge.merge_facts`): a statement
repeated is one fact with both sources, and a later one on the same subject replaces the
earlier.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import replace

from longtalk.core.messages import Message
from longtalk.facts.cues import CUES, GROUP_CUES, OTHER_CUES, PAIR_CUES, Cue, Found
from longtalk.facts.guard import is_human, is_suspicious
from longtalk.facts.known import resolve
from longtalk.facts.merge import merge_facts
from longtalk.facts.model import DurableFact, FactKind
from longtalk.facts.phrases import holder_name, spoken, value_of
from longtalk.facts.subjects import Subject, plural_verbs, subjects
from longtalk.summary.offline_text import split_sentences

__all__ = [
    "about",
    "extract_facts",
    "holder_of",
    "sentence_facts",
    "sentence_statements",
    "statements",
]

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
_STATED_THEN_ASKED = re.compile(
    r"^(?:I|we|my|our)\b[^,?]*, (?:is|are|do|does|can|could|will|would|should|what|how|where"
    r"|which|any|anything|is there|are there)\b",
    re.IGNORECASE,
)


def extract_facts(
    messages: Sequence[tuple[int, Message]],
    *,
    people: Collection[str] | None = None,
) -> list[DurableFact]:
    """The durable facts the human speakers of ``messages`` stated, merged.

    ``messages`` are ``(sequence, message)`` pairs, as the chat stored them; each fact keeps
    the sequences and the timestamp of the message(s) that said it. ``people`` limits the
    speakers taken (names; ``user`` for unnamed user messages); by default every human
    speaker counts (see :func:`longtalk.facts.guard.is_human`). A fact a speaker states of
    someone else is kept when the messages know that person (see
    :func:`longtalk.facts.known.resolve`); :func:`statements` keeps every one, for a chat
    whose earlier messages may know them.
    """
    speakers = [holder_of(m) for _, m in messages if is_human(m, people)]
    return resolve(statements(messages, people=people), speakers=speakers)


def statements(
    messages: Sequence[tuple[int, Message]],
    *,
    people: Collection[str] | None = None,
) -> list[DurableFact]:
    """What the human speakers of ``messages`` stated, merged, as said (nothing resolved)."""
    found: list[DurableFact] = []
    for sequence, message in messages:
        if not is_human(message, people) or is_suspicious(message.content):
            continue
        speaker = holder_of(message)
        for sentence in split_sentences(_SHARES.sub("", message.content)):
            for hit in sentence_statements(sentence, speaker):
                if hit.subject == "name" and hit.value == value_of(speaker):
                    continue  # "I'm Ana", said by Ana
                found.append(
                    DurableFact(
                        kind=hit.kind,
                        subject=hit.subject,
                        holder=hit.holder or speaker,
                        text=fill(hit.text, speaker),
                        sequences=(sequence,),
                        said_at=message.timestamp,
                        source="offline",
                        value=hit.value,
                        said_by=speaker if hit.holder else "",
                    )
                )
    return merge_facts([], found)


def holder_of(message: Message) -> str:
    """Whose facts a message states: the speaker's name, else the role (``user``)."""
    return (message.name or "").strip() or message.role.value


def sentence_facts(sentence: str) -> Iterator[Found]:
    """The facts one sentence states of its speaker (``{h}`` standing for them)."""
    text = spoken(sentence)
    yield from _read(text, CUES, question=_question(text), taken=[])


def sentence_statements(sentence: str, speaker: str) -> Iterator[Found]:
    """The facts one sentence states: of its speaker, and of the people its clauses name.

    ``my sister Ines is allergic to peanuts`` is Ines's allergy (``holder`` Ines), ``we are
    vegetarian`` the speaker's diet told of them and those they live with; a span a cue took
    for the speaker (``my sister lives in Rotterdam``) is not read again.
    """
    text = spoken(sentence)
    question = _question(text)
    found = [] if question else list(subjects(text, speaker))
    groups = [(subject.start, subject.end) for subject in found if subject.named_company]
    taken: list[tuple[int, int]] = []
    yield from _read(text, CUES, question=question, taken=taken, blocked=groups)
    for subject in found:
        cues = (
            OTHER_CUES if not subject.group else PAIR_CUES if subject.named_company else GROUP_CUES
        )
        shift = len(subject.first) - len(text)
        for hit in _read(subject.first, cues, question=False, taken=[], at=subject.start):
            end = max(subject.end, hit.span[1] - shift)
            if any(begin < end and subject.end < stop for begin, stop in taken):
                continue  # a cue read it for the speaker already
            taken.append((subject.start, end))
            yield about(hit, subject)


def _read(
    text: str,
    cues: Sequence[Cue],
    *,
    question: bool,
    taken: list[tuple[int, int]],
    at: int | None = None,
    blocked: Sequence[tuple[int, int]] = (),
) -> Iterator[Found]:
    """The cues' facts in ``text``, each span read once.

    Only those starting ``at``, when set; none starting in a ``blocked`` span (the ``I``
    of ``my husband and I`` speaks for two).
    """
    for cue in cues:
        if question != (cue.name == "should-i"):
            continue
        for match in cue.pattern.finditer(text):
            start, end = match.span()
            if (at is not None and start != at) or any(b <= start < e for b, e in blocked):
                continue
            if any(start < stop and begin < end for begin, stop in taken):
                continue
            if _hedged(text, start) or _embedded(text, start):
                continue
            hit = cue.build(match, text)
            if hit is not None:
                taken.append((start, end))
                yield hit


def _question(text: str) -> bool:
    """True for a question; ``I get seasick, is the water rough?`` states its first clause."""
    if not text.rstrip().endswith("?"):
        return False
    return not _STATED_THEN_ASKED.match(text)


def about(hit: Found, subject: Subject) -> Found:
    """A fact the cues found in a retold clause, as a fact of that clause's subject."""
    text = plural_verbs(hit.text) if subject.plural else hit.text
    kind: FactKind = "relation" if hit.kind == "identity" and not subject.group else hit.kind
    return replace(
        hit,
        kind=kind,
        subject=f"{subject.key}:{hit.subject}" if subject.key else hit.subject,
        text=text.replace("{h}", subject.who),
        holder=subject.holder,
    )


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
