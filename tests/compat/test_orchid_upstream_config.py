"""Tests for src.config.schema — Pydantic config models."""

# Orchid's own supervisor-settings tests (orchid-ai: ``TestSupervisorConfig`` from
# tests/test_config_schema.py, ``TestCompressConfigSchema`` from tests/test_compress_history.py),
# run against longtalk's shim: copied unchanged but for the import lines. The other classes of
# those files test Orchid's agent, MCP and tool settings, which longtalk does not replace.
# MIT licence: see UPSTREAM_LICENSES.md here.

from __future__ import annotations

from longtalk.compat.orchid.config import (
    OrchidSupervisorConfig,
)

# ── OrchidSupervisorConfig ────────────────────────────────────────


class TestSupervisorConfig:
    def test_default_assistant_name(self):
        cfg = OrchidSupervisorConfig()
        assert cfg.assistant_name == "AI assistant"

    def test_default_prompt_fields_none(self):
        cfg = OrchidSupervisorConfig()
        assert cfg.routing_system_prompt is None
        assert cfg.synthesis_system_prompt is None
        assert cfg.sequential_advance_prompt is None

    def test_default_history_limits(self):
        cfg = OrchidSupervisorConfig()
        assert cfg.history_max_turns == 20
        assert cfg.history_max_chars == 1000

    def test_custom_history_limits(self):
        cfg = OrchidSupervisorConfig(history_max_turns=5, history_max_chars=500)
        assert cfg.history_max_turns == 5
        assert cfg.history_max_chars == 500

    def test_routing_model_defaults_to_none(self):
        # When unset, both routing/advance phases reuse the synthesis
        # ``chat_model`` — backwards-compatible behaviour.
        cfg = OrchidSupervisorConfig()
        assert cfg.routing_model is None

    def test_routing_model_explicit_override(self):
        cfg = OrchidSupervisorConfig(routing_model="gemini/gemini-2.5-flash-lite")
        assert cfg.routing_model == "gemini/gemini-2.5-flash-lite"

    def test_skip_synthesis_when_single_agent_default_true(self):
        cfg = OrchidSupervisorConfig()
        assert cfg.skip_synthesis_when_single_agent is True

    def test_skip_synthesis_when_single_agent_opt_out(self):
        cfg = OrchidSupervisorConfig(skip_synthesis_when_single_agent=False)
        assert cfg.skip_synthesis_when_single_agent is False


class TestCompressConfigSchema:
    """Verify that OrchidSupervisorConfig exposes the new compression fields."""

    def test_defaults(self) -> None:
        from longtalk.compat.orchid.config import OrchidSupervisorConfig

        cfg = OrchidSupervisorConfig()
        assert cfg.history_summary_enabled is True
        assert cfg.history_summary_model is None
        assert cfg.history_summary_recent_turns == 10

    def test_custom_values(self) -> None:
        from longtalk.compat.orchid.config import OrchidSupervisorConfig

        cfg = OrchidSupervisorConfig(
            history_summary_enabled=True,
            history_summary_model="gemini/gemini-2.5-flash-lite",
            history_summary_recent_turns=5,
        )
        assert cfg.history_summary_enabled is True
        assert cfg.history_summary_model == "gemini/gemini-2.5-flash-lite"
        assert cfg.history_summary_recent_turns == 5
