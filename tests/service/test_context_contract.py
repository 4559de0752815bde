"""The context contract over HTTP: per-request numbers, and truncation backends in every view."""

from __future__ import annotations

from pathlib import Path

import httpx
from service_harness import SummaryModel, exchange, make_settings, running

from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.engine import MemoryEngine
from longtalk.service import create_app
from longtalk.storage.resolve import from_url
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.testing import FunctionLLM


async def test_window_and_summary_cap_are_settable_per_request(
    tmp_path: Path, model: SummaryModel
) -> None:
    async with running(make_settings(tmp_path), model) as api:
        chat = (await api.client.post("/chats", json={})).json()["id"]
        for number in range(8):
            await api.client.post(f"/chats/{chat}/messages", json={"messages": exchange(number)})
        await api.settle()
        wide = {"budget_tokens": 400}
        default = (await api.client.post(f"/chats/{chat}/context", json=wide)).json()
        assert default["window_intact"] and default["dropped_pending"] == 0
        body = {"summary_max_tokens": 25, "recent_turns": 1, "budget_tokens": 200}
        capped = (await api.client.post(f"/chats/{chat}/context", json=body)).json()
        summary = next(p for p in capped["parts"] if p["kind"] == "summary")
        assert summary["tokens"] <= 25 and summary["truncated"]
        assert capped["tokens_used"] <= 200 and capped["window_intact"]
        bad = {"summary_max_tokens": -1}
        assert (await api.client.post(f"/chats/{chat}/context", json=bad)).status_code == 422


async def test_semantic_truncation_survives_a_strategy_view(tmp_path: Path) -> None:
    """A context asked with another strategy still truncates with the embedder, not middle."""
    settings = make_settings(tmp_path).model_copy(deep=True)
    memory = settings.supervisor.memory
    assert memory is not None
    memory.truncation_strategy = "semantic"
    memory.truncation_max_chars = 90
    long = (
        "The cat slept all afternoon on the sofa. The invoice total is 420 euros. "
        "Payment for the invoice is due on March 3. The garden needs watering soon."
    )
    async with from_url(settings.storage) as storage:
        engine = MemoryEngine(
            storage,
            config=settings.memory,
            writer=LLMSummaryWriter(FunctionLLM(lambda _: "summary"), use_json_schema=False),
            embedder=MiniLMEmbedder(),
        )
        app = create_app(settings, engine=engine)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://localhost"
            ) as client:
                chat = (await client.post("/chats", json={})).json()["id"]
                messages = [
                    {"role": "assistant", "content": long},
                    {"role": "user", "content": "When is the invoice payment due?"},
                ]
                await client.post(f"/chats/{chat}/messages", json={"messages": messages})
                body = {"strategy": "none"}  # a view: not the service's own engine
                text = (await client.post(f"/chats/{chat}/context", json=body)).json()["text"]
                assert "Payment for the invoice is due on March 3." in text
                assert "…[truncated]…" not in text and "garden" not in text
