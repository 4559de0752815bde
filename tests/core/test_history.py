from longtalk.core.history import (
    episode_numbers,
    next_batch,
    split_history,
    units,
    window_start,
)
from longtalk.core.messages import Message, assistant, tool_call, tool_result, user


def numbered(*messages: Message) -> list[tuple[int, Message]]:
    return list(enumerate(messages, start=1))


def exchanges(n: int) -> list[tuple[int, Message]]:
    messages: list[Message] = []
    for i in range(n):
        messages += [user(f"q{i}"), assistant(f"a{i}")]
    return numbered(*messages)


def test_window_keeps_the_last_n_exchanges() -> None:
    split = split_history(exchanges(5), last_summarized=0, recent_turns=2)
    assert [s for s, _ in split.pending] == [1, 2, 3, 4, 5, 6]
    assert [s for s, _ in split.recent] == [7, 8, 9, 10]
    assert split.summarized == ()


def test_summarized_messages_are_neither_pending_nor_recent() -> None:
    split = split_history(exchanges(5), last_summarized=4, recent_turns=2)
    assert [s for s, _ in split.summarized] == [1, 2, 3, 4]
    assert [s for s, _ in split.pending] == [5, 6]
    assert [s for s, _ in split.verbatim] == [5, 6, 7, 8, 9, 10]


def test_short_history_is_all_recent_and_zero_window_is_all_pending() -> None:
    assert window_start(exchanges(2), 10) == 0
    split = split_history(exchanges(2), last_summarized=0, recent_turns=0)
    assert len(split.pending) == 4 and split.recent == ()


def test_a_tool_call_and_its_results_form_one_unit() -> None:
    items = numbered(
        user("weather?"),
        tool_call("", ["c1", "c2"]),
        tool_result("sunny", "c1"),
        tool_result("warm", "c2"),
        assistant("sunny and warm"),
    )
    assert [[s for s, _ in unit] for unit in units(items)] == [[1], [2, 3, 4], [5]]


def test_batches_are_oldest_first_under_the_cap_and_carry_the_rest() -> None:
    items = numbered(*(user("x" * 40) for _ in range(10)))
    batch, rest = next_batch(items, max_chars=150)
    assert [s for s, _ in batch] == [1, 2, 3]
    assert [s for s, _ in rest] == list(range(4, 11))


def test_an_oversized_message_still_forms_a_batch() -> None:
    items = numbered(user("x" * 1000), user("y"))
    batch, rest = next_batch(items, max_chars=100)
    assert [s for s, _ in batch] == [1] and [s for s, _ in rest] == [2]


def test_batches_never_split_a_tool_call_from_its_results() -> None:
    items = numbered(user("q"), tool_call("c" * 50, ["c1"]), tool_result("r" * 50, "c1"))
    batch, rest = next_batch(items, max_chars=70)
    assert [s for s, _ in batch] == [1]
    batch, rest = next_batch(rest, max_chars=70)
    assert [s for s, _ in batch] == [2, 3] and rest == ()


def test_episode_numbers_continue_and_continue_a_split_episode() -> None:
    items = numbered(user("a"), assistant("b"), user("c"))
    assert episode_numbers(items, last_episode=0) == [1, 1, 2]
    assert episode_numbers(items, last_episode=7) == [8, 8, 9]
    tail = numbered(assistant("rest of episode 7"), user("new"))
    assert episode_numbers(tail, last_episode=7) == [7, 8]
