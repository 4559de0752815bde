"""Whether a configured model's provider needs an API key that is not there.

A summary model configured without its key fails on every call, and a failing summary
model never fails an append: the chat keeps its last good summary, quietly. So the memory
says so once, when it opens, with a :class:`MissingKeyWarning`.

OpenAI's own API needs a key (``OPENAI_API_KEY`` unless ``llm.api_key_env`` names another
variable); a server on this machine (Ollama, vLLM, llama.cpp, LM Studio, an OpenAI-style
server on a loopback address) does not. LiteLLM reads each provider's own variable, so only
a variable named in ``llm.api_key_env`` is checked there.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from longtalk.core.hosts import is_loopback_host
from longtalk.errors import UnknownBackendError
from longtalk.llm.resolve import OFFLINE_NAMES, split_spec

__all__ = ["MissingKeyWarning", "missing_key"]

OPENAI_KEY_ENV = "OPENAI_API_KEY"


class MissingKeyWarning(UserWarning):
    """A model is configured without the API key its provider needs: its calls will fail."""


def missing_key(
    spec: str | None,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """What to tell the user when ``spec`` needs a key that is not set, else None."""
    env = os.environ if environ is None else environ
    text = (spec or "").strip()
    if text.casefold() in OFFLINE_NAMES:
        return None
    try:
        scheme, _ = split_spec(text)
    except UnknownBackendError:
        return None  # resolving the model says what is wrong with the name
    variable = api_key_env
    if variable is None and scheme == "openai":
        url = base_url or env.get("OPENAI_BASE_URL")
        variable = None if url and _is_local(url) else OPENAI_KEY_ENV
    if variable is None or env.get(variable, "").strip():
        return None
    return (
        f"the summary model {text!r} needs an API key, but {variable} is not set: set it, "
        "or name the variable that holds the key in llm.api_key_env "
        "(until then every summary call fails and chats keep their last good summary)"
    )


def _is_local(url: str) -> bool:
    return is_loopback_host(urlsplit(url).hostname or "")
