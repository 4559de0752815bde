"""Every cache and queue has a bound: what a client can make the service remember is capped."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from service_harness import Harness, SummaryModel, make_settings, running

from longtalk.core.tokens import TokenUsage
from longtalk.llm.usage import UsageLedger, UsageRecord
from longtalk.service.llm_watch import LLMWatch


@pytest.fixture
async def api(tmp_path: Path, model: SummaryModel) -> AsyncIterator[Harness]:
    async with running(make_settings(tmp_path), model) as harness:
        yield harness


async def test_made_up_methods_share_one_metrics_label(api: Harness) -> None:
    for number in range(40):
        await api.client.request(f"FETCH{number}", "/chats")
    metrics = (await api.client.get("/metrics")).text
    assert "FETCH" not in metrics
    assert 'longtalk_http_requests_total{method="OTHER",route="/chats",status="405"} 40.0' in (
        metrics
    )


def test_the_usage_ledger_keeps_a_bounded_number_of_chats() -> None:
    ledger = UsageLedger(max_chats=100)
    for number in range(1000):
        ledger.record(UsageRecord(TokenUsage(10, 2), chat_id=f"c{number}", tenant="t"))
    ledger.record(UsageRecord(TokenUsage(1, 1), chat_id="c950", tenant="t"))
    assert ledger.for_chat("c0") == TokenUsage()  # the least recently billed went
    assert ledger.for_chat("c950") == TokenUsage(11, 3)
    assert ledger.for_tenant("t") == TokenUsage(10_001, 2_001)  # tenant totals keep all
    assert len(ledger._by_chat) == 100


def test_the_model_watch_keeps_the_last_calls_only() -> None:
    watch = LLMWatch(timeout=5, keep=20)
    for number in range(500):
        watch.finished(watch.started(), None if number % 2 else "boom")
    report = watch.report()
    assert report["recent"] == 20 and report["failed"] == 10 and report["in_flight"] == 0
