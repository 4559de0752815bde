"""The durable part: its lines, its cap, and the order facts are left out in."""

from __future__ import annotations

from datetime import datetime

import pytest

from longtalk.core.tokens import HeuristicTokenCounter, TiktokenCounter, TokenCounter
from longtalk.facts import FACTS_HEADER, DurableFact, cut_order, render_facts
from longtalk.facts.render import fact_line

COUNTER = HeuristicTokenCounter()


def make(kind: str, text: str, sequence: int, day: int = 1, holder: str = "Ana") -> DurableFact:
    return DurableFact(
        kind,  # type: ignore[arg-type]
        f"{kind}:{sequence}",
        holder,
        text,
        (sequence,),
        datetime(2023, 5, day),
    )


FACTS = [
    make("question", "Ana has not decided whether to move to Lisbon.", 40, day=9),
    make("preference", "Ana prefers the aisle seat.", 12, day=2),
    make("constraint", "Ana is allergic to shellfish.", 5, day=1),
    make("commitment", "Ana will call the bank on Friday.", 30, day=8),
    make("preference", "Ana loves hiking.", 20, day=5),
    make("relation", "Ana's sister Lena lives in Rotterdam.", 8, day=1),
]


def test_everything_fits_most_durable_first() -> None:
    part = render_facts(FACTS, 500, COUNTER)
    assert part.left_out == ()
    assert part.text.splitlines() == [
        FACTS_HEADER,
        "- Ana is allergic to shellfish.",
        "- Ana's sister Lena lives in Rotterdam.",
        "- Ana prefers the aisle seat.",
        "- Ana loves hiking.",
        "- Ana will call the bank on Friday (said 8 May 2023).",
        "- Ana has not decided whether to move to Lisbon (said 9 May 2023).",
    ]
    assert part.tokens == COUNTER.count(part.text)
    assert part.sequences == (5, 8, 12, 20, 30, 40)


def test_cut_order_is_least_durable_first_then_oldest() -> None:
    assert [f.last_sequence for f in cut_order(FACTS)] == [40, 30, 12, 20, 8, 5]


def test_a_sentence_quoted_whole_is_left_out_before_any_claim() -> None:
    quoted = DurableFact(
        "constraint",
        "said:dairy free must dessert",
        "Ana",
        'Ana said: "Dairy-free is a must for me, especially for desserts."',
        (50,),
        datetime(2023, 5, 10),
    )
    assert cut_order([*FACTS, quoted])[0] is quoted  # however durable its kind


@pytest.mark.parametrize("cap", [28, 35, 45, 60, 80])
def test_a_small_cap_leaves_the_least_durable_out_and_says_so(cap: int) -> None:
    part = render_facts(FACTS, cap, COUNTER)
    assert part.tokens <= cap
    assert len(part.shown) + len(part.left_out) == len(FACTS)
    kept = {f.last_sequence for f in part.shown}
    order = [f.last_sequence for f in cut_order(FACTS)]
    assert kept == set(order[len(part.left_out) :])  # exactly the most durable survive
    assert part.shown  # the most durable fact fits at each of these caps
    if part.left_out:
        plural = "s" if len(part.left_out) > 1 else ""
        assert part.text.endswith(f"[{len(part.left_out)} durable fact{plural} left out]")


def test_nothing_fits_nothing_is_shown_and_all_are_left_out() -> None:
    part = render_facts(FACTS, 5, COUNTER)
    assert part.text == "" and part.tokens == 0 and part.shown == ()
    assert len(part.left_out) == len(FACTS)


def test_no_facts_no_part() -> None:
    part = render_facts([], 100, COUNTER)
    assert part.text == "" and part.left_out == ()


@pytest.mark.parametrize("counter", [HeuristicTokenCounter(2.5), TiktokenCounter()])
def test_the_cap_holds_under_any_counter(counter: TokenCounter) -> None:
    many = [make("preference", f"Ana likes thing number {i}.", i) for i in range(1, 60)]
    for cap in (20, 50, 137, 300):
        part = render_facts(many, cap, counter)
        assert part.tokens <= cap
        assert part.tokens == counter.count(part.text)


def test_holders_are_grouped_in_order_of_first_appearance() -> None:
    facts = [
        make("preference", "Bob loves jazz.", 3, holder="Bob"),
        make("constraint", "Ana is vegan.", 4),
        make("constraint", "Bob is allergic to cats.", 5, holder="Bob"),
    ]
    lines = render_facts(facts, 200, COUNTER, header="").text.splitlines()
    assert lines == ["- Bob is allergic to cats.", "- Bob loves jazz.", "- Ana is vegan."]


def test_only_dated_kinds_carry_their_day() -> None:
    assert fact_line(make("decision", "Ana decided to sell the motorbike", 1, day=3)) == (
        "- Ana decided to sell the motorbike (said 3 May 2023)."
    )
    assert fact_line(make("identity", "Ana lives in Porto.", 1)) == "- Ana lives in Porto."
