"""Orchid's supervisor-level history settings (``supervisor:`` in ``agents.yaml``).

The ``memory:`` block is longtalk's own ``MemoryConfig``, whose keys are Orchid's.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from longtalk.config import MemoryConfig


class OrchidSupervisorConfig(BaseModel):
    """The legacy compression toggles and the optional ``memory:`` block."""

    model_config = ConfigDict(extra="allow")

    history_summary_enabled: bool = True
    history_summary_model: str | None = None
    history_summary_recent_turns: int = 10
    history_max_turns: int | None = None
    history_max_chars: int | None = None
    memory: MemoryConfig | None = None

    def memory_config(self) -> MemoryConfig:
        """The longtalk configuration these settings amount to.

        The ``memory:`` block when given; otherwise a running summary (or none, when
        ``history_summary_enabled`` is off) from the legacy toggles.
        """
        if self.memory is not None:
            return self.memory
        settings: dict[str, object] = {
            "strategy": "running_summary" if self.history_summary_enabled else "none",
            "summary_recent_turns": self.history_summary_recent_turns,
            "summary_model": self.history_summary_model,
            "history_max_turns": self.history_max_turns,
        }
        if self.history_max_chars is not None:
            settings["truncation_max_chars"] = self.history_max_chars
        return MemoryConfig.model_validate(settings)
