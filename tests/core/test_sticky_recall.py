"""``cache_friendly``: the previous recalled block is kept, byte for byte, while it serves."""

from dataclasses import replace
from datetime import datetime

import pytest

from longtalk.core.context import RECALL_HEADER, Context, ContextBudget, assemble_context
from longtalk.core.messages import Message, assistant, user
from longtalk.core.tokens import HeuristicTokenCounter
from longtalk.vectors.base import RecalledTurn

COUNTER = HeuristicTokenCounter()
FRIENDLY = ContextBudget(order="cache_friendly")


def turn(seq: int, text: str, score: float) -> RecalledTurn:
    message = user(text, name="Ann", timestamp=datetime(2023, 5, 1 + seq // 10, 10), id=f"m{seq}")
    return RecalledTurn(message=message, score=score, sequence=seq)


CATS = [turn(s, f"my cat Miso did something funny, story {s}", 0.9) for s in (3, 4, 12, 13)]
TRAINS = [turn(s, f"the train to Lisbon was late again, trip {s}", 0.9) for s in range(30, 50)]
WINDOW = [(90 + i, (user if i % 2 == 0 else assistant)(f"recent line {i}")) for i in range(4)]


def read(
    recalled: list[RecalledTurn],
    kept: tuple[RecalledTurn, ...] = (),
    rules: ContextBudget = FRIENDLY,
    window: list[tuple[int, Message]] = WINDOW,
) -> Context:
    return assemble_context(
        recalled=recalled,
        summary="Ann has a cat and travels by train.",
        verbatim=window,
        budget_tokens=260,
        counter=COUNTER,
        rules=rules,
        kept_recall=kept,
    )


def kinds(context: Context) -> list[str]:
    return [part.kind for part in context.parts]


def with_block(recalled: list[RecalledTurn], rules: ContextBudget = FRIENDLY) -> Context:
    """A read whose question the previous read's block served: the block is shown."""
    first = read(recalled, rules=rules)
    return read(recalled, first.recall_block, rules=rules)


def test_a_block_is_shown_once_a_second_question_is_served_and_kept_while_it_serves() -> None:
    rules = replace(FRIENDLY, recall_keep=0.5)
    first = read([*CATS, *TRAINS[:4]], rules=rules)
    assert kinds(first) == ["summary", "verbatim", "recalled"]  # one question: no block yet
    assert {t.sequence for t in CATS} <= {t.sequence for t in first.recall_block}
    second = read([*CATS, *TRAINS[:4]], first.recall_block, rules=rules)  # served
    assert kinds(second) == ["summary", "recalled", "verbatim", "recalled"]
    block = second.parts[1]
    assert block.sequences == tuple(t.sequence for t in second.recall_block)
    assert {t.sequence for t in CATS} <= set(block.sequences)
    # the next question still finds the cat turns best: the block comes back byte for byte,
    # and the window after it, so the whole of it is a cached prefix
    grown = [*WINDOW, (94, user("and one more line"))]
    third = read([*CATS[:2], *TRAINS[8:10]], second.recall_block, window=grown)
    assert third.parts[1].text == block.text
    assert third.render().startswith(second.render()[: second.render().index("recent line 3")])
    assert "trip 39" in third.parts[-1].text  # what is new is recalled after the window


def test_a_block_serving_under_half_of_the_question_is_kept_and_the_window_stays_cached() -> None:
    """A turn on the same topic recalls the block's turns below its own best.

    In a long conversation that is most turns, and a block dropped there costs the cached
    window.
    """
    first = with_block(CATS)
    asked = [
        *(turn(t.sequence, t.message.content, 0.5) for t in CATS),  # under half of it
        *(turn(t.sequence, t.message.content, 0.9) for t in TRAINS[:3]),
    ]
    grown = [*WINDOW, (94, user("and one more line"))]
    second = read(asked, first.recall_block, window=grown)
    assert kinds(second) == ["summary", "recalled", "verbatim", "recalled"]
    window = first.part("verbatim")
    assert window is not None
    cached = first.render()[: first.render().index(window.text) + len(window.text)]
    assert second.render().startswith(cached)  # summary, block and window byte for byte
    assert all(f"trip {t.sequence}" in second.parts[-1].text for t in TRAINS[:3])


def test_a_block_that_no_longer_serves_the_question_is_not_shown_and_is_chosen_anew() -> None:
    first = with_block(CATS)
    unrelated = [turn(t.sequence, t.message.content, 0.001) for t in CATS]
    second = read([*TRAINS, *unrelated], first.recall_block)
    assert kinds(second) == ["summary", "verbatim", "recalled"]
    assert second.render().count(RECALL_HEADER) == 1  # one part: header and dates once
    assert second.recall_block and all("trip" in t.message.content for t in second.recall_block)


def test_a_block_is_kept_while_the_window_holds_the_questions_best_match() -> None:
    """Recall's best turn far below the chat's best match: the window answers the question.

    Such a turn of a running conversation recalls turns of its own ("that sounds fun")
    that hold the block's turns at no share; the block is kept all the same, so the cached
    window after it stays, unless ``recall_answered`` is off.
    """
    first = with_block(CATS)
    weak = [turn(t.sequence, t.message.content, 0.15) for t in TRAINS[:3]]
    faint = [turn(t.sequence, t.message.content, 0.01) for t in CATS]
    grown = [*WINDOW, (94, user("and one more line"))]
    second = read([*weak, *faint], first.recall_block, window=grown)
    assert second.parts[1].text == first.parts[1].text
    assert all(f"trip {t.sequence}" in second.parts[-1].text for t in TRAINS[:3])
    strict = replace(FRIENDLY, recall_answered=0.0)
    dropped = read([*weak, *faint], first.recall_block, rules=strict, window=grown)
    assert kinds(dropped) == ["summary", "verbatim", "recalled"]
    pointed = [turn(t.sequence, t.message.content, 0.9) for t in TRAINS[:3]]
    asked = read([*pointed, *faint], first.recall_block, window=grown)
    assert kinds(asked) == ["summary", "verbatim", "recalled"]  # a best match of its own


def test_a_block_the_question_would_only_show_as_filler_is_not_kept() -> None:
    first = with_block(CATS)
    faint = [turn(t.sequence, t.message.content, 0.001) for t in CATS]
    second = read([*TRAINS[:2], *faint], first.recall_block)
    recalled = {s for part in second.parts if part.kind == "recalled" for s in part.sequences}
    assert {t.sequence for t in CATS} <= recalled  # there is room for every cat turn...
    assert kinds(second) == ["summary", "verbatim", "recalled"]  # ...but not as the block
    assert {t.sequence for t in TRAINS[:2]} <= {t.sequence for t in second.recall_block}


def test_recall_spares_replaces_a_block_that_would_crowd_out_the_questions_turns() -> None:
    dogs = [turn(s, f"the dog Rex chewed a shoe, day {s}", 0.9) for s in range(20, 26)]
    first = with_block([*CATS, *dogs])
    assert {t.sequence for t in first.recall_block} == {t.sequence for t in [*CATS, *dogs]}
    # the next question wants the cats most and ten train turns after them, not the dogs:
    # the block still holds over half of what the question would show (the cats), but kept
    # it would leave room for only a few of the train turns
    asked = [
        *(turn(t.sequence, t.message.content, 1.0) for t in CATS),
        *(turn(t.sequence, t.message.content, 0.3) for t in TRAINS[:10]),
        *(turn(t.sequence, t.message.content, 0.01) for t in dogs),
    ]
    lenient = read(asked, first.recall_block)
    assert lenient.parts[1].text == first.parts[1].text  # kept: the question loses trains
    second = read(asked, first.recall_block, rules=replace(FRIENDLY, recall_spares=0.9))
    shown = {s for part in second.parts if part.kind == "recalled" for s in part.sequences}
    assert "Rex" not in second.render() and "Miso" in second.render()
    assert len(shown & {t.sequence for t in TRAINS}) > 2 * len(
        {s for part in lenient.parts if part.kind == "recalled" for s in part.sequences}
        & {t.sequence for t in TRAINS}
    )


def test_a_block_that_outgrows_the_room_is_not_cut() -> None:
    first = with_block(CATS)
    long_window = [(90 + i, user(f"a much longer recent line number {i} " * 3)) for i in range(6)]
    second = read(CATS, first.recall_block, window=long_window)
    assert kinds(second) == ["summary", "verbatim", "recalled"]  # not a part of the old block
    assert first.parts[1].text not in second.render()
    assert second.tokens_used <= 260


def test_no_block_is_started_when_recall_has_little_room() -> None:
    small = read([*CATS, *TRAINS], rules=replace(FRIENDLY, recall_block_from=0.9))
    assert kinds(small) == ["summary", "verbatim", "recalled"] and not small.recall_block
    roomy = with_block([*CATS, *TRAINS], rules=replace(FRIENDLY, recall_block_from=0.1))
    assert kinds(roomy) == ["summary", "recalled", "verbatim", "recalled"]


def test_without_a_kept_block_or_with_keep_off_it_is_todays_single_part() -> None:
    off = read([*CATS, *TRAINS], rules=replace(FRIENDLY, recall_keep=0.0))
    assert kinds(off) == ["summary", "verbatim", "recalled"] and not off.recall_block
    assert off.render().count(RECALL_HEADER) == 1


def test_contract_order_ignores_a_kept_block() -> None:
    contract = replace(FRIENDLY, order="contract")
    plain = read([*TRAINS], rules=contract)
    given = read([*TRAINS], tuple(CATS), rules=contract)
    assert given.render() == plain.render() and not given.recall_block


@pytest.mark.parametrize(
    "field",
    ["recall_keep", "recall_serves", "recall_spares", "recall_answered", "recall_block_from"],
)
def test_shares_outside_zero_to_one_are_refused(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        ContextBudget(**{field: 1.5})  # type: ignore[arg-type]
