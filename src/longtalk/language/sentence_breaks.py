"""A sentence never starts on a lowercase word that follows a word: the parser is told so.

The small parser sometimes breaks a sentence where nothing in the writing does: ``Last
weekend my girlfriend`` | ``and I went fishing``, ``It's tough`` | ``but I'm up for the
challenge!``. Each piece is then read as a statement of its own, and a fact quotes half a
sentence. Writing marks where a sentence ends (a full stop, a question or exclamation mark,
an ellipsis, a line break) and a new one starts with a capital; chat drops the capital often
and the full stop more often, but a lowercase word straight after another word is a sentence
going on. So is any word after one that cannot end a sentence, whatever its case: a
conjunction, a determiner, a possessive (``I hope him and`` | ``Toby become buddies!``).
An emoji between words ends a sentence as a full stop does (``I'm 30 🎂 officially old``):
chat puts one where writing puts the mark.
This component runs after the tagger and before the parser and forbids a break there; the
parser keeps the boundaries it is given and finds the others itself.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

__all__ = ["COMPONENT", "add_to"]

COMPONENT = "longtalk_sentence_goes_on"
"""The component's name in the pipeline."""
ENDINGS = frozenset(".!?…")
"""Characters that can end a sentence, as a token's last character."""
UNFINISHED = frozenset({"CC", "DT", "PDT", "PRP$", "WP$", "POS"})
"""Tags of words that need another after them: no sentence ends on one."""
LEANING = frozenset({"IN", "CC", "TO"})
"""Tags of words that lean on the words before them: no sentence starts on one after an
emoji (``they've put it up 🙃 from next month``)."""


def add_to(nlp: Language) -> None:
    """Put the component before the parser of ``nlp`` (once)."""
    from spacy.language import Language

    if not Language.has_factory(COMPONENT):
        Language.component(COMPONENT, func=sentence_goes_on)
    if COMPONENT not in nlp.pipe_names:
        nlp.add_pipe(COMPONENT, before="parser")


def sentence_goes_on(doc: Doc) -> Doc:
    """``doc`` with sentence starts decided where writing decides them.

    No sentence starts on a lowercase word right after a word; one starts on a word right
    after an emoji, unless it leans on what came before (a preposition, a conjunction).
    """
    for token in doc[1:]:
        before = doc[token.i - 1]
        if pictograph(before.text) and token.is_alpha and token.tag_ not in LEANING:
            token.is_sent_start = True
        elif _goes_on(before, token):
            token.is_sent_start = False
    return doc


def _goes_on(before: Token, token: Token) -> bool:
    ends = before.text[-1:] in ENDINGS or before.is_space  # a line break is a space token
    return not ends and (token.text[:1].islower() or before.tag_ in UNFINISHED)


_PICTOGRAPH_PARTS = frozenset({"So", "Sk", "Mn", "Cf"})
"""Unicode categories an emoji is written in: symbols, skin tones, variation selectors and
joiners."""


def pictograph(text: str) -> bool:
    """``text`` is one or more emoji (``🎂``, ``😂😂``, ``👍🏽``), nothing else."""
    return any(unicodedata.category(c) == "So" for c in text) and all(
        unicodedata.category(c) in _PICTOGRAPH_PARTS for c in text
    )
