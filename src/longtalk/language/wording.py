"""A clause's words, and its third-person rewrite where the parse supports one.

The rewrite names the speaker for ``I`` and makes ``my`` possessive; the verb that agrees
with ``I`` takes the third person from its lemma and tag (``am`` → ``is``, ``have`` →
``has``, ``love`` → ``loves``); a past tense or a modal is left as it is. Any other first or
second person word (``we``, ``me``, ``you``) leaves no rewrite: the quote stands instead.
So does a clause the parse cannot vouch for: a subject in the object case or running past
its verb, a question word leading it, a misspelt verb, a negation of another word, a title cut at
a quote mark. Nothing is rewritten by a text pattern, so a negation or a tense cannot be
lost.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from longtalk.language.nlp import entity_type
from longtalk.language.speakers import FIRST, GROUP, SECOND, Participants, a_participant

if TYPE_CHECKING:
    from spacy.tokens import Token

__all__ = [
    "clause_tokens",
    "comma_joined",
    "cuts_a_quote",
    "display_name",
    "rewrite",
    "third_person",
    "words_of",
]

_IRREGULAR = {"be": "is", "have": "has", "do": "does", "go": "goes"}
_CONTRACTED = {"'ll": "will", "'d": "would", "’ll": "will", "’d": "would"}
_LEADING = frozenset({"intj", "punct", "cc", "discourse", "advmod", "mark"})
"""Words before the subject a rewrite leaves out, whole (a leading ``As a diabetic`` stays)."""


def clause_tokens(head: Token) -> list[Token]:
    """The clause's tokens: ``head``'s subtree without conjoined clauses of their own.

    A clause's subject may be ``there`` (``... and there was a nest``), and a leading
    interjection (``Thanks, I've been ...``) is said to the listener, not of the claim.
    Punctuation is what the tokenizer says it is: the parser can label a last word
    ``punct`` (``no regrets``), and that word is still said.
    """
    cut: set[int] = set()
    for child in head.children:
        own = any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in child.children)
        if own and child.dep_ in ("ccomp", "parataxis") and child.i < head.i:
            cut.update(t.i for t in child.subtree)  # a leading clause of its own
        if child.i < head.i and (_set_off(child) or _spliced(child)):
            cut.update(t.i for t in child.subtree)
        if child.dep_ == "conj" and own:
            cut.update(t.i for t in child.subtree)
            cut.update(c.i for c in head.children if c.dep_ == "cc" and c.i < child.i)
        if child.i > head.i and (_trailing(child) or _asks_after(child)):
            cut.update(t.i for t in child.subtree)
    tokens = [t for t in head.subtree if t.i not in cut]
    while tokens and (tokens[-1].is_punct or tokens[-1].dep_ == "cc") and not _closes_quote(tokens):
        tokens.pop()
    while tokens and (tokens[0].is_punct or _joins(tokens[0], head)):
        tokens.pop(0)
    return tokens


def _set_off(interjection: Token) -> bool:
    """``Thanks,`` ``Oh wow,``: said to the listener; ``Please never ring me`` keeps its please."""
    after = interjection.right_edge.i + 1
    doc = interjection.doc
    return interjection.dep_ == "intj" and after < len(doc) and doc[after].is_punct


def _spliced(clause: Token) -> bool:
    """A finite clause the parser hung under the next with no word joining them.

    ``Had to cancel the picnic, my buddy is allergic to bees``: two sentences run on, the
    first no part of the second's claim (``because I had to`` would join them).
    """
    finite = clause.tag_ in ("VBD", "VBZ", "VBP")
    return clause.dep_ == "advcl" and finite and not any(c.dep_ == "mark" for c in clause.children)


def _trailing(clause: Token) -> bool:
    """A verb phrase of its own run on after a comma: ``I don't have a hamster, was joking``.

    Its subject left out, it says something else of the speaker (``, never have``, ``, was
    just messing with you``); ``I cook, clean and shop`` shares one claim (no auxiliary or
    negation of its own).
    """
    doc = clause.doc
    start = clause.left_edge.i
    after_comma = start > 0 and doc[start - 1].text == ","
    verb = clause.pos_ in ("VERB", "AUX") and clause.dep_ in ("conj", "dep", "parataxis")
    own = any(c.dep_ in ("aux", "auxpass", "neg") and c.i < clause.i for c in clause.children)
    return after_comma and verb and own


def _asks_after(clause: Token) -> bool:
    """A question run on after a comma: ``I don't eat pork, so maybe not the bbq place?``."""
    doc = clause.doc
    end = clause.right_edge.i + 1
    return end < len(doc) and doc[end].text == "?" and comma_joined(clause)


def comma_joined(clause: Token) -> bool:
    """A clause joined to the one it hangs on by a comma after it: ``..., so not the bbq``."""
    doc = clause.doc
    joined = clause.dep_ in ("conj", "parataxis") and clause.i > clause.head.i
    return joined and any(t.text == "," for t in doc[clause.head.i : clause.left_edge.i])


def _joins(token: Token, head: Token) -> bool:
    """``because``, ``since``: the word that joins a clause to another is not the clause's."""
    return token.dep_ == "mark" and token.head == head and head.dep_ == "advcl"


def _closes_quote(tokens: Sequence[Token]) -> bool:
    """The last token closes a quotation the clause opened (``"The Alchemist"``)."""
    last = tokens[-1].text
    if last not in _QUOTES:
        return False
    return sum(t.text == last for t in tokens) % 2 == 0 or (
        last == "”" and any(t.text == "“" for t in tokens)
    )


_QUOTES = frozenset({'"', "”"})


def words_of(tokens: Iterable[Token]) -> str:
    """Tokens as written, in order, their own spacing kept."""
    ordered = sorted(tokens, key=lambda t: t.i)
    if not ordered:
        return ""
    parts = []
    for token, after in zip(ordered, [*ordered[1:], None], strict=True):
        gap = after is not None and after.i != token.i + 1 and not token.whitespace_
        parts.append(token.text + (" " if gap else token.whitespace_))
    return "".join(parts).strip(" ,;:-")


def display_name(holder: str, *, first: bool) -> str:
    """``The user`` (``the user`` inside a sentence) for an unnamed user, else the name."""
    if holder.casefold() == "user":
        return "The user" if first else "the user"
    return holder


def rewrite(tokens: Sequence[Token], head: Token, people: Participants) -> str:
    """The clause in the third person, or ``""`` when the parse does not support one.

    The speaker is named once at most: ``I have to watch my sugar`` is quoted as said.
    """
    subject = next((t for t in tokens if t.dep_ in ("nsubj", "nsubjpass") and t.head == head), None)
    if subject is None or not _rewritable(subject, head) or _closed_by_a_question_mark(tokens):
        return ""
    begins = subject.left_edge.i  # "my limit is ...": the subject with its own words
    dropped = {
        t.i
        for child in head.children
        if child.i < begins and child.dep_ in _LEADING
        for t in child.subtree
    }
    start = next((i for i, t in enumerate(tokens) if t.i >= begins or t.i not in dropped))
    if any(t.text in (":", ",", "-") for t in tokens[start:] if t.i < begins):
        start = next(i for i, t in enumerate(tokens) if t.i >= begins)  # "Big news: I..."
    kept = [t for t in tokens[start:] if not _spoken_to(t, people)]
    if any(t.dep_ == "neg" and t.head != head for t in kept):
        return ""  # a negation of another word ("... of my own shouldn't I."): placed as said
    others = [t for t in kept if t != subject and t.lower_ in (FIRST | GROUP | SECOND)]
    if any(t.lower_ != "my" for t in others) or subject.lower_ in (GROUP | SECOND):
        return ""
    if (subject.lower_ == "i") + len(others) > 1:  # each other word is a "my" by now
        return ""  # "Ana has to watch Ana's sugar" names the speaker twice: quoted instead
    agreeing = _agreeing(head) if subject.lower_ == "i" else None
    if subject.lower_ == "i" and agreeing is None:
        return ""
    as_past = agreeing is not None and agreeing.tag_ == "VBP" and agreeing.lower_ in _SAME_IN_PAST
    if as_past and not _past_dated(tokens):
        return ""  # "I quit smoking": now or then? the speaker's words say it best
    # conjoined verbs agree with "I" only when the head does; after an auxiliary ("I can swim
    # and run") they follow the auxiliary and stay as said
    sharing = (
        {c.i for c in head.conjuncts if c.i > head.i and _shares_subject(c)}
        if agreeing == head
        else set()
    )  # every conjunct down the list ("use ..., visualize goals and tokenize successes")
    parts = []
    for token in kept:
        word = token.text
        if token == subject and subject.lower_ == "i":
            word = display_name(people.speaker, first=token == kept[0])
        elif token.lower_ == "my":
            word = display_name(people.speaker, first=token == kept[0]) + "'s"
        elif token == agreeing and as_past:
            pass  # "I quit smoking last year": a past form like the present (quit, put, cut)
        elif token == agreeing or (agreeing is not None and token.i in sharing):
            word = third_person(token)
            word = (" " + word) if token.text.startswith(("'", "’")) else word
        elif token.lower_ in _CONTRACTED and token.i == subject.i + 1:
            word = " " + _CONTRACTED[token.lower_]  # "I'll" -> "Joanna will"
        parts.append(word + token.whitespace_)
    text = "".join(parts).strip().rstrip(",;:-–—").rstrip()
    if cuts_a_quote(text):
        return ""  # a title cut at its opening quote: 'The Santa Clause" is a classic.'
    end = "" if text.endswith((".", "!", "?")) else "."
    return text[:1].upper() + text[1:] + end


_FUSED = frozenset({"wanna", "gonna", "gotta", "hafta", "oughta", "tryna"})
"""A verb fused with its ``to``, said as one word: it has no third person of its own."""
_NO_SUBJECT = (FIRST - {"i"}) | frozenset({"us", "him", "her", "them"})
"""Words that are no sentence's subject as said: an object case (``let me look``) or a
possessive (``mine is small``)."""


def _rewritable(subject: Token, head: Token) -> bool:
    """Whether the parse supports a sentence of the clause's own, else its words are quoted.

    Not when the subject is in the object case (``let me look into their classes``: no
    sentence of its own) or a possessive (``mine is small``), when a question word leads
    the clause (``how much I've developed``, said as part of another; a relative ``where I
    work as a nurse`` is whole), or when the subject's words run past the verb (``I looked
    at flights: Berlin to Lisbon ...``, the list hung on ``I``).
    """
    if subject.lower_ in _NO_SUBJECT:
        return False
    asked = any(t.tag_ in ("WRB", "WP", "WDT") and t.i < subject.i for t in head.subtree)
    if asked and head.dep_ != "relcl":
        return False  # "how much I've developed": a clause of another's, no sentence
    return subject.right_edge.i <= head.i


def _closed_by_a_question_mark(tokens: Sequence[Token]) -> bool:
    """The clause's words run up to a ``?``: a rewrite would end a question with a full stop.

    ``I never really asked, what breed is Toby?`` is quoted as said.
    """
    if not tokens:
        return False
    doc, after = tokens[-1].doc, tokens[-1].i + 1
    return after < len(doc) and doc[after].text == "?"


def cuts_a_quote(text: str) -> bool:
    """``text`` holds one quote mark of a pair: words cut out of a quoted title."""
    return bool(text.count('"') % 2) or text.count("“") != text.count("”")


def _spoken_to(token: Token, people: Participants) -> bool:
    """A participant named after a comma (``I understand, Joanna``).

    Said to them, it is no part of the claim.
    """
    doc = token.doc
    after_comma = token.i > 0 and doc[token.i - 1].text == ","
    alone = all(c.dep_ in ("punct", "cc") for c in token.children)
    return token.pos_ == "PROPN" and after_comma and alone and a_participant(token, people)


_PAST_MARKS = frozenset({"last", "ago", "yesterday", "earlier", "previously"})
"""Words of a time phrase that place it in the past."""
_SAME_IN_PAST = frozenset(
    {"quit", "put", "set", "cut", "let", "hit", "hurt", "shut", "cost", "spread", "split", "read"}
)
"""Verbs whose past is spelled as their present: ``I quit`` may be either."""


def _past_dated(tokens: Sequence[Token]) -> bool:
    """The clause carries a date in the past (``last year``, ``two years ago``)."""
    return any(t.lower_ in _PAST_MARKS and (entity_type(t) or t.dep_ == "advmod") for t in tokens)


def _shares_subject(verb: Token) -> bool:
    """A conjoined present verb with no subject or auxiliary of its own.

    ``I work late and sleep in``: yes; ``working with them would be cool``: no, it has its
    own (clausal) subject and modal.
    """
    own = any(c.dep_ in _OWN_SUBJECT_OR_AUX for c in verb.children)
    return not own and verb.tag_ in ("VBP", "VB")


_OWN_SUBJECT_OR_AUX = frozenset(
    {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl", "aux", "auxpass"}
)


def _agreeing(head: Token) -> Token | None:
    """The word that agrees with ``I``: the first auxiliary, else the verb; None if unknown.

    A contraction (``'m``, ``'ve``) agrees; a word neither a contraction nor alphabetic is
    none the parse can inflect.
    """
    auxes = [c for c in head.children if c.dep_ in ("aux", "auxpass") and c.i < head.i]
    verb = auxes[0] if auxes else head
    if not (verb.is_alpha or verb.text.startswith(("'", "’"))):
        return None  # a misspelt form ("I would't want"): nothing to inflect it from
    if verb.lower_ in _FUSED or (
        not verb.whitespace_ and verb.i + 1 < len(verb.doc) and verb.nbor().is_alpha
    ):
        return None  # "wanna", or one word split in two ("wan|na"): no form to inflect
    if verb.tag_ in ("VBD", "MD", "VBP", "VB") or verb.lower_ in ("ca", "wo"):
        return verb
    return None


def third_person(verb: Token) -> str:
    """The third person singular of a present verb (``am`` → ``is``, ``try`` → ``tries``).

    A past tense or a modal is the same in every person.
    """
    if verb.tag_ in ("VBD", "MD") or verb.lower_ in ("ca", "wo"):
        return _CONTRACTED.get(verb.lower_, verb.text)
    lemma = verb.lemma_.lower()
    if lemma in _IRREGULAR:
        return _IRREGULAR[lemma]
    if lemma.endswith(("s", "sh", "ch", "x", "z", "o")):
        return lemma + "es"
    if lemma.endswith("y") and len(lemma) > 1 and lemma[-2] not in "aeiou":
        return lemma[:-1] + "ies"
    return lemma + "s"
