import pytest

from longtalk.core.tokens import HeuristicTokenCounter, TiktokenCounter, resolve_counter


def test_heuristic_is_ceil_of_chars_over_ratio() -> None:
    counter = HeuristicTokenCounter()
    assert [counter.count("x" * n) for n in (0, 1, 4, 5, 8)] == [0, 1, 1, 2, 2]
    assert HeuristicTokenCounter(2.0).count("abcde") == 3
    with pytest.raises(ValueError):
        HeuristicTokenCounter(0)


def test_the_real_tokenizer_counts_offline_and_fixes_non_latin_text() -> None:
    counter = TiktokenCounter("cl100k_base")
    assert counter.count("") == 0
    assert counter.count("hello world") == 2
    japanese = "今日は良い天気ですね。明日も晴れるといいですね。"
    assert counter.count(japanese) > 2 * HeuristicTokenCounter().count(japanese)
    assert counter.count("<|endoftext|>") > 1  # special-token text is plain text here


def test_resolve_counter_by_name() -> None:
    assert isinstance(resolve_counter(), HeuristicTokenCounter)
    assert isinstance(resolve_counter("o200k_base"), TiktokenCounter)
