"""A summary request is capped at what a summary can need and asks to be stopped in a loop."""

from __future__ import annotations

from longtalk.config import MemoryConfig
from longtalk.core.messages import user
from longtalk.summary.llm_writer import LLMSummaryWriter, reply_token_cap
from longtalk.summary.model import SCHEMA_BOUNDS, ConversationSummary
from longtalk.testing import ScriptedLLM


def test_the_cap_follows_the_summary_caps() -> None:
    assert reply_token_cap(MemoryConfig()) == 4000  # twice the 1,600-token shown cap
    small = MemoryConfig(summary_row_max_tokens=100, summary_max_tokens=50)
    assert reply_token_cap(small) == 250
    wide = MemoryConfig(summary_row_max_tokens=100, summary_max_tokens=400)
    assert reply_token_cap(wide) == 1000  # a digest may need more than a row


def test_requests_carry_the_cap_and_the_loop_guard() -> None:
    config = MemoryConfig(summary_row_max_tokens=100, summary_max_tokens=50)
    writer = LLMSummaryWriter(ScriptedLLM(), config=config)
    for structured in (True, False):
        request = writer.build_request(None, [user("We met in Lyon.")], structured=structured)
        assert request.max_tokens == 250 and request.stop_on_repetition
    digest = writer.build_consolidation(
        [ConversationSummary(narrative="a")], max_tokens=50, structured=True
    )
    assert digest.max_tokens == 250 and digest.stop_on_repetition
    schema = digest.json_schema
    assert schema is not None
    assert schema["properties"]["topics"]["maxItems"] == SCHEMA_BOUNDS["items"]
    assert schema["properties"]["narrative"]["maxLength"] == SCHEMA_BOUNDS["narrative"]
    explicit = LLMSummaryWriter(ScriptedLLM(), structured_max_tokens=64, max_tokens=32)
    assert explicit.build_request(None, [user("x")], structured=True).max_tokens == 64
    assert explicit.build_request(None, [user("x")], structured=False).max_tokens == 32
