"""Model replies checked before anything is stored: a summary, a digest or a title.

A reply that is not what was asked for (cut off, broken or wrongly typed JSON, a preamble
instead of a title, nothing but chat-template markers) raises ``LLMOutputError`` naming the
fault, or for a title gives None: the caller keeps the last good summary or title and the
summary extension is retried later. Nothing is "repaired" into a new summary.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from longtalk.core.cleaning import clean_output
from longtalk.errors import LLMOutputError
from longtalk.summary.model import LIST_FIELDS, SCHEMA_KEYS, ConversationSummary

MAX_TITLE_REPLY_CHARS = 120
MAX_TITLE_REPLY_WORDS = 16
_FENCED = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL | re.IGNORECASE)
_TITLE_LABEL = re.compile(r"^[*_]*title[*_]*\s*:[*_]*\s*", re.IGNORECASE)


def summary_from_reply(
    text: str, *, structured: bool, what: str = "summary"
) -> ConversationSummary:
    """The summary a reply holds, checked; ``LLMOutputError`` naming the fault otherwise.

    Plain mode: any non-empty text is the narrative. Structured mode: one JSON object (bare
    or in a code fence) whose known fields have the schema's types, with something in it.
    """
    cleaned = clean_output(text)
    if not cleaned:
        raise LLMOutputError(f"the model returned an empty {what} (or only template markers)")
    if not structured:
        return ConversationSummary(narrative=cleaned)
    data = _json_object(cleaned, what)
    problems = _type_problems(data)
    if problems:
        raise LLMOutputError(f"the {what} JSON has wrongly typed fields: {'; '.join(problems)}")
    try:
        summary = ConversationSummary.model_validate(data)
    except ValidationError as exc:
        raise LLMOutputError(f"the {what} JSON is not a valid summary: {exc}") from exc
    if summary.is_empty:
        raise LLMOutputError(f"the {what} JSON holds no narrative, list or entity")
    return summary


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


def _json_object(text: str, what: str) -> dict[str, Any]:
    fenced = _FENCED.match(text)
    body = fenced.group(1) if fenced else text
    start, end = body.find("{"), body.rfind("}")
    if start == -1 and not body.startswith("["):
        raise LLMOutputError(f"the {what} reply is not JSON: a JSON object was asked for")
    if body.startswith("["):  # the whole reply is JSON, of the wrong type
        start, end = 0, len(body) - 1
    try:
        data = json.loads(body[start : end + 1] if end > start else body[start:])
    except json.JSONDecodeError as exc:
        raise LLMOutputError(
            f"the {what} reply is not valid JSON (cut off or broken): {exc.msg} at "
            f"character {exc.pos}"
        ) from exc
    if not isinstance(data, dict):
        raise LLMOutputError(f"the {what} reply is JSON but not an object")
    if not any(key in data for key in SCHEMA_KEYS):
        raise LLMOutputError(
            f"the {what} JSON has none of the summary fields ({', '.join(SCHEMA_KEYS)})"
        )
    return data


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
