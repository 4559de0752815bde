"""Truncation strategies: exact lengths, fallbacks, LLM and semantic selection."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from longtalk.compat.truncation import truncate_content, truncate_content_async
from longtalk.core.truncation import (
    ELLIPSIS,
    MIDDLE_MARKER,
    TruncationStrategy,
    split_sentences,
)
from longtalk.embed.semantic_shortener import TextEmbedder
from longtalk.errors import LLMTransientError
from longtalk.llm.base import LLM
from longtalk.testing import BagOfWordsEmbedder, ScriptedLLM

TEXT = "".join(chr(ord("a") + i % 26) for i in range(500))


class BrokenEmbedder:
    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        raise RuntimeError("model not loaded")


def test_doubles_fit_the_seams() -> None:
    assert isinstance(ScriptedLLM(), LLM)
    assert isinstance(BagOfWordsEmbedder(), TextEmbedder)


# -- hard ------------------------------------------------------------------------------


@pytest.mark.parametrize("max_chars", [1, 2, 10, 100, 499])
def test_hard_is_exactly_max_chars_with_an_ellipsis(max_chars: int) -> None:
    result = truncate_content(TEXT, max_chars)
    assert len(result) == max_chars
    assert result == TEXT[: max_chars - 1] + ELLIPSIS


@pytest.mark.parametrize("max_chars", [500, 501, 10_000])
def test_hard_leaves_content_that_fits_unchanged(max_chars: int) -> None:
    assert truncate_content(TEXT, max_chars, TruncationStrategy.HARD) == TEXT


def test_hard_zero_limit_returns_empty_and_negative_is_an_error() -> None:
    assert truncate_content(TEXT, 0) == ""
    assert truncate_content("", 0) == ""
    with pytest.raises(ValueError, match="max_chars"):
        truncate_content(TEXT, -1)


def test_hard_counts_unicode_code_points_not_bytes() -> None:
    content = "日本語のテキスト🙂" * 10  # 90 code points, many more UTF-8 bytes
    result = truncate_content(content, 20)
    assert len(result) == 20
    assert result == content[:19] + ELLIPSIS
    emoji = "🙂" * 5
    assert truncate_content(emoji, 5) == emoji
    assert truncate_content(emoji, 4) == "🙂🙂🙂" + ELLIPSIS


# -- middle ----------------------------------------------------------------------------


@pytest.mark.parametrize("max_chars", [65, 66, 100, 101, 333, 499])
def test_middle_keeps_forty_percent_at_each_end(max_chars: int) -> None:
    keep = int(max_chars * 0.4)
    result = truncate_content(TEXT, max_chars, "middle")
    assert result == TEXT[:keep] + MIDDLE_MARKER + TEXT[-keep:]
    assert len(result) == 2 * keep + len(MIDDLE_MARKER) <= max_chars


def test_middle_exact_figures_for_a_thousand() -> None:
    content = "x" * 400 + "MIDDLE" * 100 + "y" * 400
    result = truncate_content(content, 1000, TruncationStrategy.MIDDLE)
    assert result == "x" * 400 + "…[truncated]…" + "y" * 400
    assert len(result) == 813


@pytest.mark.parametrize("max_chars", [1, 2, 10, 13, 32, 56, 58, 60])
def test_middle_falls_back_to_hard_when_the_marker_does_not_fit(max_chars: int) -> None:
    # 2 * int(0.4 * n) + 13 > n for these n: the marker and both 40 % ends do not fit.
    assert truncate_content(TEXT, max_chars, "middle") == TEXT[: max_chars - 1] + ELLIPSIS


@pytest.mark.parametrize(("max_chars", "keep"), [(57, 22), (59, 23), (61, 24), (65, 26)])
def test_middle_at_the_smallest_limits_that_fit(max_chars: int, keep: int) -> None:
    result = truncate_content(TEXT, max_chars, "middle")
    assert result == TEXT[:keep] + MIDDLE_MARKER + TEXT[-keep:]
    assert len(result) == 2 * keep + 13 <= max_chars


def test_middle_unchanged_when_it_fits_and_unicode_is_kept_whole() -> None:
    assert truncate_content("short", 5, "middle") == "short"
    content = "é" * 100 + "🙂" * 100
    result = truncate_content(content, 100, "middle")
    assert result == "é" * 40 + MIDDLE_MARKER + "🙂" * 40


# -- llm -------------------------------------------------------------------------------


async def test_llm_answer_is_cleaned_and_used() -> None:
    llm = ScriptedLLM(default="<think>plan</think>Short version.<|im_end|>")
    result = await truncate_content_async(TEXT, 100, TruncationStrategy.LLM, llm=llm)
    assert result == "Short version."
    assert len(llm.calls) == 1
    prompt = llm.calls[0].request.messages[-1].content
    assert "100 characters" in prompt and TEXT in prompt


async def test_llm_answer_longer_than_the_limit_is_cut_to_it() -> None:
    llm = ScriptedLLM(default="word " * 100)
    result = await truncate_content_async(TEXT, 50, "llm", llm=llm)
    assert len(result) == 50
    assert result.endswith(ELLIPSIS)


@pytest.mark.parametrize(
    "llm",
    [
        ScriptedLLM(default=LLMTransientError("timeout")),
        ScriptedLLM(default=RuntimeError("driver exploded")),
        ScriptedLLM(default=""),
        ScriptedLLM(default="   <|im_end|>  "),
        ScriptedLLM(default="<think>only reasoning</think>"),
        None,
    ],
    ids=["llm-error", "other-error", "empty", "only-tokens", "only-reasoning", "no-llm"],
)
async def test_llm_falls_back_to_middle_on_any_failure(llm: ScriptedLLM | None) -> None:
    result = await truncate_content_async(TEXT, 100, "llm", llm=llm)
    assert result == truncate_content(TEXT, 100, "middle")
    assert MIDDLE_MARKER in result


async def test_llm_is_not_called_when_content_fits() -> None:
    llm = ScriptedLLM(default="never")
    assert await truncate_content_async("short", 100, "llm", llm=llm) == "short"
    assert llm.calls == []


def test_sync_llm_strategy_uses_middle() -> None:
    assert truncate_content(TEXT, 100, "llm") == truncate_content(TEXT, 100, "middle")


async def test_async_matches_sync_for_the_other_strategies() -> None:
    for strategy in ("hard", "middle", "semantic"):
        expected = truncate_content(TEXT, 80, strategy)
        assert await truncate_content_async(TEXT, 80, strategy) == expected


def test_unknown_strategy_is_an_error() -> None:
    with pytest.raises(ValueError, match="bogus"):
        truncate_content(TEXT, 10, "bogus")


# -- semantic --------------------------------------------------------------------------

REPORT = (
    "The weather in Lisbon was sunny all week. "
    "Our flight to Porto leaves at nine on Friday. "
    "Maria ordered grilled sardines at dinner. "
    "The hotel in Porto has a rooftop pool. "
    "We bought a ceramic rooster as a souvenir."
)


def test_split_sentences() -> None:
    assert split_sentences("One. Two!  Three?\nFour\n\nFive… six") == [
        "One.",
        "Two!",
        "Three?",
        "Four",
        "Five…",
        "six",
    ]


def test_semantic_keeps_the_relevant_sentences_in_original_order() -> None:
    embedder = BagOfWordsEmbedder()
    result = truncate_content(
        REPORT, 90, "semantic", query="when does the flight to porto leave", embedder=embedder
    )
    assert (
        result
        == "Our flight to Porto leaves at nine on Friday. … The hotel in Porto has a rooftop pool."
    )
    assert len(result) <= 90
    assert embedder.calls == 1


def test_semantic_joins_adjacent_sentences_with_a_space() -> None:
    result = truncate_content(
        REPORT,
        120,
        "semantic",
        query="sardines dinner flight Porto Friday",
        embedder=BagOfWordsEmbedder(),
    )
    assert result == (
        "Our flight to Porto leaves at nine on Friday. Maria ordered grilled sardines at dinner."
    )


@pytest.mark.parametrize("max_chars", [5, 30, 44, 45, 60, 100, 150, 199])
def test_semantic_never_exceeds_the_limit(max_chars: int) -> None:
    result = truncate_content(
        REPORT, max_chars, "semantic", query="Porto hotel pool", embedder=BagOfWordsEmbedder()
    )
    assert 0 < len(result) <= max_chars


def test_semantic_cuts_the_best_sentence_when_none_fits() -> None:
    result = truncate_content(
        REPORT, 20, "semantic", query="ceramic rooster souvenir", embedder=BagOfWordsEmbedder()
    )
    assert result == "We bought a ceramic" + ELLIPSIS


@pytest.mark.parametrize(
    ("query", "embedder"),
    [(None, BagOfWordsEmbedder()), ("  ", BagOfWordsEmbedder()), ("Porto", None)],
    ids=["no-query", "blank-query", "no-embedder"],
)
def test_semantic_falls_back_to_middle(query: str | None, embedder: TextEmbedder | None) -> None:
    result = truncate_content(REPORT, 100, "semantic", query=query, embedder=embedder)
    assert result == truncate_content(REPORT, 100, "middle")


def test_semantic_falls_back_to_middle_when_the_embedder_fails_or_is_wrong() -> None:
    expected = truncate_content(REPORT, 100, "middle")
    assert truncate_content(REPORT, 100, "semantic", query="x", embedder=BrokenEmbedder()) == (
        expected
    )

    class WrongShape:
        def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
            return np.ones((1, 3), dtype=np.float32)

    assert truncate_content(REPORT, 100, "semantic", query="x", embedder=WrongShape()) == expected


def test_semantic_single_sentence_uses_middle_and_fitting_content_is_unchanged() -> None:
    sentence = "word " * 40
    embedder = BagOfWordsEmbedder()
    assert truncate_content(sentence, 80, "semantic", query="word", embedder=embedder) == (
        truncate_content(sentence, 80, "middle")
    )
    assert truncate_content(REPORT, 1000, "semantic", query="x", embedder=embedder) == REPORT
    assert embedder.calls == 0


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What time is our plane departing?", "Our flight to Porto leaves at nine on Friday."),
        ("What did she eat in the evening?", "Maria ordered grilled sardines at dinner."),
        ("Any gifts to bring home?", "We bought a ceramic rooster as a souvenir."),
    ],
)
def test_semantic_with_the_real_minilm_model_matches_paraphrases(query: str, expected: str) -> None:
    # No word of these queries appears in the sentence they should find.
    from longtalk.embed.minilm import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    assert isinstance(embedder, TextEmbedder)
    result = truncate_content(REPORT, 60, "semantic", query=query, embedder=embedder)
    assert result == expected
