"""Recognising a reply that has fallen into a repetition loop, while it streams or after.

Small local models asked for a summary often repeat one line or one paragraph until the
output limit (a list item ``"2023-05-08 14:29",`` with the minute counting up, or the same
two sentences again and again). A reply loops when its tail is one unit repeated: at least
``min_repeats`` times and over at least ``min_chars`` characters, once digits are read as
one digit and whitespace runs as one space (so a counter in the loop does not hide it).
Ordinary prose and JSON never repeat a unit verbatim that often, so nothing legitimate is
stopped; a loop is recognised a few repetitions after it starts, not at ``max_tokens``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["RepetitionGuard", "looping"]

MIN_REPEATS = 6
MIN_CHARS = 400
MAX_PERIOD = 800
PROBE_CHARS = 16
_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")


def _normal(text: str) -> str:
    return _SPACES.sub(" ", _DIGITS.sub("0", text))


def looping(
    text: str,
    *,
    min_repeats: int = MIN_REPEATS,
    min_chars: int = MIN_CHARS,
    max_period: int = MAX_PERIOD,
) -> bool:
    """True when the end of ``text`` is one unit of at most ``max_period`` chars repeated."""
    tail = _normal(text[-(max_period * max(min_repeats, 2) * 2) :])
    if len(tail) < min_chars:
        return False
    probe = tail[-PROBE_CHARS:]
    end = len(tail) - len(probe)
    start = tail.rfind(probe, 0, len(tail) - 1)
    while start != -1:
        period = end - start
        if period > max_period:
            return False
        if period > 0 and _repeats(tail, period, min_repeats, min_chars):
            return True
        start = tail.rfind(probe, 0, start + len(probe) - 1)
    return False


def _repeats(tail: str, period: int, min_repeats: int, min_chars: int) -> bool:
    count = max(min_repeats, -(-min_chars // period))
    span = count * period
    return len(tail) >= span and tail[-span:] == tail[-period:] * count


@dataclass
class RepetitionGuard:
    """Watches a streamed reply; ``feed`` answers True once the reply loops.

    The check runs every ``check_every`` new characters over the reply's tail only, so a
    long reply costs a few string comparisons per chunk.
    """

    check_every: int = 48
    text: list[str] = field(default_factory=list)
    _size: int = 0
    _checked: int = 0

    def feed(self, chunk: str) -> bool:
        """Add ``chunk`` to the reply; True when the reply has fallen into a loop."""
        self.text.append(chunk)
        self._size += len(chunk)
        if self._size - self._checked < self.check_every:
            return False
        self._checked = self._size
        return looping(self.reply)

    @property
    def reply(self) -> str:
        """The reply received so far."""
        if len(self.text) > 1:
            self.text[:] = ["".join(self.text)]
        return self.text[0] if self.text else ""
