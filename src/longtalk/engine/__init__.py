"""The spine: one append, one context path, one job path (see :mod:`.memory_engine`)."""

from longtalk.engine.job import JobListener, SummarizeOutcome, SummaryJob
from longtalk.engine.memory_engine import (
    AfterAppend,
    MemoryEngine,
    RecallBackend,
    TurnResult,
    index_later,
)
from longtalk.engine.reading import MIN_BUDGET_TOKENS, ContextReader, ReadOptions

__all__ = [
    "MIN_BUDGET_TOKENS",
    "AfterAppend",
    "ContextReader",
    "JobListener",
    "MemoryEngine",
    "ReadOptions",
    "RecallBackend",
    "SummarizeOutcome",
    "SummaryJob",
    "TurnResult",
    "index_later",
]
