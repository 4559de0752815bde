from pathlib import Path

import pytest

from longtalk.config import MemoryConfig, load_settings, parse_settings
from longtalk.errors import ConfigError
from longtalk.summary.prompts import DEFAULT_COMPRESSION_SYSTEM_PROMPT, prompts_for

DEFAULTS = {
    "strategy": "rag_augmented",
    "summary_recent_turns": 10,
    "summary_model": None,
    "structured_output": True,
    "persist_summary": True,
    "summary_prompt": None,
    "rag_namespace": "__memory__",
    # recall's two defaults are measured replacements of the seed's 5 / 0.5 (docs/recall.md)
    "rag_k": "auto",
    "rag_similarity_threshold": 0.0,
    "store_turns": True,
    "truncation_strategy": "hard",
    "truncation_max_chars": 1000,
}

SEED_EXAMPLE = """
supervisor:
  history_summary_enabled: true
  history_summary_model: gemini/gemini-2.5-flash-lite
  history_summary_recent_turns: 10
  history_max_turns: 20
  history_max_chars: 1000
  memory:
    strategy: "rag_augmented"
    summary_recent_turns: 10
    structured_output: true
    persist_summary: true
    rag_k: 5
    rag_similarity_threshold: 0.5
    store_turns: true
    truncation_strategy: "middle"
    truncation_max_chars: 1000
agents:
  - name: my-agent
    description: host-app keys are allowed here
    prompt_sections:
      summary_compression_system_prompt: "..."
      summary_compression_user_prompt: "Summarise: {transcript}"
      summary_extension_user_prompt: "Extend: {existing_summary} with {new_messages}"
"""


def test_every_seed_key_has_its_default() -> None:
    config = MemoryConfig()
    for key, value in DEFAULTS.items():
        assert getattr(config, key) == value, key
    seed = MemoryConfig(rag_k=5, rag_similarity_threshold=0.5)
    assert (seed.rag_k, seed.rag_similarity_threshold) == (5, 0.5)
    with pytest.raises(ValueError):
        MemoryConfig(rag_k="all")  # type: ignore[arg-type]


def test_the_seed_example_file_loads(tmp_path: Path) -> None:
    path = tmp_path / "agents.yaml"
    path.write_text(SEED_EXAMPLE)
    settings = load_settings(path, environ={})
    memory = settings.memory
    assert memory.truncation_strategy == "middle"
    assert memory.summary_model == "gemini/gemini-2.5-flash-lite"
    assert memory.history_max_turns == 20
    prompts = prompts_for(settings, "my-agent")
    assert prompts.compression_system == "..."
    assert prompts.compression("T") == "Summarise: T"
    assert prompts.extension("S", "N") == "Extend: S with N"
    assert prompts_for(settings, "other").compression_system == DEFAULT_COMPRESSION_SYSTEM_PROMPT


def test_legacy_toggles_map_onto_memory_and_new_keys_win() -> None:
    legacy = parse_settings(
        {
            "supervisor": {
                "history_summary_enabled": True,
                "history_summary_model": "ollama:qwen2.5:3b",
                "history_summary_recent_turns": 6,
                "history_max_chars": 300,
            }
        }
    ).memory
    assert legacy.strategy == "running_summary"
    assert (legacy.summary_model, legacy.summary_recent_turns) == ("ollama:qwen2.5:3b", 6)
    assert legacy.truncation_max_chars == 300
    off = parse_settings({"supervisor": {"history_summary_enabled": False}}).memory
    assert off.strategy == "none"
    both = parse_settings(
        {
            "supervisor": {
                "history_summary_recent_turns": 6,
                "memory": {"summary_recent_turns": 3, "strategy": "rag_augmented"},
                "history_summary_enabled": False,
            }
        }
    ).memory
    assert (both.summary_recent_turns, both.strategy) == (3, "rag_augmented")


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"supervisor": {"memory": {"rag_kk": 3}}}, "supervisor.memory.rag_kk"),
        ({"supervisor": {"memory": {"rag_k": "many"}}}, "supervisor.memory.rag_k"),
        ({"supervisor": {"memory": {"strategy": "magic"}}}, "supervisor.memory.strategy"),
        ({"supervisor": {"memory": {"summary_recent_turns": -1}}}, "supervisor.memory"),
        ({"agents": [{"name": "a", "prompt_sections": {"typo": "x"}}]}, "agents.0.prompt_sections"),
        ({"storage": {"urll": "x"}}, "storage.urll"),
        ({"surpervisor": {}}, "surpervisor"),
    ],
)
def test_bad_keys_and_values_name_the_key_path(data: dict[str, object], path: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_settings(data)
    assert str(info.value).startswith(path)


def test_environment_overrides_the_file(tmp_path: Path) -> None:
    path = tmp_path / "agents.yaml"
    path.write_text("supervisor:\n  memory:\n    rag_k: 3\n")
    settings = load_settings(
        path,
        environ={
            "LONGTALK_SUPERVISOR__MEMORY__RAG_K": "9",
            "LONGTALK_SUPERVISOR__MEMORY__STRATEGY": "none",
            "LONGTALK_STORAGE__URL": "memory:",
            "UNRELATED": "x",
        },
    )
    assert settings.memory.rag_k == 9
    assert settings.memory.strategy == "none"
    assert settings.storage.url == "memory:"
    with pytest.raises(ConfigError, match="supervisor.memory.rag_k"):
        load_settings(environ={"LONGTALK_SUPERVISOR__MEMORY__RAG_K": "lots"})


def test_unreadable_or_invalid_files_fail_clearly(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_settings(tmp_path / "missing.yaml", environ={})
    bad = tmp_path / "bad.yaml"
    bad.write_text("supervisor: [unclosed")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_settings(bad, environ={})
    listed = tmp_path / "list.yaml"
    listed.write_text("- a\n- b\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_settings(listed, environ={})
