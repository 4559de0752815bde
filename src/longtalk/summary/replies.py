"""Model replies read by kind before anything is stored: a summary, a digest or a title.

A summary reply is one of the :data:`ReplyKind` kinds. ``json`` is a structured summary;
``prose`` (no JSON object at all, text left after cleaning) is a narrative, and in
structured mode a narrative-only extension merged into the stored summary, as Orchid does.
Every other kind is a failed extension, raised as :class:`ReplyError` naming the kind in
words a user understands: nothing is stored, the last good summary stays, and the
extension is retried later. Nothing is "repaired" into a new summary. Failures that are not
about the reply (the server down, the request refused) have a :data:`FailureKind` too, so
a chat's last error and the metrics name every failure the same way.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

from pydantic import ValidationError

from longtalk.core.cleaning import clean_output
from longtalk.errors import LLMPermanentError, LLMTransientError
from longtalk.llm.base import LLMResponse
from longtalk.llm.repetition import looping
from longtalk.llm.retry import UnusableReplyError
from longtalk.summary.model import LIST_FIELDS, SCHEMA_KEYS, ConversationSummary

__all__ = [
    "FAILURE_KINDS",
    "BadReply",
    "FailureKind",
    "ReplyError",
    "ReplyKind",
    "SummaryReply",
    "failure_kind",
    "read_summary_reply",
    "summary_from_reply",
    "title_from_reply",
]

BadReply = Literal[
    "cut_off",
    "repetition",
    "broken_json",
    "wrong_types",
    "echoed_schema",
    "template_only",
    "empty",
]
"""A reply that holds no usable summary."""
ReplyKind = Literal["json", "prose", BadReply]
FailureKind = Literal[BadReply, "unavailable", "rejected", "error"]
"""Why a summary extension failed: a reply kind, or the call itself (``unavailable``: a
timeout, connection error, 429 or 5xx; ``rejected``: the request refused, e.g. a bad key or
an unknown model; ``error``: anything else the model raised)."""
FAILURE_KINDS: tuple[FailureKind, ...] = get_args(FailureKind)

MAX_TITLE_REPLY_CHARS = 120
MAX_TITLE_REPLY_WORDS = 16
_FENCED = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL | re.IGNORECASE)
_TITLE_LABEL = re.compile(r"^[*_]*title[*_]*\s*:[*_]*\s*", re.IGNORECASE)
_SCHEMA_WORDS = frozenset(
    {
        "string",
        "str",
        "integer",
        "int",
        "number",
        "array",
        "list",
        "object",
        "boolean",
        "a paragraph",
        "an integer",
        "short strings",
        "lists of short strings",
        "list of short strings",
        "...",
    }
)


_FINISH_KINDS: dict[str, FailureKind] = {"length": "cut_off", "repetition": "repetition"}


class ReplyError(UnusableReplyError):
    """A summary or digest reply that is not stored; ``kind`` names what is wrong with it."""

    def __init__(self, message: str, response: LLMResponse, kind: FailureKind) -> None:
        super().__init__(message, response)
        self.kind: FailureKind = kind


@dataclass(frozen=True, slots=True)
class SummaryReply:
    """A reply read: its kind, the summary it holds (None unless usable), the problem."""

    kind: ReplyKind
    summary: ConversationSummary | None = None
    problem: str = ""

    def summary_or_raise(self, response: LLMResponse) -> ConversationSummary:
        """The summary; a :class:`ReplyError` naming the problem when there is none."""
        if self.summary is None:
            kind = cast(FailureKind, self.kind) if self.kind in FAILURE_KINDS else "error"
            raise ReplyError(self.problem, response, kind)
        return self.summary


def read_summary_reply(
    response: LLMResponse,
    *,
    structured: bool,
    max_tokens: int | None = None,
    what: str = "summary",
) -> SummaryReply:
    """Read a summary (or digest) reply by kind; see the module docstring.

    A reply stopped in a repetition loop is still read when what came before the loop is a
    complete JSON summary.
    """
    text = response.text
    if not text.strip():
        return SummaryReply("empty", problem=f"the model returned an empty {what}")
    cleaned = clean_output(text)
    if not cleaned:
        return SummaryReply(
            "template_only",
            problem=f"the model's {what} reply held only chat-template markers or reasoning, "
            "no text",
        )
    finish = response.finish_reason
    if finish == "repetition" or (finish == "length" and looping(text)):
        read = _read(cleaned, structured, what) if structured else None
        if read is not None and read.kind == "json":
            return read
        return SummaryReply(
            "repetition",
            problem=f"the model's {what} reply fell into a repetition loop (the same text "
            "over and over) and was stopped",
        )
    if finish == "length":
        limit = f" (max_tokens={max_tokens})" if max_tokens is not None else ""
        return SummaryReply(
            "cut_off", problem=f"the model's {what} reply was cut off at the output limit{limit}"
        )
    return _read(cleaned, structured, what)


def summary_from_reply(
    text: str, *, structured: bool, what: str = "summary"
) -> ConversationSummary:
    """The summary a complete reply's text holds; :class:`ReplyError` naming the fault."""
    response = LLMResponse(text=text)
    reply = read_summary_reply(response, structured=structured, what=what)
    return reply.summary_or_raise(response)


def failure_kind(error: BaseException) -> FailureKind:
    """The kind of a failed summary call, for a chat's last error and the metrics."""
    if isinstance(error, ReplyError):
        return error.kind
    if isinstance(error, UnusableReplyError):
        reason = error.response.finish_reason
        return _FINISH_KINDS.get(reason, "empty")
    if isinstance(error, LLMTransientError):
        return "unavailable"
    if isinstance(error, LLMPermanentError):
        return "rejected"
    return "error"


def _read(cleaned: str, structured: bool, what: str) -> SummaryReply:
    if not structured:
        if _echoes_schema(_loose_object(cleaned)):
            return _echoed(what)
        return SummaryReply("prose", ConversationSummary(narrative=cleaned))
    fenced = _FENCED.match(cleaned)
    body = fenced.group(1) if fenced else cleaned
    if "{" not in body and not body.startswith("["):
        return SummaryReply("prose", ConversationSummary(narrative=cleaned))
    try:
        data = _parse(body)
    except json.JSONDecodeError as exc:
        return SummaryReply(
            "broken_json",
            problem=f"the model's {what} reply is broken JSON ({exc.msg} at character {exc.pos})",
        )
    return _typed(data, what)


def _parse(body: str) -> Any:
    """The JSON value in ``body``: the whole of it, or its outermost object."""
    if body.startswith("["):
        return json.loads(body)
    start, end = body.find("{"), body.rfind("}")
    return json.loads(body[start : end + 1] if end > start else body[start:])


def _typed(data: Any, what: str) -> SummaryReply:
    wrong = f"the model's {what} reply is JSON of the wrong shape"
    if not isinstance(data, dict):
        return SummaryReply("wrong_types", problem=f"{wrong}: not an object")
    if _echoes_schema(data):
        return _echoed(what)
    if not any(key in data for key in SCHEMA_KEYS):
        fields = ", ".join(SCHEMA_KEYS)
        return SummaryReply(
            "wrong_types", problem=f"{wrong}: none of the summary fields ({fields})"
        )
    problems = _type_problems(data)
    if problems:
        return SummaryReply("wrong_types", problem=f"{wrong}: {'; '.join(problems)}")
    try:
        summary = ConversationSummary.model_validate(data)
    except ValidationError as exc:
        return SummaryReply("wrong_types", problem=f"{wrong}: {exc}")
    if summary.is_empty:
        return SummaryReply(
            "empty", problem=f"the model's {what} JSON holds no narrative, list or entity"
        )
    return SummaryReply("json", summary)


def _echoed(what: str) -> SummaryReply:
    return SummaryReply(
        "echoed_schema",
        problem=f"the model echoed the JSON schema or its instructions instead of writing a {what}",
    )


def _loose_object(text: str) -> Any:
    fenced = _FENCED.match(text)
    try:
        return _parse(fenced.group(1) if fenced else text) if "{" in text else None
    except json.JSONDecodeError:
        return None


def _echoes_schema(data: Any) -> bool:
    """A JSON schema, or the summary fields filled with type names and instructions."""
    if not isinstance(data, dict):
        return False
    if "properties" in data or "$schema" in data or data.get("type") == "object":
        return True
    filled = [data[key] for key in SCHEMA_KEYS if data.get(key) not in (None, "", [], 0)]
    return bool(filled) and all(_placeholder(value) for value in filled)


def _placeholder(value: Any) -> bool:
    """A type name or an instruction where a value belongs (``"string"``, ``"a paragraph"``)."""
    if isinstance(value, str):
        return value.strip().casefold() in _SCHEMA_WORDS
    if isinstance(value, dict):
        return _placeholder(value.get("type"))
    if isinstance(value, list):
        return bool(value) and all(_placeholder(item) for item in value)
    return False


def title_from_reply(text: str) -> str | None:
    """The title a reply holds, or None when it holds none.

    A title is one short line; a ``Title:`` label, or one preamble line ending with a colon
    before it, is allowed. Several lines, JSON or code, or nothing at all are not titles.
    """
    lines = [line.strip() for line in clean_output(text).splitlines() if line.strip()]
    if len(lines) == 2 and lines[0].endswith(":"):
        lines = lines[1:]
    if len(lines) != 1:
        return None
    title = _TITLE_LABEL.sub("", lines[0]).strip()
    too_long = len(title) > MAX_TITLE_REPLY_CHARS or len(title.split()) > MAX_TITLE_REPLY_WORDS
    looks_like_code = any(mark in title for mark in ("{", "}", "[", "]", "`", "<", ">"))
    if not title or too_long or looks_like_code or title.endswith(":"):
        return None
    return title


def _type_problems(data: dict[str, Any]) -> list[str]:
    """What in ``data`` does not have the schema's type (absent fields are fine)."""
    problems: list[str] = []
    for name in LIST_FIELDS:
        value = data.get(name)
        if value is not None and not _strings(value):
            problems.append(f"{name} must be a list of strings")
    narrative = data.get("narrative")
    if narrative is not None and not isinstance(narrative, str):
        problems.append("narrative must be a string")
    turns = data.get("covered_turns")
    if turns is not None and (isinstance(turns, bool) or not isinstance(turns, int) or turns < 0):
        problems.append("covered_turns must be a whole number, 0 or more")
    entities = data.get("entities")
    if entities is not None and not (
        isinstance(entities, list) and all(_entity(item) for item in entities)
    ):
        problems.append("entities must be a list of objects with a name")
    return problems


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _entity(item: Any) -> bool:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        return False
    if not item["name"].strip():
        return False
    return all(isinstance(item.get(key, ""), str | None) for key in ("type", "details"))
