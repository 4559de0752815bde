"""Splitting a chat's history into summarized, pending and recent parts (pure).

Messages carry their storage sequence. The *recent window* is the last N exchanges
(episodes) kept verbatim; *pending* messages are older than the window but not yet folded
into the summary; extensions fold pending messages oldest-first in batches under a size cap,
carrying the rest over, so nothing is skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from longtalk.core.messages import Message, Role, format_transcript

Numbered = tuple[int, Message]


@dataclass(frozen=True, slots=True)
class HistorySplit:
    """A chat's loaded messages, split by what the summary already covers."""

    summarized: tuple[Numbered, ...]
    pending: tuple[Numbered, ...]
    recent: tuple[Numbered, ...]

    @property
    def verbatim(self) -> tuple[Numbered, ...]:
        """Everything not folded into the summary yet: pending then recent."""
        return self.pending + self.recent


def split_history(
    messages: Sequence[Numbered], *, last_summarized: int, recent_turns: int
) -> HistorySplit:
    """Split by the last summarized sequence and the last ``recent_turns`` episodes.

    The window starts at the ``recent_turns``-th newest user message, so an exchange and
    its tool calls stay together; ``recent_turns=0`` leaves no window.
    """
    ordered = sorted(messages, key=lambda item: item[0])
    summarized = tuple(item for item in ordered if item[0] <= last_summarized)
    open_ = [item for item in ordered if item[0] > last_summarized]
    start = window_start(open_, recent_turns)
    return HistorySplit(summarized, tuple(open_[:start]), tuple(open_[start:]))


def window_start(messages: Sequence[Numbered], recent_turns: int) -> int:
    """Index of the first message of the last ``recent_turns`` episodes."""
    if recent_turns <= 0:
        return len(messages)
    user_positions = [i for i, (_, m) in enumerate(messages) if m.role == Role.USER]
    if len(user_positions) < recent_turns:
        return 0
    return user_positions[-recent_turns]


def units(messages: Sequence[Numbered]) -> list[list[Numbered]]:
    """Group messages so a tool call and the results that answer it stay in one unit."""
    grouped: list[list[Numbered]] = []
    open_calls: set[str] = set()
    for item in messages:
        message = item[1]
        answers_open_call = message.role == Role.TOOL and bool(
            open_calls & set(message.tool_call_ids)
        )
        if grouped and answers_open_call:
            grouped[-1].append(item)
            open_calls -= set(message.tool_call_ids)
            continue
        grouped.append([item])
        open_calls = set(message.tool_call_ids) if message.role == Role.ASSISTANT else set()
    return grouped


def next_batch(
    pending: Sequence[Numbered], *, max_chars: int
) -> tuple[tuple[Numbered, ...], tuple[Numbered, ...]]:
    """The oldest pending messages whose transcript fits ``max_chars``, and the rest.

    At least one unit is always taken, so an oversized message cannot stall the chain (the
    writer sees it whole; the cap only decides where batches are cut).
    """
    taken: list[Numbered] = []
    size = 0
    groups = units(pending)
    for index, group in enumerate(groups):
        group_size = len(format_transcript(m for _, m in group)) + 1
        if taken and size + group_size > max_chars:
            rest = [item for later in groups[index:] for item in later]
            return tuple(taken), tuple(rest)
        taken.extend(group)
        size += group_size
    return tuple(taken), ()


def episode_numbers(messages: Sequence[Numbered], *, last_episode: int) -> list[int]:
    """Absolute episode numbers, continuing after ``last_episode``.

    A user message opens the next episode; anything before the first user message belongs
    to the episode the previous batch ended in (or episode 1 at the very start).
    """
    numbers: list[int] = []
    current = last_episode
    for _, message in messages:
        if message.role == Role.USER or current == 0:
            current += 1
        numbers.append(current)
    return numbers


def count_episodes(messages: Sequence[Message]) -> int:
    """The number of user turns."""
    return sum(1 for message in messages if message.role == Role.USER)
