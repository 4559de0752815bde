"""The shown summary is cut by salience: mentions and topics first, durable items last."""

from __future__ import annotations

from collections.abc import Sequence

from longtalk.core.tokens import HeuristicTokenCounter
from longtalk.storage.base import SummaryRow
from longtalk.summary.chain import ShownSummaries, shown_summary
from longtalk.summary.model import ConversationSummary, SummaryEntity

COUNTER = HeuristicTokenCounter(4.0)
PLACES = "Portugal Lisbon Porto Ericeira Sintra Belém Nazaré Coimbra Douro Cedofeita".split()


def row(summary: ConversationSummary, first: int, last: int) -> SummaryRow:
    return SummaryRow("c", summary.to_json(), format="json", episode_first=first, episode_last=last)


def test_a_stored_preference_outlives_topics_mentions_and_story_at_200_tokens() -> None:
    summary = ConversationSummary(
        topics=("note", "budget", "add", "works", "fits", "late", "back", "nights"),
        entities=(
            SummaryEntity(name="Ana", type="person", details="planning a trip with Tom"),
            SummaryEntity(name="Late May", type="date"),
            *(SummaryEntity(name=name, type="place") for name in PLACES),
            SummaryEntity(name="Alfama", type="place", details="guesthouse booked, 118 a night"),
        ),
        user_preferences=("Ana is allergic to latex",),
        decisions=("Ana decided to add the Douro valley",),
        narrative=" ".join(f"About the budget part {n}: noted, and it fits." for n in range(30)),
    )
    rows = [row(summary, 1, 12)]
    assert COUNTER.count(shown_summary(rows, max_tokens=10_000, counter=COUNTER).text) > 200

    shown = shown_summary(rows, max_tokens=200, counter=COUNTER)

    assert shown.truncated and COUNTER.count(shown.text) <= 200
    assert "Ana is allergic to latex" in shown.text
    assert "Ana decided to add the Douro valley" in shown.text
    assert "Ana (person): planning a trip with Tom" in shown.text
    assert "Also mentioned" not in shown.text and "Topics" not in shown.text
    assert "Alfama" not in shown.text  # a thing's details go before the story
    assert "part 29: noted" in shown.text  # the newest sentence stays; the oldest went
    assert "part 0:" not in shown.text


def test_the_story_goes_before_the_durable_items_and_each_period_keeps_its_last_line() -> None:
    old = ConversationSummary(
        narrative="An old story sentence. " * 12,
        user_preferences=("Maya prefers quiet neighbourhoods",),
        open_questions=("Maya asks: which hotel in Porto?",),
    )
    new = ConversationSummary(
        narrative="A newer story sentence. The newest thing happened.",
        decisions=("Maya decided on a birthday lunch in Nazaré",),
        entities=(SummaryEntity(name="Tom", type="person", details="allergic to peanuts"),),
    )
    rows = [row(old, 1, 9), row(new, 10, 12)]
    shown = shown_summary(rows, max_tokens=75, counter=COUNTER)
    assert shown.truncated and COUNTER.count(shown.text) <= 75
    for durable in ("prefers quiet", "which hotel", "birthday lunch", "allergic to peanuts"):
        assert durable in shown.text
    assert shown.text.count("An old story sentence") == 1  # cut level, not the old row whole
    assert "A newer story sentence" not in shown.text
    assert "The newest thing happened." in shown.text
    assert [r.episode_first for r in shown.rows] == [1, 10]  # the old row still speaks


def test_among_durable_items_the_oldest_go_first_never_the_newest_row_whole() -> None:
    old = ConversationSummary(decisions=tuple(f"old plan {n}" for n in range(30)))
    new = ConversationSummary(narrative="The newest thing happened.", decisions=("new plan",))
    shown = shown_summary([row(old, 1, 9), row(new, 10, 12)], max_tokens=40, counter=COUNTER)
    assert "The newest thing happened." in shown.text and "new plan" in shown.text
    plans = shown.text.split("Decisions: ", 1)[1].split("; ")
    assert "old plan 0" not in plans and "old plan 29" in plans  # the oldest plans went
    assert plans[-1] == "new plan"


def test_the_memo_gives_the_same_salience_cut() -> None:
    summary = ConversationSummary(
        topics=tuple(f"topic{n}" for n in range(40)),
        user_preferences=("Ana is allergic to latex",),
        narrative="Ana came back from Porto.",
    )
    rows = [row(summary, 1, 3)]
    memo = ShownSummaries(COUNTER)
    assert memo(rows, max_tokens=30) == shown_summary(rows, max_tokens=30, counter=COUNTER)
    assert "allergic to latex" in memo(rows, max_tokens=30).text
    assert "topic0" not in memo(rows, max_tokens=30).text


def test_what_lasts_is_cut_last_among_the_durable_items() -> None:
    summary = ConversationSummary(
        narrative="Maya booked the trip.",
        open_questions=tuple(f"Maya asks: which hotel {n}?" for n in range(5)),
        decisions=tuple(f"Maya decided on stop {n}" for n in range(5)),
        user_preferences=("Maya prefers quiet neighbourhoods",),
        entities=(
            SummaryEntity(
                name="Tom",
                type="person",
                details="Maya's partner; allergic to peanuts (2 March 2026); "
                + "; ".join(f"surf lesson {n} (2 April 2026)" for n in range(6)),
            ),
        ),
    )
    shown = shown_summary([row(summary, 1, 5)], max_tokens=45, counter=COUNTER)
    assert shown.truncated and COUNTER.count(shown.text) <= 45
    for lasting in ("prefers quiet", "Maya's partner", "allergic to peanuts"):
        assert lasting in shown.text
    assert "which hotel" not in shown.text and "surf lesson 0" not in shown.text


def test_a_told_story_is_cut_by_whole_quotes_and_keeps_its_lines() -> None:
    lines = [
        f'Maria ({day} June 2023): "We went camping on day {day}! [shares a photo of a tent]"'
        for day in range(1, 21)
    ]
    rows = [row(ConversationSummary(narrative="\n".join(lines)), 1, 20)]
    shown = shown_summary(rows, max_tokens=120, counter=COUNTER)
    assert shown.truncated and COUNTER.count(shown.text) <= 120
    kept = [line for line in lines if line in shown.text.splitlines()]
    assert 2 <= len(kept) < len(lines) and kept[-1] == lines[-1]
    assert shown.text.count('"') == 2 * len(kept)  # no quote is left half open
    assert "\n".join(kept) in shown.text  # one told line a line, as stored


def test_a_told_story_loses_its_least_salient_lines_first_when_their_salience_is_known() -> None:
    lines = [f'Maria ({day} June 2023): "Day {day} went by as days do."' for day in range(1, 13)]
    lines[2] = 'Maria (3 June 2023): "I adopted a rescue dog named Shadow."'
    rows = [row(ConversationSummary(narrative="\n".join(lines)), 1, 12)]

    def salience(pieces: Sequence[str]) -> list[float]:
        return [1.0 if "rescue dog" in piece else 0.0 for piece in pieces]

    by_age = shown_summary(rows, max_tokens=60, counter=COUNTER)
    by_salience = shown_summary(rows, max_tokens=60, counter=COUNTER, salience=salience)
    assert "rescue dog" not in by_age.text  # the oldest lines went first
    assert "rescue dog" in by_salience.text and COUNTER.count(by_salience.text) <= 60
    assert lines[-1] in by_salience.text  # the newest line stays whatever it says
