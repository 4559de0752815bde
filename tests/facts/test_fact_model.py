"""The durable fact value: its kinds, its durability, and its plain JSON shape."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from longtalk.facts import DURABILITY, DurableFact


def fact(**changes: object) -> DurableFact:
    base: dict[str, object] = {
        "kind": "constraint",
        "subject": "allergy:shellfish",
        "holder": "Ana",
        "text": "Ana is allergic to shellfish.",
        "sequences": (3, 9),
        "said_at": datetime(2023, 5, 8, 13, 56, tzinfo=UTC),
        "value": "shellfish",
    }
    base.update(changes)
    return DurableFact(**base)  # type: ignore[arg-type]


def test_round_trip_through_json() -> None:
    original = fact()
    data = json.loads(json.dumps(original.to_dict()))
    assert DurableFact.from_dict(data) == original
    assert data["said_at"] == "2023-05-08T13:56:00+00:00"


def test_empty_fields_are_left_out_and_read_back() -> None:
    bare = fact(sequences=(), said_at=None, value="", source="given")
    assert bare.to_dict() == {
        "kind": "constraint",
        "subject": "allergy:shellfish",
        "holder": "Ana",
        "text": "Ana is allergic to shellfish.",
        "source": "given",
    }
    assert DurableFact.from_dict(bare.to_dict()) == bare


def test_durability_ranks_constraints_over_tastes_over_plans() -> None:
    assert fact().durability == DURABILITY["identity"]
    assert fact(kind="relation").durability > fact(kind="preference").durability
    assert fact(kind="preference").durability > fact(kind="decision").durability
    assert fact(kind="decision").durability > fact(kind="commitment").durability
    assert fact(kind="commitment").durability > fact(kind="question").durability


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "constraint", "subject": "diet", "holder": "Ana"}, "needs text"),
        ({"kind": "mood", "subject": "x", "holder": "Ana", "text": "t"}, "unknown fact kind"),
        (
            {"kind": "identity", "subject": "x", "holder": "Ana", "text": "t", "source": "llm"},
            "unknown fact source",
        ),
        (
            {"kind": "identity", "subject": "x", "holder": "Ana", "text": "t", "colour": 1},
            "unknown durable fact fields",
        ),
        (
            {"kind": "identity", "subject": "x", "holder": "Ana", "text": "t", "sequences": "1"},
            "sequences must be a list of integers",
        ),
        (
            {"kind": "identity", "subject": "x", "holder": "Ana", "text": "t", "said_at": "soon"},
            "said_at must be an ISO 8601 time",
        ),
        ({"kind": "identity", "subject": " ", "holder": "Ana", "text": "t"}, "needs a subject"),
        ({"kind": "identity", "subject": "x", "holder": 7, "text": "t"}, "must be a string"),
    ],
)
def test_bad_input_names_the_problem(data: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        DurableFact.from_dict(data)


def test_sequences_are_sorted_and_unique_when_read() -> None:
    data = fact().to_dict() | {"sequences": [9, 3, 9]}
    assert DurableFact.from_dict(data).sequences == (3, 9)


def test_key_and_sameness_ignore_case_and_spacing() -> None:
    one = fact(holder="Ana", subject="Diet", value="", text="Ana is  Vegan.")
    two = fact(holder="ana", subject="diet", value="", text="ana is vegan")
    assert one.key == two.key
    assert one.sameness == two.sameness
