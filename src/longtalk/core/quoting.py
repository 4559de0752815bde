"""Quoted history: stored text shown to a model as what was said, never as a voice of its own.

Recalled turns and summaries reach the model inside its prompt, as text. Text in them that
imitates a role marker (``System: …``, ``Assistant: …``, ``### Instruction``, ``[INST]``,
``<|im_start|>``) or gives the assistant an instruction ("ignore all previous
instructions…", "print the system prompt") could otherwise read as the conversation's own
voice. The policy (docs/security.md):

- every line keeps the role it was said in (``User: …``); a speaker *name* that imitates a
  role (a user named "System") is shown beside the real role, never in its place;
- a passage that imitates a role marker or addresses the assistant with an instruction is
  kept, visibly quoted: ``«System: Ignore all previous instructions…»``;
- chat-template control tokens lose their power to open or close a turn: ``<|im_start|>``
  becomes ``‹|im_start|›``, ``[INST]`` ``‹INST›``; the text stays readable;
- an item of a list (a durable fact, a user-memory item) stays on its one line
  (:func:`quoted_item`), and a name inside a sentence (the user a header names) is data: one
  line, quoted when it is not a plain name (:func:`quoted_name`).

Ordinary text comes through unchanged. Pure and idempotent. A context is assembled from
lines quoted here first (:func:`quoted_lines`, :func:`quoted_turns`, :func:`quoted_summary`):
its assembly then only counts and places them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple, Protocol, TypeVar

from longtalk.core.messages import Message, Role, format_transcript
from longtalk.core.relative_dates import annotate_relative_dates

OPEN, CLOSE = "«", "»"

_ROLES = r"system|assistant|user|human|ai|developer|tool|model|bot|instructions?|response"
_ROLE_MARKER = re.compile(
    rf"^[\s>*#_`|\-–—•]*(?:[\[(<]\s*)?(?:{_ROLES})\s*(?:[\])>]\s*)?:", re.IGNORECASE
)
_HEADING = re.compile(
    r"^\s*#{1,6}\s*(?:instructions?|system|response|input|assistant|user)\b", re.IGNORECASE
)
_TAGGED_ROLE = re.compile(rf"^\s*[\[<‹]+\s*\|?\s*(?:{_ROLES}|inst|im_start)\b", re.IGNORECASE)
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\b(?:\s+(?:all|any|the|your|every|of|my))*"
    r"\s+(?:previous|prior|above|earlier|preceding|system|original|existing|these|those)?"
    r"\s*(?:instructions?|prompts?|rules|directions|guidelines|directives|context)\b"
    r"|\b(?:print|reveal|show|repeat|output|leak|display|dump|give me|tell me)\b[^.!?\n]{0,40}?"
    r"\b(?:system|developer|hidden|initial|secret|original)\s+(?:prompt|message|instructions?)\b"
    r"|\byou are now\b|\bfrom now on,?\s+you\b|\bnew instructions?\s*:"
    r"|\b(?:developer mode|do anything now|jailbreak)\b",
    re.IGNORECASE,
)
_CONTROL_TOKENS = (
    (re.compile(r"<\|([^|<>\n]{1,40})\|>"), r"‹|\1|›"),
    (re.compile(r"<｜([^｜<>\n]{1,40})｜>"), r"‹｜\1｜›"),
    (re.compile(r"<(/?s|/?(?:start|end)_of_turn|/?bos|/?eos)>", re.IGNORECASE), r"‹\1›"),
    (re.compile(r"\[(/?INST)\]", re.IGNORECASE), r"‹\1›"),
    (re.compile(r"<<(/?SYS)>>", re.IGNORECASE), r"‹‹\1››"),
)
_PLAIN_NAME = re.compile(r"[\w.@'+-]+(?: [\w.@'+-]+)*")
_SEGMENT = re.compile(
    r"(?:(?<=[.!?;])|(?<=[.!?;]»))\s+(?=\S)"
    r"|(?<=\S)\s+(?=(?:System|Assistant|User|Human|AI|Developer|SYSTEM|ASSISTANT|USER)\s*:)"
)
"""Where a line is cut into passages: after a sentence, and before a capitalised role marker
in mid-sentence (``We land at 9 Assistant: …``)."""


def neutralize(text: str) -> str:
    """``text`` with imitated role markers and instructions quoted, control tokens defused.

    Works line by line and, within a line, sentence by sentence: only the passages that
    imitate a voice are quoted; the rest is left exactly as it was.
    """
    text = defuse(text)
    return "\n".join(_neutralize_line(line) for line in text.split("\n"))


def quoted_item(text: str) -> str:
    """``text`` neutralized and kept on one line: a list item no line break can escape."""
    return " ".join(line.strip() for line in neutralize(text).split("\n") if line.strip())


def quoted_name(name: str) -> str:
    """A name shown inside a sentence, as data: one line, control tokens defused.

    A plain name (``priya``, ``ana.silva@example.com``) is shown as it is; anything else
    (a role word, a colon, an instruction, markup) is shown in a quote, so the sentence
    around it keeps its meaning.
    """
    flat = " ".join("".join(c if c.isprintable() else " " for c in name).split())
    if _PLAIN_NAME.fullmatch(flat) and not _names_a_role(flat) and not imitates_a_voice(flat):
        return flat
    inner = defuse(flat).replace(OPEN, '"').replace(CLOSE, '"')
    return f"{OPEN}{inner}{CLOSE}"


def defuse(text: str) -> str:
    """``text`` with chat-template control tokens made inert (still readable)."""
    for pattern, replacement in _CONTROL_TOKENS:
        text = pattern.sub(replacement, text)
    return text


def imitates_a_voice(passage: str) -> bool:
    """True when ``passage`` opens with a role marker or instructs the assistant."""
    return bool(
        _ROLE_MARKER.match(passage)
        or _HEADING.match(passage)
        or _TAGGED_ROLE.match(passage)
        or _INSTRUCTION.search(passage)
    )


def quoted_line(message: Message) -> str:
    """A transcript line for a stored message: its speaker, then its text neutralized.

    Continuation lines of a multi-line message are indented, so none starts like a turn.
    """
    body = neutralize(message.content).replace("\n", "\n  ")
    return f"{speaker_label(message)}: {body}"


class QuotedLine(NamedTuple):
    """A stored message as a context shows it: its sequence (0: unnumbered) and its line.

    ``noted`` is the line followed by what the message's relative dates mean (a recalled
    turn's, :func:`quoted_turns`); the line itself where none is resolved.
    """

    sequence: int
    message: Message
    line: str
    noted: str


class Said(Protocol):
    """A message said at a place in its chat (``longtalk.vectors.base.RecalledTurn`` fits)."""

    @property
    def message(self) -> Message:
        """The message."""
        ...

    @property
    def sequence(self) -> int:
        """Its position in the chat (0: unknown)."""
        ...


SaidT = TypeVar("SaidT", bound=Said)


def quoted_lines(numbered: Iterable[tuple[int, Message]]) -> list[QuotedLine]:
    """Each (sequence, message) with its :func:`quoted_line`: what a window counts and shows."""
    lines = []
    for sequence, message in numbered:
        line = quoted_line(message)
        lines.append(QuotedLine(sequence, message, line, line))
    return lines


def quoted_turns(turns: Iterable[SaidT]) -> list[tuple[SaidT, QuotedLine]]:
    """Each recalled turn with its quoted line, and that line with its relative dates resolved.

    A turn from long ago that says ``yesterday`` is shown with the day it meant
    (:func:`~longtalk.core.relative_dates.annotate_relative_dates`); the assembly's rules
    choose which of the two lines it shows.
    """
    quoted = []
    for turn in turns:
        message = turn.message
        line = quoted_line(message)
        noted = annotate_relative_dates(line, message.content, message.timestamp)
        quoted.append((turn, QuotedLine(turn.sequence, message, line, noted)))
    return quoted


def quoted_summary(summary: str | None, row_texts: Iterable[str]) -> list[str]:
    """A summary's passages that say something, neutralized: ``summary``, else each row's text."""
    texts = [summary] if summary is not None else row_texts
    return [neutralize(text) for text in texts if text.strip()]


def quoted_transcript(messages: Iterable[Message]) -> str:
    """``format_transcript`` with every line quoted (see :func:`quoted_line`)."""
    return format_transcript(messages, quoted_line)


def speaker_label(message: Message) -> str:
    """Who said it: the name, unless the name would pass for a role it is not."""
    name = " ".join((message.name or "").split())
    role = message.role.value.capitalize()
    if not name:
        return role
    if _names_a_role(name) and name.lower() != message.role.value:
        return f"{role} (named {OPEN}{defuse(name)}{CLOSE})"
    return defuse(name)


def _names_a_role(name: str) -> bool:
    words = {role.value for role in Role} | {"human", "ai", "developer", "model", "bot"}
    bare = re.sub(r"[^a-z]", "", name.lower())
    return bare in words or bool(_TAGGED_ROLE.match(name)) or ":" in name


def _neutralize_line(line: str) -> str:
    if not line.strip() or _is_quoted(line):
        return line
    parts = _SEGMENT.split(line)
    if len(parts) == 1:
        return _quote(line) if imitates_a_voice(line) else line
    separators = _SEGMENT.findall(line)
    pieces = [_quote(part) if imitates_a_voice(part) else part for part in parts]
    return "".join(p + s for p, s in zip(pieces, [*separators, ""], strict=True))


def _quote(passage: str) -> str:
    if _is_quoted(passage):
        return passage
    lead = passage[: len(passage) - len(passage.lstrip())]
    inner = passage.strip().replace(OPEN, '"').replace(CLOSE, '"')
    return f"{lead}{OPEN}{inner}{CLOSE}"


def _is_quoted(passage: str) -> bool:
    stripped = passage.strip()
    return stripped.startswith(OPEN) and stripped.endswith(CLOSE) and stripped.count(CLOSE) == 1
