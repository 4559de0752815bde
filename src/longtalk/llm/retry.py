"""Timeouts, bounded retries and reply checks shared by every LLM backend.

Transient failures (timeouts, connection errors, 408/425/429, 5xx) are retried with
exponential backoff and full jitter, honouring ``Retry-After`` (capped); permanent ones
(400, 401/403 bad key, 404 unknown model, 422) raise at once with status and body. A reply
is cleaned with :func:`~longtalk.core.cleaning.clean_output`; one cut off by the output
limit (finish reason ``length``), stopped in a repetition loop (``repetition``, also given
to a cut-off reply whose tail loops) or empty after cleaning is an :class:`LLMOutputError`,
never a summary.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from email.utils import parsedate_to_datetime
from typing import TypeVar

from longtalk.core.cleaning import clean_output
from longtalk.errors import (
    HTTPStatusError,
    LLMError,
    LLMOutputError,
    LLMPermanentError,
    LLMTransientError,
)
from longtalk.llm.base import LLM, LLMRequest, LLMResponse
from longtalk.llm.repetition import looping

__all__ = [
    "PermanentHTTPError",
    "RetryPolicy",
    "RetryingLLM",
    "TransientHTTPError",
    "UnusableReplyError",
    "check_reply",
    "parse_retry_after",
    "status_error",
    "with_retries",
]

T = TypeVar("T")

TRANSIENT_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
_HINTS = {
    401: "check the API key (config api_key or its environment variable)",
    403: "the API key is not allowed to use this model or endpoint",
    404: "check the model name and the base URL (is the model pulled / deployed?)",
}


class PermanentHTTPError(LLMPermanentError, HTTPStatusError):
    """A backend answered with a status not worth retrying (400, 401, 403, 404, 422, ...)."""

    def __init__(self, message: str, *, status_code: int, body: str = "") -> None:
        HTTPStatusError.__init__(self, message, status_code=status_code, body=body)


class TransientHTTPError(LLMTransientError, HTTPStatusError):
    """A backend answered 429 or 5xx; ``retry_after`` is the server's hint in seconds."""

    def __init__(
        self, message: str, *, status_code: int, body: str = "", retry_after: float | None = None
    ) -> None:
        HTTPStatusError.__init__(self, message, status_code=status_code, body=body)
        self.retry_after = retry_after


class UnusableReplyError(LLMOutputError):
    """A reply that came back but cannot be used; ``response`` keeps it (and its token cost)."""

    def __init__(self, message: str, response: LLMResponse) -> None:
        super().__init__(message)
        self.response = response


def status_error(
    backend: str, status: int, body: str, *, retry_after: str | None = None
) -> LLMError:
    """The typed error for an HTTP error status from ``backend``."""
    hint = _HINTS.get(status)
    message = f"{backend} request failed" + (f" - {hint}" if hint else "")
    if status in TRANSIENT_STATUSES or status >= 500:
        return TransientHTTPError(
            message, status_code=status, body=body, retry_after=parse_retry_after(retry_after)
        )
    return PermanentHTTPError(message, status_code=status, body=body)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date); None if absent."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    from datetime import UTC, datetime

    return max(0.0, (moment - datetime.now(UTC)).total_seconds())


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how patiently to retry transient failures.

    Args:
        max_attempts: Total attempts, the first included (1 disables retrying).
        initial_delay: Backoff before the second attempt, in seconds.
        multiplier: Growth of the backoff per attempt.
        max_delay: Cap on one backoff, and on a server's ``Retry-After``.
        jitter: Fraction of each backoff drawn at random (1.0 = full jitter).
        attempt_timeout: Wall-clock limit of one attempt (None: the backend's own timeouts).
    """

    max_attempts: int = 3
    initial_delay: float = 0.5
    multiplier: float = 2.0
    max_delay: float = 20.0
    jitter: float = 0.5
    attempt_timeout: float | None = None

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {self.max_attempts}")

    def delay(self, attempt: int, retry_after: float | None = None, *, rng: random.Random) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        if retry_after is not None:
            return min(retry_after, self.max_delay)
        base = min(self.initial_delay * self.multiplier ** (attempt - 1), self.max_delay)
        return base * (1 - self.jitter) + base * self.jitter * rng.random()

    def without_retries(self) -> RetryPolicy:
        """The same timeouts with a single attempt."""
        return replace(self, max_attempts=1)


Sleep = Callable[[float], Awaitable[None]]


async def with_retries(
    attempt: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    sleep: Sleep = asyncio.sleep,
    rng: random.Random | None = None,
) -> T:
    """Run ``attempt`` until it succeeds, retrying :class:`LLMTransientError` per ``policy``.

    Permanent and output errors propagate at once; the last transient error propagates
    when the attempts are used up.
    """
    rng = rng or random.Random()
    for number in range(1, policy.max_attempts + 1):
        try:
            return await _timed(attempt, policy.attempt_timeout)
        except LLMTransientError as exc:
            if number == policy.max_attempts:
                raise
            await sleep(policy.delay(number, getattr(exc, "retry_after", None), rng=rng))
    raise AssertionError("unreachable")  # pragma: no cover


async def _timed(attempt: Callable[[], Awaitable[T]], timeout: float | None) -> T:
    if timeout is None:
        return await attempt()
    try:
        async with asyncio.timeout(timeout):
            return await attempt()
    except TimeoutError as exc:
        raise LLMTransientError(f"the LLM call timed out after {timeout:g} s") from exc


def check_reply(response: LLMResponse) -> LLMResponse:
    """Clean the reply's text; raise :class:`UnusableReplyError` if cut off, looping or empty.

    A reply cut off by the output limit whose tail repeats is reported as a loop (finish
    reason ``repetition``): raising ``max_tokens`` would not have helped it.
    """
    text = clean_output(response.text)
    model = response.model or "the model"
    if response.finish_reason == "length" and looping(response.text):
        response = replace(response, finish_reason="repetition")
    if response.finish_reason == "repetition":
        raise UnusableReplyError(
            f"the reply of {model} fell into a repetition loop and was stopped after "
            f"{response.usage.output_tokens} tokens",
            response,
        )
    if response.finish_reason == "length":
        raise UnusableReplyError(
            f"the reply of {model} was cut off by the output limit "
            f"after {response.usage.output_tokens} tokens - raise max_tokens / num_predict",
            response,
        )
    if not text:
        raise UnusableReplyError(f"{model} returned an empty reply", response)
    return replace(response, text=text)


class RetryingLLM:
    """Wraps any :class:`~longtalk.llm.base.LLM` with retries and reply checks."""

    def __init__(self, llm: LLM, policy: RetryPolicy | None = None) -> None:
        self.llm = llm
        self.policy = policy or RetryPolicy()

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Complete with retries; the reply is cleaned and checked."""
        response = await with_retries(lambda: self.llm.complete(request), self.policy)
        return check_reply(response)
