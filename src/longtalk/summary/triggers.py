"""When to summarize: Orbiter's count-or-tokens check, the episode-summary service's policy.

Both are :class:`TriggerPolicy` objects and compose with :class:`AnyOf` / :class:`AllOf`
(or ``|`` / ``&``). Thresholds are strict (``>``); the episode minimum is inclusive
("at least N"). Tokens are estimated with the counter passed in, else with a
chars-per-token heuristic at the policy's ratio.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol, runtime_checkable

from longtalk.core.messages import Message, group_episodes
from longtalk.core.tokens import HeuristicTokenCounter, TokenCounter, count_messages

__all__ = [
    "AllOf",
    "AnyOf",
    "CountOrTokensTrigger",
    "CountThresholds",
    "TokensAndEpisodesTrigger",
    "TriggerPolicy",
    "TriggerResult",
    "check_trigger",
]


@dataclass(frozen=True, slots=True)
class TriggerResult:
    """Whether to summarize, why, and the figures the decision used."""

    triggered: bool
    reason: str
    message_count: int
    estimated_tokens: int


class CountThresholds(Protocol):
    """The figures a count-or-tokens check reads (an Orbiter-style ``SummaryConfig`` has them)."""

    @property
    def message_threshold(self) -> int:
        """Summarize past this many messages."""
        ...

    @property
    def token_threshold(self) -> int:
        """Summarize past this many estimated tokens."""
        ...

    @property
    def token_estimate_ratio(self) -> float:
        """Characters per token for the estimate."""
        ...


@runtime_checkable
class TriggerPolicy(Protocol):
    """Decides whether the items should be summarized now.

    ``new_episodes`` counts the episodes since the last summary; ``None`` means every item
    is new. ``counter`` overrides the policy's token estimate.
    """

    def evaluate(
        self,
        items: Sequence[Message],
        *,
        new_episodes: int | None = None,
        counter: TokenCounter | None = None,
    ) -> TriggerResult:
        """The decision for ``items``."""
        ...


class _Composable:
    """``a | b`` is ``AnyOf(a, b)``; ``a & b`` is ``AllOf(a, b)``."""

    __slots__ = ()

    def __or__(self, other: TriggerPolicy) -> AnyOf:
        return AnyOf(self, other)  # type: ignore[arg-type]

    def __and__(self, other: TriggerPolicy) -> AllOf:
        return AllOf(self, other)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class CountOrTokensTrigger(_Composable):
    """Orbiter's check: more than ``message_threshold`` messages OR ``token_threshold`` tokens."""

    message_threshold: int = 20
    token_threshold: int = 4000
    token_estimate_ratio: float = 4.0

    @classmethod
    def from_config(cls, config: CountThresholds) -> CountOrTokensTrigger:
        """The policy of a configuration with these three figures."""
        return cls(config.message_threshold, config.token_threshold, config.token_estimate_ratio)

    def evaluate(
        self,
        items: Sequence[Message],
        *,
        new_episodes: int | None = None,
        counter: TokenCounter | None = None,
    ) -> TriggerResult:
        """Triggered when either figure exceeds its threshold."""
        count = len(items)
        tokens = count_messages(items, counter or HeuristicTokenCounter(self.token_estimate_ratio))
        reasons = []
        if count > self.message_threshold:
            reasons.append(f"message count {count} > {self.message_threshold}")
        if tokens > self.token_threshold:
            reasons.append(f"estimated tokens {tokens} > {self.token_threshold}")
        if reasons:
            return TriggerResult(True, " and ".join(reasons), count, tokens)
        below = [f"estimated tokens {tokens} <= {self.token_threshold}"]
        if self.message_threshold < sys.maxsize:  # sys.maxsize: no count limit, not a figure
            below.insert(0, f"message count {count} <= {self.message_threshold}")
        return TriggerResult(False, f"below thresholds: {', '.join(below)}", count, tokens)


@dataclass(frozen=True, slots=True)
class TokensAndEpisodesTrigger(_Composable):
    """The episode-summary service's: > ``token_threshold`` tokens AND >= ``min_new_episodes``."""

    token_threshold: int = 200
    min_new_episodes: int = 5
    token_estimate_ratio: float = 4.0

    def evaluate(
        self,
        items: Sequence[Message],
        *,
        new_episodes: int | None = None,
        counter: TokenCounter | None = None,
    ) -> TriggerResult:
        """Triggered when both conditions hold."""
        count = len(items)
        tokens = count_messages(items, counter or HeuristicTokenCounter(self.token_estimate_ratio))
        episodes = len(group_episodes(items)) if new_episodes is None else new_episodes
        over_tokens = tokens > self.token_threshold
        enough_episodes = episodes >= self.min_new_episodes
        token_part = f"estimated tokens {tokens} {'>' if over_tokens else '<='} "
        episode_part = f"new episodes {episodes} {'>=' if enough_episodes else '<'} "
        reason = f"{token_part}{self.token_threshold} and {episode_part}{self.min_new_episodes}"
        return TriggerResult(over_tokens and enough_episodes, reason, count, tokens)


@dataclass(frozen=True, slots=True, init=False)
class _Combined(_Composable):
    """Evaluates every policy and reports the reasons that decided."""

    policies: tuple[TriggerPolicy, ...]
    need_all: ClassVar[bool] = False
    joiner: ClassVar[str] = " | "

    def __init__(self, *policies: TriggerPolicy) -> None:
        object.__setattr__(self, "policies", _non_empty(policies, type(self).__name__))

    def evaluate(
        self,
        items: Sequence[Message],
        *,
        new_episodes: int | None = None,
        counter: TokenCounter | None = None,
    ) -> TriggerResult:
        """Every policy is evaluated; the deciding reasons are reported."""
        results = [
            p.evaluate(items, new_episodes=new_episodes, counter=counter) for p in self.policies
        ]
        # AnyOf is decided by the policies that trigger, AllOf by those that do not.
        deciding = [r for r in results if r.triggered != self.need_all]
        triggered = not deciding if self.need_all else bool(deciding)
        return _combine(triggered, deciding or results, self.joiner, results)


class AnyOf(_Combined):
    """Triggered when any policy triggers."""

    __slots__ = ()


class AllOf(_Combined):
    """Triggered when every policy triggers."""

    __slots__ = ()
    need_all = True
    joiner = " & "


def _non_empty(policies: tuple[TriggerPolicy, ...], name: str) -> tuple[TriggerPolicy, ...]:
    if not policies:
        raise ValueError(f"{name} needs at least one policy")
    return policies


def _combine(
    triggered: bool, shown: list[TriggerResult], joiner: str, results: list[TriggerResult]
) -> TriggerResult:
    """One result: the shown reasons, the item count, the largest token estimate."""
    reason = joiner.join(f"({r.reason})" if len(shown) > 1 else r.reason for r in shown)
    tokens = max(r.estimated_tokens for r in results)
    return TriggerResult(triggered, reason, results[0].message_count, tokens)


def check_trigger(
    items: Sequence[Message],
    config: CountThresholds | None = None,
    *,
    counter: TokenCounter | None = None,
) -> TriggerResult:
    """Orbiter's ``check_trigger``: summarize when the message count OR tokens exceed the config.

    Tokens are estimated at ``config.token_estimate_ratio`` chars per token unless a
    ``counter`` (for example a real tokenizer) is passed.
    """
    policy = CountOrTokensTrigger() if config is None else CountOrTokensTrigger.from_config(config)
    return policy.evaluate(items, counter=counter)
