"""Token usage per LLM call, summed per chat, tenant and model (it feeds cost accounting).

Wrap any backend in :class:`MeteredLLM` with a shared :class:`UsageLedger`; the request's
``metadata`` keys ``chat_id`` and ``tenant`` say whom a call is billed to. The service
exports the ledger as Prometheus metrics through :class:`UsageCollector` (per tenant and
model: per-chat labels would make unbounded series).
"""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from longtalk.core.tokens import TokenUsage
from longtalk.errors import LLMOutputError
from longtalk.llm.base import LLM, LLMRequest, LLMResponse

__all__ = ["MeteredLLM", "UsageCollector", "UsageLedger", "UsageRecord"]


@dataclass(frozen=True, slots=True)
class UsageRecord:
    """One call's cost."""

    usage: TokenUsage
    chat_id: str = ""
    tenant: str = ""
    model: str = ""


MAX_CHATS = 10_000
"""Chats whose own totals a ledger keeps (the least recently billed go first)."""


class UsageLedger:
    """Thread-safe running totals of token usage; keeps only sums, never the calls.

    Per-chat totals are bounded (``max_chats``, least recently billed dropped first); the
    totals per tenant and model and the grand total keep everything.
    """

    def __init__(self, *, max_chats: int = MAX_CHATS) -> None:
        self._lock = threading.Lock()
        self.max_chats = max_chats
        self._by_chat: OrderedDict[str, TokenUsage] = OrderedDict()
        self._by_key: dict[tuple[str, str], TokenUsage] = defaultdict(TokenUsage)
        self._calls: dict[tuple[str, str], int] = defaultdict(int)
        self._total = TokenUsage()

    def record(self, record: UsageRecord) -> None:
        """Add one call's usage to the totals."""
        key = (record.tenant, record.model)
        with self._lock:
            if record.chat_id:
                spent = self._by_chat.pop(record.chat_id, TokenUsage())
                self._by_chat[record.chat_id] = spent + record.usage
                while len(self._by_chat) > self.max_chats:
                    self._by_chat.popitem(last=False)
            self._by_key[key] += record.usage
            self._calls[key] += 1
            self._total += record.usage

    @property
    def total(self) -> TokenUsage:
        """Everything recorded."""
        with self._lock:
            return self._total

    def for_chat(self, chat_id: str) -> TokenUsage:
        """The usage of one chat (zero if it never called a model)."""
        with self._lock:
            return self._by_chat.get(chat_id, TokenUsage())

    def for_tenant(self, tenant: str) -> TokenUsage:
        """The usage of one tenant, all models together."""
        with self._lock:
            return sum((u for (t, _), u in self._by_key.items() if t == tenant), start=TokenUsage())

    def by_tenant_and_model(self) -> dict[tuple[str, str], tuple[int, TokenUsage]]:
        """``{(tenant, model): (calls, usage)}``, a snapshot."""
        with self._lock:
            return {key: (self._calls[key], usage) for key, usage in self._by_key.items()}

    def forget_chat(self, chat_id: str) -> None:
        """Drop a deleted chat's per-chat total (tenant totals keep it)."""
        with self._lock:
            self._by_chat.pop(chat_id, None)


class MeteredLLM:
    """An :class:`~longtalk.llm.base.LLM` that records the usage of every answered call."""

    def __init__(self, llm: LLM, ledger: UsageLedger) -> None:
        self.llm = llm
        self.ledger = ledger

    def __repr__(self) -> str:
        return f"MeteredLLM({self.llm!r})"

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Complete through the wrapped backend and record the usage.

        A reply that came back unusable (cut off, empty) still cost tokens: it is recorded
        too, then the error propagates.
        """
        try:
            response = await self.llm.complete(request)
        except LLMOutputError as exc:
            spent = getattr(exc, "response", None)
            if isinstance(spent, LLMResponse):
                self._record(request, spent)
            raise
        self._record(request, response)
        return response

    def _record(self, request: LLMRequest, response: LLMResponse) -> None:
        self.ledger.record(
            UsageRecord(
                usage=response.usage,
                chat_id=request.metadata.get("chat_id", ""),
                tenant=request.metadata.get("tenant", ""),
                model=response.model,
            )
        )


class UsageCollector:
    """A prometheus-client collector over a ledger: calls and tokens per tenant and model.

    Register it once: ``prometheus_client.REGISTRY.register(UsageCollector(ledger))``.
    """

    def __init__(self, ledger: UsageLedger, *, prefix: str = "longtalk_llm") -> None:
        self.ledger = ledger
        self.prefix = prefix

    def collect(self) -> Iterator[Any]:
        """Yield ``<prefix>_calls_total`` and ``<prefix>_tokens_total{direction=...}``."""
        from prometheus_client.core import CounterMetricFamily

        calls = CounterMetricFamily(f"{self.prefix}_calls", "LLM calls", labels=["tenant", "model"])
        tokens = CounterMetricFamily(
            f"{self.prefix}_tokens", "LLM tokens", labels=["tenant", "model", "direction"]
        )
        for (tenant, model), (count, usage) in sorted(self.ledger.by_tenant_and_model().items()):
            calls.add_metric([tenant, model], count)
            tokens.add_metric([tenant, model, "input"], usage.input_tokens)
            tokens.add_metric([tenant, model, "output"], usage.output_tokens)
        yield calls
        yield tokens

    def describe(self) -> Iterator[Any]:
        """No fixed description: metrics are produced at collection time."""
        return iter(())
