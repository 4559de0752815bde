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


def test_the_block_stands_before_the_window_and_is_kept_while_it_serves() -> None:
    first = read([*CATS, *TRAINS[:4]], rules=replace(FRIENDLY, recall_keep=0.5))
    assert kinds(first) == ["summary", "recalled", "verbatim", "recalled"]
    block = first.parts[1]
    assert first.recall_block and block.sequences == tuple(t.sequence for t in first.recall_block)
    # the next question still finds the cat turns best: the block comes back byte for byte,
    # and the window after it, so the whole of it is a cached prefix
    grown = [*WINDOW, (94, user("and one more line"))]
    second = read([*CATS[:2], *TRAINS[4:6]], first.recall_block, window=grown)
    assert second.parts[1].text == block.text
    assert second.render().startswith(first.render()[: first.render().index("recent line 3")])
    assert "trip 35" in second.parts[-1].text  # what is new is recalled after the window


def test_a_block_that_no_longer_serves_the_question_is_replaced() -> None:
    first = read(CATS)
    unrelated = [turn(t.sequence, t.message.content, 0.001) for t in CATS]
    second = read([*TRAINS, *unrelated], first.recall_block)
    assert "trip" in second.parts[1].text  # the question's own fill chose none of the cat turns
    assert second.parts[1].text != first.parts[1].text


def test_a_block_the_question_would_only_show_as_filler_is_replaced() -> None:
    first = read(CATS)
    faint = [turn(t.sequence, t.message.content, 0.001) for t in CATS]
    second = read([*TRAINS[:2], *faint], first.recall_block)
    shown = {s for part in second.parts if part.kind == "recalled" for s in part.sequences}
    assert {t.sequence for t in CATS} <= shown  # there is room for every cat turn...
    assert "trip" in second.parts[1].text  # ...but they no longer lead: the block is new


def test_a_block_that_outgrows_the_room_is_replaced_whole_not_cut() -> None:
    first = read(CATS)
    long_window = [(90 + i, user(f"a much longer recent line number {i} " * 3)) for i in range(6)]
    second = read(CATS, first.recall_block, window=long_window)
    kept = [part for part in second.parts if part.kind == "recalled"]
    assert kept and kept[0].text != first.parts[1].text
    assert second.tokens_used <= 260


def test_no_block_is_started_when_recall_has_little_room() -> None:
    small = read([*CATS, *TRAINS], rules=replace(FRIENDLY, recall_block_from=0.9))
    assert kinds(small) == ["summary", "verbatim", "recalled"] and not small.recall_block
    roomy = read([*CATS, *TRAINS], rules=replace(FRIENDLY, recall_block_from=0.1))
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


@pytest.mark.parametrize("field", ["recall_keep", "recall_serves", "recall_block_from"])
def test_shares_outside_zero_to_one_are_refused(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        ContextBudget(**{field: 1.5})  # type: ignore[arg-type]
