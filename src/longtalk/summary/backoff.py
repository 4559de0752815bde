"""One failure policy for summary extensions: per-chat exponential backoff with jitter.

A failed extension (any :data:`~longtalk.summary.replies.FailureKind`) makes its chat wait
before the next try: ``base`` seconds, doubling with each failure in a row up to
``ceiling``, a random share (``jitter``) taken off so that chats failing together do not
retry together. A success resets the chat. While a chat waits, appends and contexts work
as before; only the summary call is held back, so no door retries on every append.

Time alone does not bound what a model that always fails costs: every retry re-reads the
backlog. So a failure may also name its ``cost`` (the input tokens the failed call read) and
the chat's ``volume`` (tokens appended so far, any monotone count): from the second failure
in a row on, the next try then also waits until the chat has grown by that cost, so the
failed calls of a model that keeps failing never read much more than the chat itself has
(``bench/token_cost.py --behaviour broken``); a single failure is retried on time alone.

Pure and synchronous: the clock and the random source are injected, and the state is a
plain dictionary, so the library, ``run_turn``, the CLI and the service share one
implementation, and tests and benchmarks drive it with a fake clock.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["Backoff", "BackoffPolicy", "BackoffState", "backoff"]

Clock = Callable[[], float]


def backoff(
    failures: int,
    *,
    base: float,
    ceiling: float,
    jitter: float = 0.0,
    rng: random.Random | None = None,
) -> float:
    """Seconds before the retry that follows ``failures`` failures in a row (1-based).

    ``base`` doubling per failure, capped at ``ceiling``; then up to ``jitter`` (a share,
    0 to 1) of it taken off at random, so the wait is never longer than the cap.
    """
    if failures < 1:
        return 0.0
    delay = float(min(ceiling, base * 2 ** min(failures - 1, 62)))
    if jitter <= 0:
        return delay
    return delay * (1 - jitter * (rng or random).random())


@dataclass(frozen=True, slots=True)
class BackoffPolicy:
    """How long a chat waits after failed extensions.

    Args:
        base: Seconds after the first failure.
        ceiling: The longest wait, however many failures.
        jitter: Share of each wait taken off at random (0 = none, 1 = anywhere down to 0).
    """

    base: float = 5.0
    ceiling: float = 300.0
    jitter: float = 0.5

    def __post_init__(self) -> None:
        if self.base < 0 or self.ceiling < self.base:
            raise ValueError(f"need 0 <= base <= ceiling, got {self.base} and {self.ceiling}")
        if not 0.0 <= self.jitter <= 1.0:
            raise ValueError(f"jitter must be between 0 and 1, got {self.jitter}")

    def delay(self, failures: int, rng: random.Random) -> float:
        """Seconds to wait after ``failures`` failures in a row."""
        return backoff(failures, base=self.base, ceiling=self.ceiling, jitter=self.jitter, rng=rng)


@dataclass(frozen=True, slots=True)
class BackoffState:
    """One chat's failures: in a row (reset by a success), by kind (all time), next retry.

    ``retry_at`` is on the policy's clock, None when the chat may try now; ``retry_volume``
    the size the chat must reach first (0: none).
    """

    failures: int = 0
    kinds: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    retry_at: float | None = None
    last_kind: str | None = None
    retry_volume: int = 0


@dataclass
class _Chat:
    failures: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    retry_at: float | None = None
    last_kind: str | None = None
    retry_volume: int = 0


class Backoff:
    """The backoff state of every chat under one :class:`BackoffPolicy`.

    ``failed`` records a failure and answers when the chat may try again; ``due`` tells
    whether it may try now; ``succeeded`` resets the chat (its counts by kind are kept, for
    cost visibility); ``forget`` drops a deleted chat. ``now`` defaults to ``clock()``.
    """

    def __init__(
        self,
        policy: BackoffPolicy | None = None,
        *,
        clock: Clock = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        self.policy = policy or BackoffPolicy()
        self.clock = clock
        self.rng = rng or random.Random()
        self._chats: dict[str, _Chat] = {}

    def failed(
        self,
        chat_id: str,
        kind: str,
        now: float | None = None,
        *,
        cost: int = 0,
        volume: int = 0,
    ) -> float:
        """Record a failed extension of ``kind``; the time the chat may try again.

        With ``cost`` (input tokens the failed call read) and ``volume`` (the chat's size
        now), a second failure in a row or later also makes the next try wait for the chat
        to reach ``volume + cost``.
        """
        chat = self._chats.setdefault(chat_id, _Chat())
        chat.failures += 1
        chat.kinds[kind] += 1
        chat.last_kind = kind
        chat.retry_volume = volume + cost if chat.failures > 1 else 0
        start = self.clock() if now is None else now
        chat.retry_at = start + self.policy.delay(chat.failures, self.rng)
        return chat.retry_at

    def due(self, chat_id: str, now: float | None = None, *, volume: int | None = None) -> bool:
        """True when the chat may try an extension now (it is not backing off).

        ``volume`` is the chat's size on the scale :meth:`failed` was given; without it only
        the time counts.
        """
        chat = self._chats.get(chat_id)
        if chat is None or chat.retry_at is None:
            return True
        grown = volume is None or volume >= chat.retry_volume
        return grown and (self.clock() if now is None else now) >= chat.retry_at

    def succeeded(self, chat_id: str) -> None:
        """An extension succeeded: the chat tries freely again."""
        chat = self._chats.get(chat_id)
        if chat is not None:
            chat.failures, chat.retry_at, chat.retry_volume = 0, None, 0

    def state(self, chat_id: str) -> BackoffState:
        """The chat's failures in a row, its failures by kind, and its next retry."""
        chat = self._chats.get(chat_id)
        if chat is None:
            return BackoffState()
        kinds = MappingProxyType(dict(chat.kinds))
        return BackoffState(chat.failures, kinds, chat.retry_at, chat.last_kind, chat.retry_volume)

    def forget(self, chat_id: str) -> None:
        """Drop a chat's state (a deleted chat)."""
        self._chats.pop(chat_id, None)
