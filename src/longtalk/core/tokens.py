"""Token counting behind one protocol: a chars-per-token heuristic and a real tokenizer."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from longtalk.core.messages import Message

DEFAULT_CHARS_PER_TOKEN = 4.0


@runtime_checkable
class TokenCounter(Protocol):
    """Counts the tokens of a text."""

    def count(self, text: str) -> int:
        """The number of tokens in ``text``."""
        ...


class HeuristicTokenCounter:
    """ceil(characters / ratio); Orbiter's estimate with ratio 4.0."""

    def __init__(self, chars_per_token: float = DEFAULT_CHARS_PER_TOKEN) -> None:
        if chars_per_token <= 0:
            raise ValueError(f"chars_per_token must be positive, got {chars_per_token}")
        self.chars_per_token = chars_per_token

    def count(self, text: str) -> int:
        """Estimated tokens: 0 for empty text, else at least 1."""
        return math.ceil(len(text) / self.chars_per_token)

    def __repr__(self) -> str:
        return f"HeuristicTokenCounter({self.chars_per_token})"


class TiktokenCounter:
    """Exact BPE counts with an offline encoding (``quicktok-v1``: cl100k, o200k, llama3, qwen3).

    Fixes the LangGraph backend's known debt: the 4-chars heuristic is wrong for non-Latin
    scripts and code.
    """

    def __init__(self, encoding: str = "cl100k_base") -> None:
        try:
            import quicktok
        except ImportError as exc:  # pragma: no cover - a core dependency
            from longtalk.errors import MissingExtraError

            raise MissingExtraError("quicktok-v1", "tokenizers") from exc
        self.encoding = encoding
        self._encoder: Any = quicktok.get_encoding(encoding)

    def count(self, text: str) -> int:
        """Exact token count."""
        if not text:
            return 0
        return len(self._encoder.encode_ordinary(text))

    def __repr__(self) -> str:
        return f"TiktokenCounter({self.encoding!r})"


def count_messages(messages: Iterable[Message], counter: TokenCounter) -> int:
    """Tokens of the messages' contents, summed."""
    return sum(counter.count(message.content) for message in messages)


DEFAULT_COUNTER: TokenCounter = HeuristicTokenCounter()


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Tokens a call consumed, as the server reported them (or estimated when it did not)."""

    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Input plus output."""
        return self.input_tokens + self.output_tokens

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens
        )


def resolve_counter(name: str = "heuristic", *, chars_per_token: float = 4.0) -> TokenCounter:
    """``heuristic`` (chars / ratio) or an offline BPE encoding name such as ``cl100k_base``."""
    if name == "heuristic":
        return HeuristicTokenCounter(chars_per_token)
    return TiktokenCounter(name)
