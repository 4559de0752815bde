"""A summary model configured without the API key its provider needs warns once, at open."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from longtalk import Memory
from longtalk.llm.keys import MissingKeyWarning, missing_key


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "MY_GATEWAY_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LONGTALK_DATA_DIR", str(tmp_path))


def settings(model: str, **llm: Any) -> dict[str, Any]:
    return {
        "storage": {"url": "memory:"},
        "vectors": {"url": "null:"},
        "supervisor": {"memory": {"summary_model": model}},
        "llm": llm,
    }


def test_an_openai_model_without_its_key_warns_once_when_the_memory_opens() -> None:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with Memory(settings("openai:gpt-4o-mini"), summarize="off") as memory:
            chat = memory.chat("trip")
            for text in ("Hi!", "We land in Lisbon on Friday.", "Where should we eat?"):
                chat.append("user", text)
                chat.context(text)
    (warning,) = [w for w in seen if issubclass(w.category, MissingKeyWarning)]
    assert "'openai:gpt-4o-mini' needs an API key, but OPENAI_API_KEY is not set" in str(
        warning.message
    )
    assert "llm.api_key_env" in str(warning.message)


def test_a_named_key_variable_that_is_not_set_is_named() -> None:
    with pytest.warns(MissingKeyWarning, match="MY_GATEWAY_KEY is not set"):
        Memory(settings("openai:gpt-4o-mini", api_key_env="MY_GATEWAY_KEY")).open().close()


@pytest.mark.parametrize(
    ("model", "llm", "env"),
    [
        ("openai:gpt-4o-mini", {}, {"OPENAI_API_KEY": "sk-test"}),
        ("openai:gpt-4o-mini", {"base_url": "http://127.0.0.1:8000/v1"}, {}),
        ("openai:qwen3", {"base_url": "http://localhost:8080/v1"}, {}),
        ("ollama:qwen2.5:3b", {}, {}),
        ("llamacpp:smollm2", {}, {}),
        ("gemini/gemini-2.5-flash-lite", {}, {}),
        ("offline", {}, {}),
        ("openai:gpt-4o-mini", {"api_key_env": "MY_GATEWAY_KEY"}, {"MY_GATEWAY_KEY": "k"}),
    ],
)
def test_no_warning_when_the_key_is_there_or_not_needed(
    model: str, llm: dict[str, str], env: dict[str, str]
) -> None:
    assert missing_key(model, environ=env, **llm) is None


def test_an_openai_base_url_from_the_environment_counts() -> None:
    local = {"OPENAI_BASE_URL": "http://[::1]:9000/v1"}
    assert missing_key("openai:gpt-4o-mini", environ=local) is None
    remote = {"OPENAI_BASE_URL": "https://gateway.example.com/v1"}
    assert "OPENAI_API_KEY" in (missing_key("openai:gpt-4o-mini", environ=remote) or "")
