"""Orchid's supervisor settings (``supervisor:`` in ``agents.yaml``) and its ``memory:`` block.

The fields and defaults are Orchid's (``orchid_ai.config.schema``), so Orchid's own code reads
them unchanged (``sup.history_max_turns``, ``sup.memory.structured_output``, ...).
:meth:`OrchidSupervisorConfig.memory_config` turns them into longtalk's ``MemoryConfig``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from longtalk.config import MemoryConfig

__all__ = ["OrchidMemoryConfig", "OrchidSupervisorConfig"]


class OrchidMemoryConfig(BaseModel):
    """``supervisor.memory``: the conversation memory strategy, with Orchid's defaults."""

    model_config = ConfigDict(extra="forbid")

    strategy: Literal["none", "running_summary", "rag_augmented"] = "none"
    summary_recent_turns: int = Field(default=10, ge=1)
    summary_model: str | None = None
    summary_prompt: str | None = None
    persist_summary: bool = True
    structured_output: bool = True
    rag_namespace: str = "__memory__"
    rag_k: int = Field(default=5, ge=1)
    rag_similarity_threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    store_turns: bool = True
    truncation_strategy: Literal["hard", "middle", "llm", "semantic"] = "hard"
    truncation_max_chars: int = Field(default=1000, ge=100)


class OrchidSupervisorConfig(BaseModel):
    """The supervisor's prompts, models, history limits, compression toggles and memory."""

    assistant_name: str = "AI assistant"
    fallback_model: str | None = None
    streaming_enabled: bool = True
    routing_system_prompt: str | None = None
    synthesis_system_prompt: str | None = None
    sequential_advance_prompt: str | None = None
    history_max_turns: int = 20
    history_max_chars: int = 1000
    routing_model: str | None = None
    history_summary_enabled: bool = True
    history_summary_model: str | None = None
    history_summary_recent_turns: int = 10
    skip_synthesis_when_single_agent: bool = True
    memory: OrchidMemoryConfig = Field(default_factory=OrchidMemoryConfig)

    def memory_config(self, **overrides: Any) -> MemoryConfig:
        """The longtalk configuration these settings amount to, as Orchid would behave.

        The summary is on while ``history_summary_enabled`` is: with the block's strategy,
        or a running summary when the block says ``none`` (Orchid then still compresses the
        history, without keeping the summary; longtalk keeps it). The legacy toggles fill
        what the ``memory:`` block leaves unset: ``history_summary_model`` the summary model,
        ``history_summary_recent_turns`` the verbatim window, ``history_max_chars`` the
        per-message cap; ``history_max_turns`` caps the verbatim turns. ``overrides`` set
        longtalk's own keys (``summary_trigger``, ``context_max_tokens``, ...).
        """
        block, explicit = self.memory, self.memory.model_fields_set
        settings: dict[str, Any] = block.model_dump()
        settings["strategy"] = self._strategy()
        settings["summary_model"] = block.summary_model or self.history_summary_model
        settings["history_max_turns"] = self.history_max_turns
        if "summary_recent_turns" not in explicit:
            settings["summary_recent_turns"] = self.history_summary_recent_turns
        if "truncation_max_chars" not in explicit:
            settings["truncation_max_chars"] = self.history_max_chars
        return MemoryConfig.model_validate({**settings, **overrides})

    def _strategy(self) -> str:
        if not self.history_summary_enabled:
            return "none"
        return "running_summary" if self.memory.strategy == "none" else self.memory.strategy
