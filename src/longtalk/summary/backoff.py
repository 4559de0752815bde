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

Pure and synchronous. The state lives on the chat (``ChatRecord.stats``: failures in a row,
by kind, ``retry_at``, ``retry_volume``) and the engine's job path applies the policy, so
the library, ``run_turn``, the CLI and the service on every replica share one
implementation and one state.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["BackoffPolicy", "backoff"]


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
