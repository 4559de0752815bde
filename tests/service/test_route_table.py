"""docs/service.md's route table names every route the service answers."""

from __future__ import annotations

import re
from pathlib import Path

from longtalk.service.app import create_app

TABLE = Path(__file__).resolve().parents[2] / "docs" / "service.md"
NAMES = {"chat_id": "id", "user_id": "user", "summary_id": "id", "item_id": "item"}


def _documented() -> set[tuple[str, str]]:
    rows = re.findall(r"^\| `(GET|POST|PUT|PATCH|DELETE) ([^`?]+)", TABLE.read_text(), re.M)
    found = {(method, path) for method, path in rows}
    for text in re.findall(r"`(DELETE|GET|POST) (/[^`?]+)", TABLE.read_text()):
        found.add(text)
    return found


def test_every_route_is_in_the_table() -> None:
    documented = _documented()
    missing = []
    for path, operations in create_app().openapi()["paths"].items():
        shown = re.sub(r"\{(\w+)\}", lambda m: "{" + NAMES.get(m[1], m[1]) + "}", path)
        missing += [
            f"{m.upper()} {shown}" for m in operations if (m.upper(), shown) not in documented
        ]
    assert missing == []
