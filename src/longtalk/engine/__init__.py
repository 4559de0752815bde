"""The spine: one append, one context path, one job path (see :mod:`.memory_engine`)."""

from longtalk.core.receipt import ForgetItem, ForgetReceipt
from longtalk.engine.forget import Forgetter
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
    "ForgetItem",
    "ForgetReceipt",
    "Forgetter",
    "JobListener",
    "MemoryEngine",
    "ReadOptions",
    "RecallBackend",
    "SummarizeOutcome",
    "SummaryJob",
    "TurnResult",
    "index_later",
]
