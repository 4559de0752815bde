"""Reported speech for the offline narrative: what each participant said, asked or suggested.

A summary a person reads says ``Ann asks whether Bob wants to go`` and ``Ann tells Bob to
bring the tickets``, not ``Ann asks: do Bob want to go?`` or ``Ann: bring the tickets``.
So a spoken sentence is told as:

- a question: ``asks whether`` (``Do you want to go?``), ``asks Bob how`` (``How do we get
  there?``), ``asks Bob to`` (``Can you help me?``), ``suggests`` (``How about tea?``,
  ``Why don't we go?``), ``offers`` (``Would you like tea?``, ``Shall I call?``);
- an order, advice or a proposal: ``tells Bob to`` (``Bring the tickets``), ``advises Bob
  to`` (``You should rest``), ``suggests they`` (``Let's go``);
- a statement about the speaker as it stands (``Ann is tired``);
- any other statement: ``Ann tells Bob the train is late`` (``says`` for a remark about the
  listener, an exclamation, or when only an assistant listens).

Like the third-person rewriting it builds on, this is a small rule set, not a parser: a
question it cannot turn keeps its words (``Ann asks: Mr. White?``).
"""

from __future__ import annotations

import re

from longtalk.summary.offline_details import is_ai_assistant
from longtalk.summary.offline_text import (
    NOBODY,
    STOPWORDS,
    Sentence,
    inflect,
    lower_first,
    pronouns_resolved,
    strip_interjections,
    upper_first,
)

__all__ = ["reported"]

_PRONOUN = r"(?i:you|I|we|they|he|she|it|there|this|that)"
_SUBJECT = rf"(?:{_PRONOUN}|(?:Mr|Mrs|Ms|Dr)\.\s[A-Z][\w'-]+|[A-Z][a-z][\w'-]*)"
_BE = {"am": "is", "are": "is", "is": "is", "was": "was", "were": "was"}
_PLURAL_BE = {"am": "are", "are": "are", "is": "are", "was": "were", "were": "were"}
_MODALS = frozenset("can could will would should may might must shall".split())
_HAVE = frozenset("have has had".split())
_AUX = "(?i:" + "|".join(["do", "does", "did", *_BE, *_MODALS, *_HAVE]) + ")"
_YES_NO = re.compile(rf"^(?P<aux>{_AUX})\s+(?P<subject>{_SUBJECT})\b\s*(?P<rest>.*)$")
_YES_NO_NOUN = re.compile(
    r"^(?P<aux>do|does|did)\s+(?P<subject>(?:this|that|these|those|the|your|my|our|his|her"
    r"|their)\s[a-z]+(?<!ing))\s+(?P<rest>[a-z]+\b.*)$",
    re.I,
)
"""``Does this bus go…?``, ``Did your bid win?``: a subject with its determiner."""
_WH = r"(?i:what|where|when|why|how|who|whom|whose|which)"
_WH_INVERTED = re.compile(
    rf"^(?P<wh>{_WH}(?:\s+[a-z]+){{0,3}}?)\s+(?P<aux>{_AUX})\s+(?P<subject>{_SUBJECT})\b"
    r"\s*(?P<rest>.*)$"
)
_WH_BE_END = re.compile(
    rf"^(?P<wh>{_WH}(?:\s+[a-z]+){{0,2}}?)\s+(?P<aux>is|are|was|were)\s+(?P<subject>"
    r"(?:the|your|my|his|her|their|our|this|that|these|those)\s+[\w' -]+)$",
    re.I,
)
_ABOUT = re.compile(r"^(?P<wh>how|what) about\s+(?P<rest>.+)$", re.I)
_REQUEST = re.compile(r"^(?:can|could|will|would)\s+you\s+(?:please\s+)?(?P<rest>.+)$", re.I)
_NOT_REQUEST = re.compile(r"^(?:like|mind|be|have|prefer|rather|say|think|know)\b", re.I)
_PROPOSAL = re.compile(
    r"^(?:why don't (?P<who>we|you)|what do you say(?: we)?|shall (?P<shall>we|I))"
    r"\s+(?!(?:like|mind|know|think|understand|want|believe)\b)(?P<rest>.+)$",
    re.I,
)
"""A proposal worded as a question: ``Why don't you try?``, ``Shall we go?``."""
_ADVICE = re.compile(
    r"^you(?:'d| had)? (?P<how>should|better|ought to|must|have to|need to)\s+(?!not\b|be\b)"
    r"(?P<rest>[a-z].+)$",
    re.I,
)
"""Advice or an order put as a statement: ``You should rest``, ``You have to sign here``."""
_ADVISING = frozenset(("should", "better", "ought to"))
_OFFER = re.compile(r"^would you (?:like|care for)\s+(?P<rest>.+)$", re.I)
"""``Would you like some tea?`` offers it; ``Would you like to…`` asks what they want."""
_LEAVE = re.compile(r"^(?:can|could|may)\s+I\s+(?P<rest>.+)$", re.I)
_LETS = re.compile(r"^let's\s+(?P<rest>.+)$", re.I)
_IMPERATIVE = re.compile(
    r"^(?:please\s+)?(?P<verb>make sure|don't|do not|remember|take|bring|call|tell|give|try"
    r"|send|check|keep|wait|come|go|stop|put|be|don't forget|fill|sign|follow|turn"
    r"|pick|leave|pay|show|let me|get|help|meet|sit|hurry|enjoy|buy|book|ask|read|write"
    r"|look at)\b"
    r"\s*(?P<rest>.*)$",
    re.I,
)
_TAG = re.compile(
    r",\s*(?:isn't|aren't|wasn't|weren't|don't|doesn't|didn't|won't|can't|haven't|hasn't"
    r"|right|ok|okay|eh)\s*(?:it|you|they|he|she|we|I|there)?\s*\?$",
    re.I,
)
_VOCATIVE_WORDS = r"honey|dear|darling|sweetheart|sweetie|sir|madam|ma'am|mom|mum|dad|buddy|guys"
_VOCATIVE = re.compile(
    r"^(?:(?i:wow|oh|hey|hi|hello|well|yes|yeah|no|sorry|ok|okay|aw|ah|haha|gosh|man)[,!]?\s+)*"
    rf"(?:(?i:{_VOCATIVE_WORDS}|waiter|waitress|doctor|officer|everyone|everybody)"
    r"|(?:Mr|Mrs|Ms|Dr)\.\s[A-Z][\w'-]+|(?P<name>[A-Z][a-z]+)),\s+(?=[\w'])"
)
_VOCATIVE_END = re.compile(
    rf",\s+(?:(?i:{_VOCATIVE_WORDS})|(?:Mr|Mrs|Ms|Dr)\.\s[A-Z][\w'-]+|[A-Z][a-z]+(?=\?$))"
    r"(?=[.!?]$)"
)
_THANKS = re.compile(
    r"^(?:thanks|thank you)(?: (?:so|very) much| a lot)?,? for (?P<rest>.+)$", re.IGNORECASE
)
_HEDGES = re.compile(
    r",?\s(?:you know|I mean|kind of|sort of)\b,?|\s(?:really|just|actually|so much)\b"
    r"|\s(?:very|pretty|quite|terribly)(?=\s(?!much|well|few|little)[a-z]+\b)"
    r"|,\s(?:please|then|obviously|anyway|though)(?=[.!?]$)"
    r"|^(?:so|and|but|now|actually|anyway|honestly|oh|besides|you see|you know|I mean|look"
    r"|listen),\s"
    r"|^(?:so|and|but|also|plus)\s(?=(?:I|I'm|I've|we|you|my|our|the|this|that)\b)"
    r"|^(?:and|but|also|plus|besides)\s(?=[a-z])"
    r"|^(?:I'm|I am) afraid(?: that)?,?\s(?!of\b|to\b|so\b|not\b)",
    re.IGNORECASE,
)
_WE = (
    (r"\bwe're\b", "they're"),
    (r"\bwe've\b", "they've"),
    (r"\bwe'll\b", "they'll"),
    (r"\bwe\b", "they"),
    (r"\bus\b", "them"),
    (r"\bour\b", "their"),
    (r"\bourselves\b", "themselves"),
)
_NO_S = frozenset("just really also still never always already only often usually ever".split())
_PAST = dict(
    pair.split(":")
    for pair in """be:was have:had do:did go:went come:came see:saw get:got make:made take:took
    give:gave find:found tell:told say:said think:thought buy:bought bring:brought eat:ate
    drink:drank leave:left meet:met pay:paid send:sent spend:spent sleep:slept feel:felt
    keep:kept hear:heard know:knew lose:lost win:won write:wrote read:read run:ran sit:sat
    stand:stood put:put cut:cut let:let begin:began break:broke choose:chose drive:drove
    fly:flew forget:forgot grow:grew hold:held wear:wore sell:sold teach:taught catch:caught
    fall:fell understand:understood become:became swim:swam sing:sang speak:spoke""".split()
)


_PLAIN = (
    (r"\b(?:I'd|I would) like\b", "I want"),
    (r"\b(?:we'd|we would) like\b", "we want"),
    (
        r"\b(I|we)(?:'m| am|'re| are) (?:going to|gonna) (?=(?:" + "|".join(_PAST) + r")\b)",
        r"\1'll ",
    ),
)
"""Said plainly in a summary: ``I'd like`` -> ``wants``, ``I'm going to call`` -> ``will call``."""


def reported(sentence: Sentence) -> str:
    """``sentence`` told in the third person as reported speech (see the module docstring)."""
    me, you = sentence.speaker, sentence.addressee or NOBODY
    if me and (thanks := _THANKS.match(_without_vocative(sentence.text, you))):
        return f"{me} thanks {you} for {_told(_HEDGES.sub('', thanks['rest']), me, you)}"
    text = _without_vocative(strip_interjections(sentence.text), you)
    text = _trimmed(strip_interjections(text))
    if not me:
        return text
    if _TAG.search(text):
        return _statement(_TAG.sub(".", text).strip(), me, you)
    if text.endswith("?"):
        lead, _, asked = text.rpartition(", but ")
        if lead and (_YES_NO.match(asked) or _WH_INVERTED.match(asked)):
            said = _statement(lead, me, you)
            return f"{said}, but {_question(asked.rstrip('?!. '), me, you).removeprefix(me + ' ')}"
        return _question(text.rstrip("?!. "), me, you)
    return _statement(text, me, you)


def _question(text: str, me: str, you: str) -> str:
    """A question as reported speech; failing that, its last clause or its statement form.

    ``If you go out, would you close the window?`` is told from its question
    (``asks Bob to close the window``); ``They come to the earth?`` as ``asks whether they
    come to the earth``. What none of these fit keeps its words (``asks: Mr. White?``).
    """
    _, comma, tail = text.rpartition(", ")
    for asked in (text, upper_first(tail) if comma else ""):
        if asked and (told := _turned(asked, me, you)):
            return told
    if _DECLARATIVE_QUESTION.match(text):
        return _asking(me, you, "whether ", _told(lower_first(text), me, you))
    return f"{me} asks: {_told(lower_first(text), me, you)}?"


_DECLARATIVE_QUESTION = re.compile(
    r"^(?:you|they|he|she|we|those|these|this|that)(?:'re|'s)?\s(?!know\b)[a-z']+\s\w", re.I
)
"""A statement asked as a question: ``You want to wait?``, ``Those are the only ones?``."""


def _turned(text: str, me: str, you: str) -> str | None:
    """``text`` as one of the recognised question forms, or None."""
    if proposal := _PROPOSAL.match(text):
        return _proposed(proposal, me, you)
    if offer := _OFFER.match(text):
        if offer["rest"].lower().startswith("me to "):
            return f"{me} offers to {_told(offer['rest'][6:], me, you)}."
        if offer["rest"].lower().startswith("to "):
            return _asking(me, you, "whether ", f"{you} wants {_told(offer['rest'], me, you)}")
        return f"{me} offers {you} {_told(offer['rest'], me, you)}."
    if leave := _LEAVE.match(text):
        verb = "offers" if leave["rest"].lower().startswith("help") else "asks"
        return f"{me} {verb} to {_told(leave['rest'], me, you)}."
    if about := _ABOUT.match(text):
        verb = "suggests" if about["wh"].lower() == "how" else "asks about"
        return f"{me} {verb} {_told(about['rest'], me, you)}."
    request = _REQUEST.match(text)
    if request and not _NOT_REQUEST.match(request["rest"]):
        return f"{me} asks {you} to {_told(request['rest'], me, you)}."
    forms = (
        (_WH_BE_END, ""),
        (_WH_INVERTED, ""),
        (_YES_NO_NOUN, "whether "),
        (_YES_NO, "whether "),
    )
    for pattern, link in forms:
        if match := pattern.match(text):
            wh = match.groupdict().get("wh")
            rest = match.groupdict().get("rest") or ""
            clause = _declarative(match["aux"], match["subject"], rest)
            head = f"{wh.lower()} " if wh else link
            return _asking(me, you, head, _told(clause, me, you))
    if re.match(rf"^{_WH}\b", text, re.I):
        return _asking(me, you, "", _told(lower_first(text), me, you))
    return None


def _asking(me: str, you: str, head: str, clause: str) -> str:
    """``Ann asks Bob how much it costs``; ``Ann asks whether Bob cooks`` (Bob named once)."""
    if _unnamed(you) or clause.startswith(you):
        return f"{me} asks {head}{clause}."
    return f"{me} asks {you} {head}{clause}."


def _proposed(proposal: re.Match[str], me: str, you: str) -> str:
    """``Why don't we…`` / ``Shall we…`` -> ``suggests they…``; ``Shall I…`` -> ``offers to…``."""
    who = (proposal["who"] or proposal["shall"] or "we").lower()
    rest = _told(proposal["rest"], me, you)
    if who == "i":
        return f"{me} offers to {rest}."
    if rest.lower().startswith("to "):
        return f"{me} suggests {rest[3:]}."
    return f"{me} suggests {'they' if who == 'we' else you} {rest}."


def _declarative(aux: str, subject: str, rest: str) -> str:
    """``do`` + ``you`` + ``like tea`` -> ``you likes tea`` (agreement follows the naming)."""
    aux_ = aux.lower()
    single = subject.lower() not in ("we", "they", "these", "those")
    if subject.lower() == "i" or subject.lower() == "you":
        single = True
    if " " in subject:  # ``this bus``, ``the kids``
        determiner, noun = subject.lower().rsplit(" ", 1)
        plural = noun.endswith("s") and not noun.endswith(("ss", "us"))
        single = determiner in ("this", "that") or (
            determiner not in ("these", "those") and not plural
        )
    if subject.lower() == "there":
        single = aux_ not in ("are", "were")
    if aux_ in ("do", "does", "did"):
        verb_at = _verb_index(rest.split())
        parts = rest.split()
        if verb_at is None:
            return f"{subject} {aux_} {rest}".strip()
        verb = parts[verb_at]
        if aux_ == "did":
            parts[verb_at] = _past(verb)
        elif single and subject.lower() != "i":  # ``I`` agrees once it is named (_told)
            parts[verb_at] = {"have": "has", "be": "is"}.get(verb) or inflect(verb)
        return " ".join([subject, *parts])
    if aux_ in _BE:
        be = (_BE if single else _PLURAL_BE)[aux_]
        return f"{subject} {be} {rest}".strip()
    if aux_ in ("have", "has"):
        return f"{subject} {'has' if single else 'have'} {rest}".strip()
    return f"{subject} {aux_} {rest}".strip()


def _verb_index(parts: list[str]) -> int | None:
    for index, part in enumerate(parts):
        if part.lower() not in _NO_S:
            return index if part.isalpha() and part.islower() and part != "not" else None
    return None


def _past(verb: str) -> str:
    if verb in _PAST:
        return _PAST[verb]
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ied"
    return verb + "ed"


def _statement(text: str, me: str, you: str) -> str:
    if lets := _LETS.match(text):
        return f"{me} suggests they {_told(lets['rest'], me, you)}"
    if order := _IMPERATIVE.match(text):
        verb = order["verb"].lower()
        if verb == "let me":
            return f"{me} offers to {_told(order['rest'], me, you)}"
        action = _told(f"{verb} {order['rest']}".strip(), me, you)
        action = re.sub(r"^(?:don't|do not)\b", "not to", action)
        return f"{me} tells {you} {action if action.startswith('not to') else 'to ' + action}"
    if advice := _ADVICE.match(text):
        verb = "advises" if advice["how"].lower() in _ADVISING else "tells"
        return f"{me} {verb} {you} to {_told(advice['rest'], me, you)}"
    told = _told(text, me, you)
    if told.startswith(me):
        return told
    told = _lowered(told)
    return f"{me} {_telling(told, you)} {told}"


def _telling(told: str, you: str) -> str:
    """``tells Bob`` for news given to the listener, else ``says``.

    ``says`` for an exclamation, a remark about the listener (``says Bob was right``), a
    clause opening with a name (``tells Bob Eve…`` would read as one name) or when nobody
    is listening (or only an AI assistant: the narrative is what the people said).
    """
    if _unnamed(you) or told.endswith("!"):
        return "says"
    if told.startswith(you) or not told[:1].islower():
        return "says"
    return f"tells {you}"


def _unnamed(you: str) -> bool:
    """A listener the narrative does not name: nobody known, or only an AI assistant."""
    return you == NOBODY or is_ai_assistant(you)


_COMMON_OPENERS = frozenset(
    """today tomorrow yesterday tonight actually maybe perhaps sometimes usually now then almost
    everyone everybody everything people most some many last next this these those every
    besides anyway however unfortunately luckily honestly basically normally since love
    making taking having being getting going doing seeing""".split()
)


def _lowered(text: str) -> str:
    """Lower-case a first word that is not a name (``Today`` yes, ``Paris`` no)."""
    first = text.split(" ", 1)[0]
    common = first.lower().strip(",")
    if (_opener(common) or common.endswith("ing")) and not first.isupper():
        return text[:1].lower() + text[1:]
    return lower_first(text)


def _told(text: str, me: str, you: str) -> str:
    """Pronouns resolved to the speakers, ``we`` told as ``they``, intentions put plainly."""
    for pattern, replacement in (*_PLAIN, *_WE):
        text = re.sub(pattern, replacement, text, flags=re.IGNORECASE)
    return pronouns_resolved(_I_AGREE.sub(_agreeing, text), me, you)


_NOT_PRESENT = frozenset(
    """am was will would can could should have had do did must might may shall need ought
    used wanna gotta guess""".split()
) | frozenset(_PAST.values())
_I_AGREE = re.compile(r"\bI\s(?P<adverb>(?:" + "|".join(_NO_S) + r")\s)?(?P<verb>[a-z]+)\b(?!['’])")


def _agreeing(match: re.Match[str]) -> str:
    """``I disagree`` -> ``I disagrees``: the verb after ``I`` agrees with the name it becomes."""
    verb = match["verb"]
    if verb in _NOT_PRESENT or verb.endswith(("ed", "n't")) or len(verb) < 2:
        return match.group(0)
    return f"I {match['adverb'] or ''}{inflect(verb)}"


def _trimmed(text: str) -> str:
    """Without hedges and fillers (``you know``, ``really``, ``, please``)."""
    trimmed = _HEDGES.sub("", text).strip()
    return upper_first(trimmed) if trimmed else text


def _without_vocative(text: str, you: str = "") -> str:
    """Without a name the listener is called by: ``Julia, I'd like a word`` -> ``I'd like…``.

    A name at the end is a vocative in a question (``Ready, Tom?``) or when it is the
    listener's (``That's cool, Caroline!``).
    """
    start = _VOCATIVE.match(text)
    if start and not (start["name"] and _opener(start["name"])):
        text = text[start.end() :]
    text = _VOCATIVE_END.sub("", text)
    first = you.split(" ")[0]
    if first[:1].isupper():
        text = re.sub(rf",\s+{re.escape(first)}(?:\s\w+)?(?=[.!?]+$)", "", text)
    return upper_first(text)


def _opener(word: str) -> bool:
    """A sentence opener, not a name: ``Today``, ``Actually``, ``Sadly``."""
    lower = word.lower()
    return lower in _COMMON_OPENERS or lower in STOPWORDS or lower.endswith("ly")
