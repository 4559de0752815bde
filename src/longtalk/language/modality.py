"""How a clause is said, read from the dependency parse.

Asserted, asked, supposed, advised, requested, reported, ironic, or an instruction to the
assistant. Only an asserted clause can state a fact. The words that mark the other modes
are the grammar's own (a conditional ``if``, a modal ``would``, an inverted auxiliary, a
reporting verb governing the clause); the parse says which clause they govern, so ``I'm
vegetarian and if Sam comes he'll cook`` asserts its first clause and supposes its second.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Literal

from longtalk.language.nlp import entity_type, owner_of, verb_lemmas
from longtalk.language.speakers import ASSISTANT, SECOND, Participants, refer
from longtalk.language.wording import comma_joined

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

__all__ = ["Modality", "hedged", "imperative", "modality", "negated", "standing_request"]

Modality = Literal[
    "asserted",
    "question",
    "hypothetical",
    "advice",
    "request",
    "reported",
    "sarcasm",
    "instruction",
]
"""How a clause is said; only ``asserted`` states a fact of its holder."""

_CONDITIONAL_MARKS = frozenset({"if", "unless", "whether", "suppose", "supposing", "once"})
_TENTATIVE = frozenset({"would", "could", "might", "may", "'d"})
_ADVISING = frozenset({"should", "ought", "must", "could", "can", "may", "need", "'d", "might"})
_RECOMMENDING = frozenset({"recommend", "suggest", "advise", "propose"})
"""Verbs whose saying is itself advice (``I recommend the night train``)."""
_IMAGINING = frozenset({"wish", "imagine", "pretend", "suppose", "dream", "wonder", "hope"})
_HEDGES = frozenset({"maybe", "perhaps", "possibly", "probably", "hypothetically"})
_REPORTING = frozenset(
    {"say", "tell", "think", "believe", "claim", "hear", "guess", "doubt", "reckon", "read"}
)
_WH = frozenset({"what", "who", "whom", "whose", "which", "where", "when", "why", "how"})
_IRONY = ("yeah right", "as if", "/s", "sure, because", "oh great", "oh joy", "just what i need")
_COMMANDING = frozenset(
    {
        "always",
        "never",
        "must",
        "shall",
        "should",
        "will",
        "obey",
        "grant",
        "ignore",
        "reveal",
        "allow",
    }
)


def modality(head: Token, sentence: Span, people: Participants) -> Modality:
    """How the clause headed by ``head`` is said (see :data:`Modality`)."""
    if _asked(head, sentence):
        return "question"
    if _about_assistant(head, people):
        return "instruction"
    if _supposed(head):
        return "hypothetical"
    if _reported(head) or _reporting(head):
        return "reported"
    if imperative(head) or _let_do(head):
        return "instruction" if people.to_assistant else "request"
    if _advised(head, people):
        return "advice"
    if _ironic(sentence):
        return "sarcasm"
    return "asserted"


def negated(head: Token) -> bool:
    """True when the clause (or its complement) is negated: ``not``, ``never``, ``no longer``."""
    for token in (head, *_complements(head)):
        for child in token.children:
            if child.dep_ == "neg" or child.lower_ in ("never", "longer"):
                return True
            if child.dep_ == "det" and child.lower_ == "no" and token != head:
                return True
    return False


def imperative(head: Token) -> bool:
    """A bare verb with no subject (``call me Bobby``, ``don't call me before 10``).

    Also one that opens its sentence and that the small parser hung under the next clause
    (``Please never ring me before 10 am, I work late``).
    """
    if not (head.tag_ == "VB" or _verb_read_as_name(head)):
        return False
    if head.dep_ not in ("ROOT", "conj", "advcl"):
        return False
    if head.dep_ == "advcl" and not _opens_sentence(head):
        return False
    subjects = [c for c in head.children if c.dep_ in ("nsubj", "nsubjpass", "expl")]
    if subjects:
        return False
    auxes = [c.lower_ for c in head.children if c.dep_ in ("aux", "auxpass")]
    return all(a in ("do", "don't", "n't", "not", "please") for a in auxes)


def _verb_read_as_name(head: Token) -> bool:
    """``Book the surf lesson``: a capitalised verb opening its sentence, tagged as a name.

    The small tagger reads a sentence's capitalised first word as a name more often than a
    verb; a word the lemmatizer knows as a verb, with a determiner straight after it, is no
    name (a name takes no object): it is the verb of a command.
    """
    doc = head.doc
    after = doc[head.i + 1] if head.i + 1 < len(doc) else None
    return (
        head.tag_ == "NNP"
        and head.i == head.sent.start
        and after is not None
        and after.tag_ in ("DT", "PRP$")
        and head.lower_ in verb_lemmas()
    )


_LET_DO = frozenset({"me", "him", "her", "them"})
"""Subjects of what a request lets someone do. Not ``us``: ``let us raise the budget`` (as
``let's``) says what the speaker and theirs decide."""


def _let_do(head: Token) -> bool:
    """The complement of a bare verb whose subject is in the object case: ``let me know``.

    ``Let me know if you need advice`` asks; what it asks is no statement of the speaker's.
    (``Remember I'm vegan`` is not one: its complement's subject is ``I``.)
    """
    return (
        head.dep_ in ("ccomp", "xcomp")
        and imperative(head.head)
        and any(c.dep_ == "nsubj" and c.lower_ in _LET_DO for c in head.children)
    )


def _opens_sentence(head: Token) -> bool:
    """Only an interjection, a negation or an auxiliary stands before ``head`` in its sentence."""
    before = head.doc[head.sent.start : head.i]
    return head.i < head.head.i and all(t.dep_ in ("intj", "neg", "aux", "punct") for t in before)


def standing_request(head: Token) -> bool:
    """A request of how to treat the speaker that holds beyond the moment.

    The speaker is its object (``me``), and it is bounded in time or always so: ``Don't
    call me after 9 pm``, ``Never send me voice notes``. Naming the speaker (``Call me
    Jojo``) is not one: what someone is called is theirs to state, not a request's.
    """
    if not imperative(head):
        return False
    children = list(head.children)
    if not any(c.dep_ in ("dobj", "dative") and c.lower_ == "me" for c in children):
        return False
    if any(c.dep_ in ("oprd", "attr", "xcomp", "ccomp", "acomp") for c in children):
        return False
    always = any(c.dep_ == "neg" or c.lower_ in ("always", "anytime") for c in children)
    timed = any(
        c.dep_ == "prep"
        and any(t.like_num or entity_type(t) in ("TIME", "DATE") for t in c.subtree)
        for c in children
    )
    return always or timed


def _complements(head: Token) -> list[Token]:
    return [c for c in head.children if c.dep_ in ("acomp", "attr", "oprd", "dobj", "xcomp")]


def _about_assistant(head: Token, people: Participants) -> bool:
    """The clause speaks of what the assistant is or must do.

    A subject, object or owner in the clause that is the AI assistant (the word, or "you"
    said to one), together with a verb or modal of command (``must``, ``always``, ``obey``)
    or the assistant as the clause's own subject.
    """
    for token in head.subtree:
        if token.dep_ not in ("nsubj", "nsubjpass", "dobj", "dative", "pobj", "poss", "appos"):
            continue
        if token.lower_ in SECOND and not people.to_assistant:
            continue
        who = refer(token, people)
        if who is None or not who.is_assistant:
            continue
        if token.lower_ not in SECOND and owner_of(token) is not None:
            continue  # "my assistant at work": a person
        if token.head == head or _commanding(token.head):
            return True
    return False


def _commanding(verb: Token) -> bool:
    words = {verb.lemma_.lower(), *(c.lower_ for c in verb.children)}
    return bool(words & _COMMANDING)


def _asked(head: Token, sentence: Span) -> bool:
    """A question: a ``?`` closing the clause, an inverted auxiliary, a leading wh-word.

    The ``?`` closes the clause when it follows the clause's last word or ends its own words
    (a question it frames, ``I never really asked, what breed is Toby?``), but not when it
    closes a clause joined to it (``I don't eat pork, so not the bbq?``).
    """
    last = max(t.i for t in head.subtree)
    after = head.doc[last + 1] if last + 1 < len(head.doc) else None
    if after is not None and after.text == "?":
        return True
    closing = head.doc[last]
    if closing.text == "?" and _closes(closing, head) and not _asked_after(head, closing):
        return True  # "I never really asked, what breed is Toby?": its own words close it
    tag = head.head
    if head.dep_ == "ccomp" and head.i < tag.i and _tag_question(tag, head):
        return any(c.text == "?" for c in tag.children)  # "You're vegetarian, aren't you?"
    subject = next((c for c in head.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    aux = next((c for c in head.children if c.dep_ in ("aux", "auxpass")), None)
    verb_first = head.lemma_ in ("be", "do", "have") and subject is not None
    if verb_first and subject is not None and head.i < subject.i and head.i == _clause_start(head):
        return sentence.text.rstrip().endswith("?")
    if aux is not None and subject is not None and aux.i < subject.i:
        return aux.i == _clause_start(head)
    first = head.doc[_clause_start(head)]
    return first.lower_ in _WH and sentence.text.rstrip().endswith("?")


def _closes(mark: Token, head: Token) -> bool:
    """``mark`` hangs on ``head`` or on a question ``head`` frames (its complement).

    Not on a clause joined to it: ``had to drop Priya at practice and the lot was chaos,
    anyway what were you saying?`` asks nothing of the drop.
    """
    clause = mark.head
    while clause != head and clause.dep_ == "ccomp" and clause.head != clause:
        clause = clause.head
    return clause == head


def _asked_after(head: Token, mark: Token) -> bool:
    """The ``?`` closes a clause run on after this one: ``I don't eat pork, so not the bbq?``.

    ``I love sushi, do you?`` asks of the listener only. A tag (``right?``, ``aren't
    you?``: a word, or an auxiliary and the clause's own subject) asks the clause itself.
    """
    return any(
        comma_joined(c)
        and c.i < mark.i
        and sum(t.is_alpha for t in c.subtree) >= 2
        and not _tag_question(c, head)
        for c in head.children
    )


def _tag_question(verb: Token, asked: Token) -> bool:
    """``right?``, ``aren't you?``: one word, or an auxiliary and the asked clause's subject."""
    inside = range(asked.left_edge.i, asked.right_edge.i + 1)
    if sum(t.is_alpha and t.i not in inside for t in verb.subtree) == 1:
        return verb.pos_ not in ("VERB", "AUX")  # "right?"; "remember?" reminds, it asks nothing
    rest = [c for c in verb.children if c.dep_ not in ("ccomp", "punct", "neg")]
    subject = next((c for c in asked.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    same = len(rest) == 1 and rest[0].dep_ == "nsubj"
    same = same and subject is not None and rest[0].lower_ == subject.lower_
    return same and verb.pos_ in ("AUX", "VERB") and verb.lemma_ in _TAG_VERBS


_TAG_VERBS = frozenset({"be", "do", "have", "can", "will", "would", "could", "should"})


def _clause_start(head: Token) -> int:
    own = [t.i for t in head.subtree if t.dep_ not in ("punct", "cc", "intj", "advmod")]
    return min(own, default=head.i)


def _supposed(head: Token) -> bool:
    """Conditional, wished, imagined or hedged: ``if I were``, ``I'd love``, ``maybe I'll``."""
    token: Token | None = head
    while token is not None:
        marks = {c.lower_ for c in token.children if c.dep_ == "mark"}
        if marks & _CONDITIONAL_MARKS:
            return True
        if token != head and token.lemma_.lower() in _IMAGINING:
            return True
        if any(_hedges(c, head) for c in token.children):
            return True
        token = token.head if token.head != token else None
    auxes = {c.lower_ for c in head.children if c.dep_ == "aux"}
    if auxes & _WOULD and _preferring(head):
        return False
    return bool(auxes & _TENTATIVE) or head.lemma_.lower() in _IMAGINING


def _hedges(word: Token, head: Token) -> bool:
    """``word`` hedges ``head``'s clause: a hedge of it, or of a clause above said before it.

    ``maybe I'll go and buy it`` hedges the buying too. A hedge said after the clause hedges
    what follows it: in ``I'm lactose intolerant so maybe not the fondue place`` the
    intolerance is asserted.
    """
    if word.dep_ != "advmod" or word.lower_ not in _HEDGES:
        return False
    return word.head == head or word.i < head.left_edge.i


_WOULD = frozenset({"would", "'d"})
_PREFERRING = frozenset({"rather", "sooner", "always"})


def _preferring(head: Token) -> bool:
    """``would`` with ``rather`` or ``always`` says a preference or a habit, not a supposition.

    ``I'd rather walk``, ``I'd always pick tea``.
    """
    return any(c.dep_ == "advmod" and c.lower_ in _PREFERRING for c in head.children)


def _reporting(head: Token) -> bool:
    """The clause reports another's words or thoughts: ``my mom says I'm stubborn``."""
    told = any(c.dep_ == "ccomp" for c in head.children)
    return told and head.lemma_.lower() in _REPORTING


def _reported(head: Token) -> bool:
    """Governed by a reporting verb (``Sam says I'm stubborn``, ``I think I'm allergic``).

    Not when the verb is the speaker's own afterthought (:func:`hedged`).
    """
    for clause, verb in _reporting_verbs(head):
        if not _asks_listener(verb):
            return not _run_on(clause, verb) and not _afterthought(clause, verb)
    return False


def hedged(head: Token) -> bool:
    """The speaker's own ``I guess`` or ``I think`` after the clause: ``vegan now I guess``.

    The clause is still theirs to assert, hedged; quoted, the hedge stays with it. Said
    before the clause (``I think I'm allergic``) the verb frames a belief, and the clause
    is reported.
    """
    framing = next(_reporting_verbs(head), None)
    return framing is not None and _afterthought(*framing)


def _reporting_verbs(head: Token) -> Iterator[tuple[Token, Token]]:
    """Each reporting verb up ``head``'s chain of complements, with the clause it governs."""
    token = head
    while token.dep_ in ("ccomp", "conj") and token.head != token:
        clause, token = token, token.head
        if token.lemma_.lower() in _REPORTING:
            yield clause, token


def _afterthought(clause: Token, verb: Token) -> bool:
    """``verb`` follows ``clause``, right after its subject ``I``, and says nothing else."""
    if clause.i > verb.i or verb.i == 0:
        return False
    before = verb.doc[verb.i - 1]
    others = [c for c in verb.children if c.dep_ in ("dobj", "xcomp", "prep", "dative")]
    return before.lower_ == "i" and before.head == verb and before.dep_ == "nsubj" and not others


def _run_on(clause: Token, verb: Token) -> bool:
    """A clause before a saying verb that has an object of its own is not what it says.

    ``I'm not training for anything, I said that to sound cool``: ``that`` is what was said
    (earlier); ``I'm stubborn, Sam says`` reports the clause.
    """
    return clause.i < verb.i and any(c.dep_ == "dobj" for c in verb.children)


def _asks_listener(verb: Token) -> bool:
    """``can you believe it``, ``you know``: a tag to the listener, not a report."""
    subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    return subject is not None and subject.lower_ in SECOND


def _advised(head: Token, people: Participants) -> bool:
    """The listener told what they might do.

    ``You should try yoga``, ``you can use coconut oil``, ``I recommend the night train``.
    """
    subject = next((c for c in head.children if c.dep_ == "nsubj"), None)
    if subject is None:
        return False
    if subject.lower_ == "i" and head.lemma_.lower() in _RECOMMENDING and head.tag_ == "VBP":
        return True
    if subject.lower_ not in SECOND:
        return False
    auxes = {c.lower_ for c in head.children if c.dep_ == "aux"}
    return bool(auxes & _ADVISING) or people.listener == ASSISTANT


def _ironic(sentence: Span) -> bool:
    text = sentence.text.lower()
    return any(marker in text for marker in _IRONY)
