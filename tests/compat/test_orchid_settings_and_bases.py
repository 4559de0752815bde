"""Orchid's supervisor settings, memory block and memory base classes in the compat package."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from longtalk.compat.orchid import (
    LongtalkChatStorage,
    NullConversationMemory,
    NullVectorReader,
    OrchidConversationMemory,
    OrchidInMemoryConversationMemory,
    OrchidMemoryConfig,
    OrchidRAGConversationMemory,
    OrchidSupervisorConfig,
)
from longtalk.storage.in_memory import InMemoryStorage

AGENTS_YAML = """
supervisor:
  assistant_name: Travel desk
  routing_model: gemini/gemini-2.5-flash-lite
  history_summary_model: gemini/gemini-2.5-flash-lite
  history_max_turns: 12
  memory:
    strategy: rag_augmented
    summary_recent_turns: 4
    truncation_strategy: middle
"""

# --- the supervisor settings ------------------------------------------------------------------


def test_the_memory_block_defaults_to_orchids_own() -> None:
    memory = OrchidSupervisorConfig().memory
    assert isinstance(memory, OrchidMemoryConfig)
    assert (memory.strategy, memory.structured_output, memory.summary_recent_turns) == (
        "none",
        True,
        10,
    )
    assert (memory.rag_k, memory.rag_similarity_threshold, memory.rag_namespace) == (
        5,
        0.5,
        "__memory__",
    )
    assert (memory.truncation_strategy, memory.truncation_max_chars) == ("hard", 1000)


def test_orchids_agents_yaml_reads_as_orchid_reads_it() -> None:
    sup = OrchidSupervisorConfig.model_validate(yaml.safe_load(AGENTS_YAML)["supervisor"])
    assert (sup.assistant_name, sup.history_max_turns, sup.history_max_chars) == (
        "Travel desk",
        12,
        1000,
    )
    assert (sup.memory.strategy, sup.memory.truncation_strategy) == ("rag_augmented", "middle")
    assert sup.streaming_enabled and sup.fallback_model is None


@pytest.mark.parametrize(
    ("memory", "key"),
    [
        ({"stratgy": "none"}, "stratgy"),
        ({"rag_k": 0}, "rag_k"),
        ({"truncation_max_chars": 50}, "truncation_max_chars"),
    ],
)
def test_a_bad_memory_block_is_refused_naming_the_key(memory: dict[str, Any], key: str) -> None:
    with pytest.raises(ValidationError, match=key):
        OrchidSupervisorConfig(memory=memory)


def test_without_a_block_the_legacy_toggles_choose_the_native_settings() -> None:
    config = OrchidSupervisorConfig().memory_config()
    assert (config.strategy, config.summary_recent_turns, config.history_max_turns) == (
        "running_summary",
        10,
        20,
    )
    assert config.truncation_max_chars == 1000
    off = OrchidSupervisorConfig(history_summary_enabled=False).memory_config()
    assert off.strategy == "none"


def test_a_block_keeps_its_values_and_the_toggles_fill_the_rest() -> None:
    sup = OrchidSupervisorConfig.model_validate(yaml.safe_load(AGENTS_YAML)["supervisor"])
    config = sup.memory_config()
    assert (config.strategy, config.summary_recent_turns) == ("rag_augmented", 4)
    assert (config.rag_k, config.rag_similarity_threshold) == (5, 0.5)  # Orchid's, not longtalk's
    assert config.summary_model == "gemini/gemini-2.5-flash-lite"  # history_summary_model
    assert (config.truncation_strategy, config.history_max_turns) == ("middle", 12)


def test_a_block_without_a_strategy_still_summarizes_while_compression_is_on() -> None:
    block = {"summary_model": "ollama:qwen2.5:3b"}
    config = OrchidSupervisorConfig(memory=block).memory_config()
    assert (config.strategy, config.summary_model) == ("running_summary", "ollama:qwen2.5:3b")


def test_longtalks_own_keys_are_set_as_overrides_and_checked() -> None:
    config = OrchidSupervisorConfig().memory_config(summary_trigger="count_or_tokens")
    assert config.summary_trigger == "count_or_tokens"
    with pytest.raises(ValidationError, match="summary_trigger"):
        OrchidSupervisorConfig().memory_config(summary_trigger="sometimes")


# --- the memory base classes ------------------------------------------------------------------


def test_the_memory_seam_is_abstract() -> None:
    class Partial(OrchidConversationMemory):
        async def get_running_summary(self, chat_id: str) -> str | None:
            return None

    with pytest.raises(TypeError, match="abstract"):
        Partial()  # type: ignore[abstract]


async def test_the_null_memory_remembers_nothing() -> None:
    memory = NullConversationMemory()
    assert isinstance(memory, OrchidConversationMemory)
    turn = {"role": "user", "content": "I'm allergic to peanuts."}
    assert await memory.store_conversation_turn("c", "t", "u", turn, {"k": "v"}) is None
    assert await memory.get_running_summary("c") is None
    assert await memory.update_running_summary("c", [turn], None) == ""
    assert await memory.update_running_summary("c", [turn], "Earlier.") == "Earlier."
    assert await memory.get_relevant_history("peanuts", "c") == []


def test_the_shims_memories_are_orchid_memories() -> None:
    storage = LongtalkChatStorage(InMemoryStorage())
    plain = OrchidInMemoryConversationMemory(storage, chat_model=None)
    reader = NullVectorReader()
    rag = OrchidRAGConversationMemory(storage, None, reader, writer=None)
    assert isinstance(plain, OrchidConversationMemory)
    assert isinstance(rag, OrchidConversationMemory)


async def test_a_deployments_own_memory_subclasses_the_base() -> None:
    class DictMemory(NullConversationMemory):
        def __init__(self) -> None:
            self.summaries: dict[str, str] = {}

        async def get_running_summary(self, chat_id: str) -> str | None:
            return self.summaries.get(chat_id)

        async def update_running_summary(
            self, chat_id: str, new_messages: list[dict[str, str]], existing_summary: str | None
        ) -> str:
            lines = [existing_summary or "", *(m["content"] for m in new_messages)]
            self.summaries[chat_id] = " ".join(line for line in lines if line)
            return self.summaries[chat_id]

    memory: OrchidConversationMemory = DictMemory()
    await memory.update_running_summary("c", [{"role": "user", "content": "a"}], None)
    updated = await memory.update_running_summary("c", [{"role": "user", "content": "b"}], "a")
    assert updated == "a b"
    assert await memory.get_running_summary("c") == "a b"


async def test_the_null_reader_makes_the_rag_memory_a_running_summary_memory() -> None:
    storage = LongtalkChatStorage(InMemoryStorage())
    memory = OrchidRAGConversationMemory(storage, None, NullVectorReader(), NullVectorReader())
    recent = [{"role": "user", "content": "hi"}]
    assert await memory.get_relevant_history("hi", "c", similarity_threshold=0.0) == []
    assert await memory.get_relevant_history_merged("hi", "c", recent) == recent
