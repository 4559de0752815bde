"""A reply that answers a question with a fragment: ``Aberdeen, moved up for the job``.

Asked ``where are you based these days?``, people answer with the phrase the question
asks for and go on: ``Aberdeen, moved up for the job two years ago``, ``pescatarian, and
I really don't like mushrooms``. Read alone, the fragment says nothing lasting; beside its
question it says where its speaker lives or what they eat. The question is the last
sentence of the message just before, when another asked it (:func:`question_of`); the
answer is read from the parse (:func:`answer_of`), quoted with the question, and the kind
model reads the two together.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from longtalk.language.speakers import CHAT_EXCLAMATIONS, Participants, a_participant
from longtalk.language.withdrawal import no_longer, recanting

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

__all__ = ["answer_of", "question_of"]


def question_of(text: str) -> str:
    """The question ``text`` ends on (its last sentence, if that asks), else ``""``."""
    stripped = text.strip()
    if not stripped.endswith("?"):
        return ""
    body = stripped.rstrip("?")
    start = max(body.rfind(mark) for mark in ".!?\n") + 1
    return stripped[start:].strip()


_FRAGMENT_WORDS = 5
"""The most words an answer's opening fragment has (``Chris and I``, ``tiny terrace``)."""
_FRAGMENT_POS = frozenset({"NOUN", "PROPN", "NUM", "ADJ"})


_RESPONSES = frozenset(
    "yes yeah yep yup ya no nope nah sure ok okay thanks thank thx ty hm um uh oh ah aw wow "
    "hey hi hello congrats".split()
)
"""Words that respond rather than answer (``Yep, there are routes near the river``), which
the small tagger, trained on edited text, often takes for nouns and names."""


def _calls(token: Token, people: Participants) -> bool:
    """An exclamation, a response, or a participant called by name (``Hey Joanna!``)."""
    word = token.lower_
    while len(word) > 2 and word[-1] == word[-2]:  # "hmmm", "awww": the word drawn out
        word = word[:-1]
    exclaims = token.pos_ == "INTJ" or word in _RESPONSES or token.lower_ in CHAT_EXCLAMATIONS
    return exclaims or (token.pos_ == "PROPN" and _a_participants_name(token, people))


def _a_participants_name(token: Token, people: Participants) -> bool:
    """A participant's name, or the start of it said as a nickname (``Mel`` for Melanie)."""
    word = token.lower_
    names = (people.speaker.casefold(), people.listener.casefold())
    return a_participant(token, people) or (
        len(word) >= 3 and any(name.startswith(word) for name in names)
    )


def answer_of(sentences: Sequence[Span], people: Participants) -> Span | None:
    """The words of a message that answer a question by a fragment, or None.

    The message opens on a phrase with no verb, set off by punctuation: ``Aberdeen, moved
    up for the job``, ``pescatarian, and I hate mushrooms``; an opening ``yes`` or ``haha``
    is no phrase, nor is a name called (``Hey Joanna!``). The answer is its first
    sentence, and the next too when the phrase is all of the first (``four! the youngest,
    Ollie, just started school``); words that take back or end what was said answer nothing.
    """
    if not sentences:
        return None
    words = [t for t in sentences[0] if not t.is_space]
    while words and (_calls(words[0], people) or words[0].is_punct):
        words = words[1:]
    end = next((at for at, t in enumerate(words) if t.is_punct), len(words))
    phrase = words[:end]
    if not (
        0 < len(phrase) <= _FRAGMENT_WORDS
        and not any(t.pos_ in ("VERB", "AUX") for t in phrase)
        and any(t.pos_ in _FRAGMENT_POS for t in phrase)
    ):
        return None
    whole = all(t.is_punct for t in words[end:])
    said = sentences[: 2 if whole else 1]
    if any(recanting(sentence) or no_longer(sentence) for sentence in said):
        return None  # "god no. ignore me": it takes back, and answers nothing
    return said[0].doc[said[0].start : said[-1].end]
