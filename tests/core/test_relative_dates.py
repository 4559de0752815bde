"""Relative time words resolved against a message's date, and shown with recalled turns."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from longtalk.core.context import ContextBudget, assemble_context
from longtalk.core.messages import Message, Role
from longtalk.core.relative_dates import (
    annotate_relative_dates,
    event_day,
    resolve_relative_dates,
)
from longtalk.core.tokens import HeuristicTokenCounter

MAY_8 = datetime(2023, 5, 8, 13, 56)


def test_days_years_and_months_resolve_against_the_message_date() -> None:
    text = (
        "Yesterday I ran; last year I moved, 2 days ago I painted, three years ago I met her. "
        "Last month I quit, next month we fly, tomorrow I rest and last night I read."
    )
    assert resolve_relative_dates(text, MAY_8) == [
        ("yesterday", "7 May 2023"),
        ("last year", "2022"),
        ("2 days ago", "6 May 2023"),
        ("three years ago", "2020"),
        ("last month", "April 2023"),
        ("next month", "June 2023"),
        ("tomorrow", "9 May 2023"),
        ("last night", "7 May 2023"),
    ]


def test_months_and_days_cross_year_boundaries() -> None:
    cases = {
        ("next month", date(2023, 12, 5)): "January 2024",
        ("last month", date(2024, 1, 5)): "December 2023",
        ("yesterday", date(2024, 1, 1)): "31 December 2023",
    }
    for (phrase, said), meant in cases.items():
        assert resolve_relative_dates(phrase, said) == [(phrase, meant)]


def test_vague_undated_and_repeated_phrases() -> None:
    assert resolve_relative_dates("last week, recently, 40 days ago", MAY_8) == []
    assert resolve_relative_dates("yesterday", None) == []
    assert resolve_relative_dates("yesterday and yesterday", MAY_8) == [("yesterday", "7 May 2023")]


def test_annotation_follows_the_line_tersely_and_leaves_plain_lines_alone() -> None:
    line = "Caroline: I went to a support group yesterday, last night too, and moved last year."
    assert annotate_relative_dates(line, line, MAY_8) == f"{line} (7 May; 2022)"
    new_year = datetime(2024, 1, 1, 9, 0)  # the date line says 2024: other years are spelled out
    assert annotate_relative_dates("x", "yesterday", new_year) == "x (31 December 2023)"
    assert annotate_relative_dates("x", "next month", datetime(2023, 12, 5)) == "x (January 2024)"
    assert annotate_relative_dates("Mel: hi", "hi", MAY_8) == "Mel: hi"
    assert annotate_relative_dates("Mel: yesterday", "yesterday", None) == "Mel: yesterday"


def test_event_day_is_what_a_sentence_tells_of() -> None:
    assert event_day("I went to a support group yesterday.", MAY_8) == "7 May 2023"
    assert event_day("Last year I moved here.", MAY_8) == "2022"
    assert event_day("I love painting.", MAY_8) == "8 May 2023"
    assert event_day("yesterday", None) == ""


@dataclass(frozen=True)
class _Recalled:
    message: Message
    score: float = 1.0
    sequence: int = 1


def test_recalled_turns_carry_resolved_dates_unless_switched_off() -> None:
    said = Message(
        role=Role.USER,
        content="I went to a support group yesterday.",
        name="Caroline",
        timestamp=MAY_8,
    )
    counter = HeuristicTokenCounter(4.0)
    shown = assemble_context(recalled=[_Recalled(said)], budget_tokens=500, counter=counter)
    part = shown.part("recalled")
    assert part is not None
    assert "Caroline: I went to a support group yesterday. (7 May)" in part.text
    assert part.tokens == counter.count(part.text)
    plain = assemble_context(
        recalled=[_Recalled(said)],
        budget_tokens=500,
        counter=counter,
        rules=ContextBudget(resolve_dates=False),
    )
    assert "(7 May)" not in plain.render()


def test_a_date_note_does_not_lower_a_turns_priority_but_is_counted() -> None:
    counter = HeuristicTokenCounter(4.0)

    def turn(text: str, score: float, sequence: int) -> _Recalled:
        message = Message(role=Role.USER, content=text, name="Caroline", timestamp=MAY_8)
        return _Recalled(message, score, sequence)

    noted = turn("I ran a marathon yesterday.", 1.0, 1)  # shown with "(7 May)"
    plain = turn("I ran a marathon in Boston.", 0.95, 2)  # as long, a little less relevant
    budget = next(  # the least room for the noted turn, note included: not for both
        budget
        for budget in range(1, 100)
        if assemble_context(recalled=[noted], budget_tokens=budget, counter=counter).parts
    )
    both = assemble_context(recalled=[plain, noted], budget_tokens=budget, counter=counter)
    part = both.part("recalled")
    assert part is not None
    assert "marathon yesterday. (7 May)" in part.text and "Boston" not in part.text
    assert part.tokens <= budget
