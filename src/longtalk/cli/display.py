"""How the CLI shows contexts and summaries: rich renderables, with stored text never markup.

Stored text is wrapped, never cropped, and shown as written (brackets included).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from longtalk.storage.base import ChatRecord
from longtalk.wire import ContextPartOut, SummaryOut

LIST_FIELDS = (
    ("decisions", "Decisions"),
    ("open_questions", "Open questions"),
    ("user_preferences", "Preferences"),
    ("actions_taken", "Actions taken"),
)
KNOWN_FIELDS = {"narrative", "topics", "entities", "since", "until", "covered_turns"}
KNOWN_FIELDS |= {key for key, _ in LIST_FIELDS}


def context_panel(part: ContextPartOut) -> Panel:
    """One context part: its text, kind, tokens and provenance."""
    where = provenance(part.sequences, part.episode_ranges, part.scores)
    title = f"{part.kind} · {part.tokens} tokens" + (" · truncated" if part.truncated else "")
    return Panel(Text(part.text), title=Text(title), subtitle=Text(where) if where else None)


def provenance(
    sequences: list[int | None], ranges: list[tuple[int, int]], scores: list[float]
) -> str:
    """Which messages or summary episodes a part holds, with recall scores."""
    if ranges:
        return "episodes " + ", ".join(f"{a}-{b}" for a, b in ranges)
    shown = [str(s) for s in sequences if s is not None]
    text = f"messages {', '.join(shown)}" if shown else ""
    return text + (f" · scores {', '.join(f'{s:.2f}' for s in scores)}" if scores else "")


def summary_panel(row: SummaryOut) -> Panel:
    """One row of the chain: its narrative and every structured field, readably."""
    body = structured_lines(row.structured) if row.structured else [Text(row.summary_text)]
    kind = "" if row.kind == "row" else f" · {row.kind}"
    title = f"episodes {row.episode_range}{kind}"
    subtitle = (  # episodes are exchanges; the last message says how far the row reaches
        f"row {row.id} · to message {row.turn_number} · {row.token_count} tokens "
        f"· version {row.version}"
    )
    return Panel(Group(*body), title=Text(title), subtitle=Text(subtitle))


def structured_lines(data: dict[str, Any]) -> list[RenderableType]:
    """A structured summary as labelled lines: narrative, topics, entities, lists."""
    lines: list[RenderableType] = []
    if data.get("narrative"):
        lines.append(Text(str(data["narrative"])))
    if data.get("since") or data.get("until"):
        lines.append(_field("Period", f"{data.get('since') or '?'} to {data.get('until') or '?'}"))
    if data.get("topics"):
        lines.append(_field("Topics", ", ".join(str(t) for t in data["topics"])))
    if data.get("entities"):
        lines += [_heading("Entities"), _bullets(_entity(entity) for entity in data["entities"])]
    for key, label in LIST_FIELDS:
        if data.get(key):
            lines += [_heading(label), _bullets(str(item) for item in data[key])]
    for key, value in data.items():  # fields a newer summary format adds
        if key not in KNOWN_FIELDS and value not in (None, "", [], {}):
            lines.append(_field(key.replace("_", " ").capitalize(), _plain(value)))
    return lines or [Text("(empty)", style="dim")]


def summary_json(row: SummaryOut) -> dict[str, Any]:
    """A row as JSON; a structured row's fields as an object, not as an escaped string."""
    data = row.model_dump(mode="json")
    if row.structured is not None:
        del data["summary_text"]  # the same JSON, escaped into a string
    return data


def _entity(entity: Any) -> str:
    if not isinstance(entity, dict):
        return str(entity)
    kind = f" ({entity['type']})" if entity.get("type") else ""
    details = f": {entity['details']}" if entity.get("details") else ""
    return f"{entity.get('name', '?')}{kind}{details}"


def _plain(value: Any) -> str:
    if isinstance(value, list):
        return "; ".join(_plain(item) for item in value)
    if isinstance(value, dict):
        return ", ".join(f"{key}: {_plain(item)}" for key, item in value.items())
    return str(value)


def _heading(label: str) -> Text:
    return Text(label, style="bold")


def _field(label: str, value: str) -> Text:
    return Text.assemble((f"{label}: ", "bold"), value)


def _bullets(items: Iterable[str]) -> Table:
    """A list with hanging indents: wrapped lines align under the item's first word."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for item in items:
        grid.add_row(" •", Text(item))
    return grid


def chat_json(record: ChatRecord) -> dict[str, Any]:
    """A chat record as the JSON that ``list``, ``show`` and ``export`` print."""
    return {
        "id": record.id,
        "tenant": record.tenant,
        "user": record.user,
        "title": record.title,
        "message_count": record.message_count,
        "last_summarized_sequence": record.last_summarized_sequence,
        "indexed_sequence": record.indexed_sequence,
        "created_at": record.created_at.isoformat() if record.created_at else None,
        "updated_at": record.updated_at.isoformat() if record.updated_at else None,
    }
