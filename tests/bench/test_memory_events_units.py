"""The memory-events matcher cuts quoted sentences as it cuts prose."""

from __future__ import annotations

from bench_loader import load_bench


def test_a_closing_quote_after_a_sentence_end_ends_the_unit() -> None:
    bench = load_bench("memory_events")
    quoted = 'Nate (3 June 2022): "I won the tournament." Nate (4 June 2022): "I adopted a dog!"'
    assert bench.units(quoted) == [
        'Nate (3 June 2022): "I won the tournament."',
        'Nate (4 June 2022): "I adopted a dog!"',
    ]
    assert bench.units("Nate won. He adopted a dog.\nJoanna wrote a book.") == [
        "Nate won.",
        "He adopted a dog.",
        "Joanna wrote a book.",
    ]
