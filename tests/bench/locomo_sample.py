"""A LoCoMo-format sample for the benchmarks' smoke tests: Ana and Ben, dated sessions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

DATES = ("1:56 pm on 8 May, 2023", "10:00 am on 20 May, 2023")
"""When each session was, in order (as many sessions as dates at most)."""


def locomo_sample(
    sessions: Sequence[Sequence[dict[str, Any]]], qa: Sequence[dict[str, Any]] = ()
) -> list[dict[str, Any]]:
    """The file's JSON list with one sample: Ana (speaker a) and Ben, these sessions' turns."""
    conversation: dict[str, Any] = {"speaker_a": "Ana", "speaker_b": "Ben"}
    for number, (turns, when) in enumerate(
        zip(sessions, DATES[: len(sessions)], strict=True), start=1
    ):
        conversation[f"session_{number}_date_time"] = when
        conversation[f"session_{number}"] = list(turns)
    return [{"sample_id": "tiny", "conversation": conversation, "qa": list(qa)}]
