"""A verb the parser takes for an auxiliary before a gerund is the clause's own verb.

The small parser reads ``I love canyoning`` as ``canyoning`` with ``love`` for its
auxiliary (as in ``I am canyoning``), so the clause says the speaker canyons and the
liking is lost; ``he loves checking out new trails`` the same. English auxiliaries are a
closed class (be, have, do, the modals and a few semi-modals); any other verb there is a
main verb taking the gerund as its complement, which is how the parser reads ``I enjoy
going on road trips``. This component runs after the parser and mends the tree to that
reading: the verb heads the clause, the gerund is its complement, the subject is the
verb's, and so are the clause's marks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

__all__ = ["AUXILIARIES", "COMPONENT", "add_to", "mend_main_verbs"]

COMPONENT = "longtalk_main_verbs"
"""The component's name in the pipeline."""
AUXILIARIES = frozenset(
    """
    be am is are was were been being
    have has had having
    do does did
    will would shall should can could may might must ought wo ca sha
    need needs dare get gets got gotten getting used going gon gotta
    """.split()
)
"""Word forms that are auxiliaries: every other word of letters alone the parser calls one
is mended (a contraction, ``'ll``, or a slip such as ``would't`` never is)."""
_FINITE_OR_BARE = frozenset({"VB", "VBP", "VBZ", "VBD"})
"""Tags of a verb said as a clause's verb (not ``to``, not the ``na`` of ``gonna``)."""
_CLAUSE_LINKS = frozenset({"ROOT", "ccomp", "xcomp", "conj", "advcl", "relcl"})
"""How a gerund the parser made a clause's head hangs in its sentence."""
_BEFORE_THE_VERB = frozenset({"nsubj", "nsubjpass", "aux", "auxpass", "neg", "advmod", "intj"})
"""The gerund's dependents that, said before the mended verb, are the verb's."""


def add_to(nlp: Language) -> None:
    """Put the component after the parser of ``nlp`` (once)."""
    from spacy.language import Language

    if not Language.has_factory(COMPONENT):
        Language.factory(COMPONENT, func=_component)
    if COMPONENT not in nlp.pipe_names:
        nlp.add_pipe(COMPONENT, after="parser")


def _component(nlp: Language, name: str) -> Callable[[Doc], Doc]:
    lemmatizer = nlp.get_pipe("lemmatizer")
    return lambda doc: mend_main_verbs(doc, lemmatizer.rule_lemmatize)  # type: ignore[attr-defined]


def mend_main_verbs(doc: Doc, lemmatize: Callable[[Token], list[str]]) -> Doc:
    """``doc`` with every verb taken for an auxiliary before a gerund made the clause's verb.

    ``lemmatize`` gives a token's lemmas by its part of speech (the pipeline's lemmatizer).
    """
    for token in doc:
        if _mistaken(token):
            _mend(token, lemmatize)
    return doc


def _mistaken(token: Token) -> bool:
    gerund = token.head
    return (
        token.dep_ == "aux"
        and token.tag_ in _FINITE_OR_BARE
        and token.lower_ not in AUXILIARIES
        and token.i < gerund.i
        and gerund.tag_ == "VBG"
        and gerund.dep_ in _CLAUSE_LINKS
        and token.is_alpha
    )


def _mend(verb: Token, lemmatize: Callable[[Token], list[str]]) -> None:
    gerund = verb.head
    for child in list(gerund.children):
        if (child.i < verb.i and child.dep_ in _BEFORE_THE_VERB) or child.dep_ == "punct":
            child.head = verb
    verb.head = verb if gerund.dep_ == "ROOT" else gerund.head
    verb.dep_ = gerund.dep_
    verb.pos_ = "VERB"
    verb.lemma_ = next(iter(lemmatize(verb)), verb.lower_)
    gerund.head = verb
    gerund.dep_ = "xcomp"
