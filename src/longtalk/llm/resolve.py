"""One resolver from configuration to a backend: an instance or a ``scheme:model`` string.

=====================================  ====================================================
spec                                   backend
=====================================  ====================================================
an object with ``complete()``          itself
``None``, ``""``, ``offline``, ``none``  no LLM: the offline summarizer writes summaries
``openai:gpt-4o-mini``                 :class:`OpenAICompatibleLLM` (``base_url`` / env)
``vllm:``, ``llamacpp:``, ``lmstudio:``  the same, with that server's usual local URL
``ollama:qwen2.5:3b``                  :class:`OllamaLLM`
``litellm:gemini/gemini-2.5-flash-lite``  :class:`LiteLLMLLM` (extra ``longtalk[litellm]``)
``gemini/gemini-2.5-flash-lite``       the same: a bare ``provider/model`` is LiteLLM's
=====================================  ====================================================

A typo gets the nearest name suggested (:class:`~longtalk.errors.UnknownBackendError`).
"""

from __future__ import annotations

import difflib
import os
from typing import Any

from longtalk.core.redact import add_secrets
from longtalk.errors import UnknownBackendError
from longtalk.llm.base import LLM
from longtalk.llm.retry import RetryPolicy

__all__ = ["OFFLINE_NAMES", "SCHEMES", "resolve_llm", "split_spec"]

OFFLINE_NAMES = frozenset({"", "offline", "none", "null", "extractive"})
_LOCAL_URLS = {
    "vllm": "http://localhost:8000/v1",
    "llamacpp": "http://localhost:8080/v1",
    "lmstudio": "http://localhost:1234/v1",
}
SCHEMES = ("openai", "ollama", "litellm", *_LOCAL_URLS)


def resolve_llm(
    spec: LLM | str | None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    api_key_env: str | None = None,
    timeout: float | None = None,
    retry: RetryPolicy | None = None,
    max_retries: int | None = None,
    **options: Any,
) -> LLM | None:
    """The backend ``spec`` names, or None for "no LLM" (the offline summarizer).

    ``api_key`` wins over ``api_key_env`` (the variable to read); ``max_retries`` (retries
    after the first attempt) is a shorthand for ``retry``; ``options`` go to the backend's
    constructor (``structured``, ``stream``, ``options`` for Ollama...).

    Raises:
        UnknownBackendError: an unknown scheme, with the nearest known one suggested.
        MissingExtraError: LiteLLM asked for but not installed.
    """
    if spec is None:
        return None
    if not isinstance(spec, str):
        if callable(getattr(spec, "complete", None)):
            return spec
        raise UnknownBackendError(f"{spec!r} is neither an LLM nor a backend string")
    text = spec.strip()
    if text.casefold() in OFFLINE_NAMES:
        return None
    scheme, model = split_spec(text)
    key = api_key if api_key is not None else (os.environ.get(api_key_env) if api_key_env else None)
    add_secrets([key])  # masked by value in every error and log line from now on
    if retry is None and max_retries is not None:
        retry = RetryPolicy(max_attempts=max_retries + 1)
    common: dict[str, Any] = {"retry": retry, **options}
    if timeout is not None:
        common["timeout"] = timeout
    return _build(scheme, model, base_url=base_url, api_key=key, common=common)


def split_spec(text: str) -> tuple[str, str]:
    """``(scheme, model)`` of a backend string; ``UnknownBackendError`` names a bad one."""
    scheme, sep, model = text.partition(":")
    if sep and scheme.casefold() in SCHEMES:
        return scheme.casefold(), model.strip()
    if "/" in text.split(":", 1)[0]:
        return "litellm", text  # gemini/gemini-2.5-flash-lite
    raise UnknownBackendError(_unknown_message(text, scheme if sep else ""))


def _unknown_message(text: str, scheme: str) -> str:
    if scheme:
        near = difflib.get_close_matches(scheme.casefold(), SCHEMES, n=1, cutoff=0.5)
        if near:
            return (
                f"unknown LLM backend {scheme!r} in {text!r} - did you mean "
                f"'{near[0]}:{text.partition(':')[2]}'?"
            )
        return (
            f"unknown LLM backend {scheme!r} in {text!r} - for an Ollama model tag write "
            f"'ollama:{text}'; known schemes: {', '.join(SCHEMES)}, or 'offline'"
        )
    near = difflib.get_close_matches(text.casefold(), sorted(OFFLINE_NAMES - {""}), n=1)
    suggestion = f"'{near[0]}'" if near else f"'openai:{text}' or 'ollama:{text}'"
    return f"{text!r} names no backend - did you mean {suggestion}? (write 'scheme:model')"


def _build(
    scheme: str, model: str, *, base_url: str | None, api_key: str | None, common: dict[str, Any]
) -> LLM:
    if not model:
        raise UnknownBackendError(f"the {scheme!r} backend needs a model: '{scheme}:<model>'")
    if scheme == "ollama":
        from longtalk.llm.ollama import OllamaLLM

        return OllamaLLM(model, base_url=base_url, api_key=api_key, **common)
    if scheme == "litellm":
        from longtalk.llm.litellm_backend import LiteLLMLLM

        return LiteLLMLLM(model, base_url=base_url, api_key=api_key, **common)
    from longtalk.llm.openai_compat import DEFAULT_OPENAI_BASE_URL, OpenAICompatibleLLM

    url = base_url or (
        os.environ.get("OPENAI_BASE_URL") or DEFAULT_OPENAI_BASE_URL
        if scheme == "openai"
        else _LOCAL_URLS[scheme]
    )
    if api_key is None and scheme != "openai":
        api_key = ""  # local servers: do not send the OpenAI key to them
    return OpenAICompatibleLLM(model, base_url=url, api_key=api_key, **common)
