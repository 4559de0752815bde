"""Durable facts found without an LLM: the language layer's statements, read as claims.

Every message of a human speaker (see :func:`guard.is_human`) is read once by
:func:`longtalk.language.read_statements` (parsed in batches): its clauses as statements,
each with its holder, claim, value, polarity and modality. Those the claim model accepts
(:mod:`longtalk.facts.claims`) become facts; a statement about someone else is that
person's fact (``said_by`` the speaker). Messages that imitate a role marker, instruct the
assistant or carry a secret are skipped whole (:func:`guard.is_suspicious`).

The facts of one batch are merged (:func:`longtalk.facts.merge.merge_facts`): a statement
repeated is one fact with both sources, a later one on the same claim supersedes the
earlier (kept as its history), and a retraction removes it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence

from longtalk.core.messages import Message
from longtalk.facts.claims import facts_of, tentative_message
from longtalk.facts.durable_fact import DurableFact
from longtalk.facts.guard import is_human, is_suspicious
from longtalk.facts.known import resolve
from longtalk.facts.merge import merge_facts
from longtalk.language import ASSISTANT, Said, question_of, read_statements

__all__ = [
    "asked_of",
    "extract_facts",
    "facts_heard",
    "holder_of",
    "remembered",
    "said",
    "statements",
]


def extract_facts(
    messages: Sequence[tuple[int, Message]],
    *,
    people: Collection[str] | None = None,
) -> list[DurableFact]:
    """The durable facts the human speakers of ``messages`` stated, merged, as shown.

    ``messages`` are ``(sequence, message)`` pairs, as the chat stored them; each fact keeps
    the sequences and the timestamp of the message(s) that said it. ``people`` limits the
    speakers taken (names; ``user`` for unnamed user messages); by default every human
    speaker counts (see :func:`longtalk.facts.guard.is_human`).
    """
    return resolve(statements(messages, people=people))


def statements(
    messages: Sequence[tuple[int, Message]],
    *,
    people: Collection[str] | None = None,
    previous: Sequence[Message] = (),
) -> list[DurableFact]:
    """What the human speakers of ``messages`` stated, merged (retractions and denials kept).

    ``previous`` are the chat's latest messages before them, when known: whom the first of
    them answers (a request to a person is theirs to keep; one to the assistant an
    instruction).
    """
    found = facts_heard(list(said(messages, people=people, previous=previous)))
    return merge_facts([], found, keep_denials=True)


def facts_heard(heard: Sequence[Said]) -> list[DurableFact]:
    """The facts, retractions and tentative statements of ``heard``, in order, unmerged.

    A message the parse reads no clause in is its speaker's tentative statement, quoted
    (:func:`longtalk.facts.claims.tentative_message`).
    """
    found = read_statements(heard)
    read = {statement.sequence for statement in found}
    unread = [tentative_message(item) for item in heard if item.sequence not in read]
    return sorted([*facts_of(found), *filter(None, unread)], key=lambda fact: fact.sequences[0])


def said(
    messages: Sequence[tuple[int, Message]],
    *,
    people: Collection[str] | None = None,
    previous: Sequence[Message] = (),
) -> Iterator[Said]:
    """The human messages to read, each with whom it is said to and what it answers.

    The listener is the last other human speaker before it (in ``previous`` too), else the
    assistant. A message answers the question the message just before it ended on, when
    another (the assistant too) asked it.
    """
    listener, last_speaker = ASSISTANT, ""
    before: Message | None = None
    for index, (sequence, message) in enumerate([*((0, m) for m in previous), *messages]):
        asked = asked_of(before, message)
        before = message
        if not is_human(message, people):
            continue
        speaker = holder_of(message)
        if last_speaker and last_speaker.casefold() != speaker.casefold():
            listener = last_speaker
        last_speaker = speaker
        if index < len(previous):
            continue
        if is_suspicious(message.content):
            continue
        yield Said(sequence, speaker, message.content, listener, message.timestamp, asked)


def remembered(message: Message) -> Message:
    """What reading a later message needs of ``message``: who said it, and what it asked.

    A chat's latest messages are kept between appends for this (whom the next one answers,
    the question it may answer); the rest of the words are not kept.
    """
    return message.with_content(_question(message))


def asked_of(before: Message | None, message: Message) -> str:
    """The question ``message`` answers: the one ``before`` ended on, if another asked it."""
    if before is None or holder_of(before).casefold() == holder_of(message).casefold():
        return ""
    return _question(before)


def _question(message: Message) -> str:
    """The question ``message`` ends on, unless anything in it is suspect (then ``""``)."""
    question = question_of(message.content)
    return question if question and not is_suspicious(message.content) else ""


def holder_of(message: Message) -> str:
    """Whose facts a message states: the speaker's name, else the role (``user``)."""
    return (message.name or "").strip() or message.role.value
