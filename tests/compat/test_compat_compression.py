"""Orchid's running summary as a function over longtalk messages (compat.compression)."""

from __future__ import annotations

import pytest

from longtalk.compat.compression import compress_conversation_history
from longtalk.config import MemoryConfig
from longtalk.core.messages import Message, assistant, user
from longtalk.core.tokens import HeuristicTokenCounter
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.testing import ScriptedLLM


def exchange(i: int) -> list[Message]:
    return [user(f"question {i} about topic {i} " + "q" * 60), assistant(f"answer {i} " + "a" * 60)]


async def test_compress_conversation_history_is_incremental() -> None:
    llm = ScriptedLLM(default="S")
    writer = LLMSummaryWriter(llm)
    config = MemoryConfig(
        strategy="running_summary",
        summary_recent_turns=2,
        summary_trigger_tokens=60,
        structured_output=False,
    )
    history: list[Message] = []
    result = None
    for i in range(10):
        history += exchange(i)
        result = await compress_conversation_history(
            history, writer=writer, previous=result, config=config, counter=HeuristicTokenCounter()
        )
    assert result is not None and result.summary_text == "S"
    assert result.to_messages()[0].content.startswith("[Conversation summary]")
    assert result.verbatim[-1].content.startswith("answer 9")
    inputs = "\n".join(c.request.messages[-1].content for c in llm.calls)
    assert all(inputs.count(f"question {i} ") == 1 for i in range(result.summarized_count // 2))
    with pytest.raises(ValueError, match="whole conversation"):
        await compress_conversation_history(history[:2], writer=writer, previous=result)
