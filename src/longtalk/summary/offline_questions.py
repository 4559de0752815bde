"""Open questions for the offline summarizer, closed once a later message answers them.

A question is an interrogative sentence with some content, or a statement of doubt (``not
sure whether``...). It is answered when the next message from someone else is not itself
only questions and either shares a content word with it or answers it explicitly: a
yes / no reply to a yes / no question, a date to ``when``, a number to ``how much``, a
place to ``where``, a name to ``who``, a reason to ``why``, and any statement of some
length to an open ``what`` / ``which`` / ``how``; an AI assistant's reply of some length
answers the question before it. The same test closes questions left open by an earlier
summary, the new messages being the replies. The AI assistant's own questions and small talk
(``Time flies, huh?``, ``Care to share?``) are never open questions.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from longtalk.summary.offline_details import is_ai_assistant
from longtalk.summary.offline_entities import DATE, mentions
from longtalk.summary.offline_text import Sentence, content_words, third_person

__all__ = ["OPEN_CUE", "Question", "answered", "open_questions"]

OPEN_CUE = re.compile(
    r"\b(?:not sure|haven't decided|have not decided|still need to|need to figure out"
    r"|what about|should (?:i|we)|i wonder|don't know (?:if|whether|what|how|where|when))\b",
    re.IGNORECASE,
)
_YES_NO = re.compile(
    r"^(?:do|does|did|is|are|was|were|have|has|had|can|could|will|would|should|shall|may"
    r"|might|am|any|anything)\b",
    re.IGNORECASE,
)
_YES_NO_REPLY = re.compile(
    r"^(?:yes|yeah|yep|yup|no|nope|nah|sure|definitely|absolutely|of course|not (?:yet|really)"
    r"|i (?:do|did|have|am|was|will|can)|i'm|we (?:do|did|have|are|will)|it (?:is|was))\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d|\b(?:one|two|three|four|five|six|ten|twenty|hundred|few)\b", re.I)
_OPEN_WH = re.compile(r"^(?:\w+, )?(?:what|which|how)\b(?! (?:much|many|long|old)\b)", re.I)
_SOCIAL = re.compile(
    r"(?:,\s*|\s)(?:huh|right|eh|isn't it|aren't they|don't you think|no|yeah)\?$"
    r"|^(?:\w+,\s*)?(?:care to|want to|wanna|guess what|any (?:fun|special|cool|new|exciting)"
    r"|got any|need any|what about you|how about you|how are you|how's it going|how have you been"
    r"|can you tell me more|tell me more)\b",
    re.IGNORECASE,
)
ASSISTANT_ANSWER_WORDS = 5
"""Content words of an AI assistant's reply that make it an answer to the question before."""
_REASON = re.compile(r"\b(?:because|since|'cause|cause|so that|due to)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Question:
    """An open question: how it is told, who asked it, and in which turn."""

    text: str
    speaker: str
    turn: int
    words: frozenset[str]


def open_questions(
    sentences: Sequence[Sentence], people: Collection[str] = (), limit: int = 8
) -> tuple[str, ...]:
    """The questions of ``sentences`` that no later message answers, newest last."""
    found = [q for q in _questions(sentences, people) if not _answered_in(q, sentences, people)]
    return tuple(dict.fromkeys(q.text for q in found))[-limit:]


def answered(
    questions: Sequence[str], sentences: Sequence[Sentence], people: Collection[str] = ()
) -> set[str]:
    """Which earlier open ``questions`` (as summaries tell them) the new sentences answer."""
    closed = set()
    for text in questions:
        asker = text.split(" asks:", 1)[0] if " asks:" in text else text.split(" ", 1)[0]
        question = Question(text, asker, -1, _stems(_body(text), people))
        if _answered_in(question, sentences, people):
            closed.add(text)
    return closed


def _questions(sentences: Sequence[Sentence], people: Collection[str]) -> list[Question]:
    found = []
    for sentence in sentences:
        if is_ai_assistant(sentence.speaker) or _SOCIAL.search(sentence.text.strip()):
            continue  # the assistant's clarifications, and small talk, are not open matters
        asked = sentence.text.rstrip().endswith("?")
        stems = _stems(sentence.text, people)
        if (asked and len(stems) >= 2) or OPEN_CUE.search(sentence.text):
            found.append(Question(_told(sentence), sentence.speaker, sentence.turn, stems))
    return found


def _told(sentence: Sentence) -> str:
    text = " ".join(third_person(sentence).split())
    return text if len(text) <= 100 else text[:99].rsplit(" ", 1)[0] + "…"


def _answered_in(
    question: Question, sentences: Sequence[Sentence], people: Collection[str]
) -> bool:
    """True when the next message from someone else answers ``question``."""
    later = [s for s in sentences if s.turn > question.turn]
    reply_turn = next((s.turn for s in later if s.speaker != question.speaker), None)
    if reply_turn is None:
        return False
    reply = [s for s in later if s.turn == reply_turn and not s.text.rstrip().endswith("?")]
    if not reply:
        return False
    text = " ".join(s.text for s in reply)
    if is_ai_assistant(reply[0].speaker) and len(content_words(text)) >= ASSISTANT_ANSWER_WORDS:
        return True  # an assistant's reply of some length is its answer
    return bool(question.words & _stems(text, people)) or _explicit(question, text, people)


def _explicit(question: Question, reply: str, people: Collection[str]) -> bool:
    """A reply of the kind the question asks for."""
    body = _body(question.text).lower()
    if _YES_NO.match(body):
        return bool(_YES_NO_REPLY.match(reply.lstrip(" ,!.")))
    kinds = {m.kind for m in mentions(reply, people)}
    number = bool(_NUMBER.search(reply))
    fits = {
        "when": bool(DATE.search(reply)),
        "where": "place" in kinds,
        "who": "person" in kinds,
        "how (?:much|many|long|old)": number,
        "why": bool(_REASON.search(reply)),
    }
    if any(ok and re.search(rf"\b{cue}\b", body) for cue, ok in fits.items()):
        return True
    return bool(_OPEN_WH.match(body)) and len(content_words(reply)) >= 3


def _body(text: str) -> str:
    """A told question without its ``Name asks:`` prefix."""
    return text.split(" asks: ", 1)[1] if " asks: " in text else text


def _stems(text: str, people: Collection[str]) -> frozenset[str]:
    """Crude stems of the content words, without the participants' names."""
    names = {p.casefold() for p in people}
    return frozenset(w[:5] for w in content_words(text) if w not in names and not w.isdigit())
