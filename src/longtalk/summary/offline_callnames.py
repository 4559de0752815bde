"""Real names for participants a transcript labels only with a placeholder (``Speaker 2``).

A summary that says ``Speaker 1 asks Speaker 2 about the price`` hides who talked. When the
other participant calls a placeholder-labelled speaker by name (``Sara, are you finished
packing?``) or the speaker introduces themselves (``This is John Cruise``), the narrative
uses that name. Participants with real labels (``Maya``, ``assistant``) keep them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from longtalk.summary.offline_names import FIRST_NAMES
from longtalk.summary.offline_text import Sentence

__all__ = ["PLACEHOLDER", "called_names"]

PLACEHOLDER = re.compile(r"^#?(?:person|speaker|participant|p)\s*_?\d+#?$", re.IGNORECASE)
"""A speaker label that names nobody: ``#Person1#``, ``Speaker 2``, ``P3``."""

_NAME = r"(?:(?:Mr|Mrs|Ms|Miss|Dr)\.?\s)?[A-Z][a-z]+(?:\s[A-Z][a-z]+)?"
_CALLED_FIRST = re.compile(
    rf"^(?:(?i:hi|hello|hey|excuse me|sorry|well|oh|of course|thanks|thank you|yes|no),?\s+)?"
    rf"({_NAME}),\s"
)
_CALLED_LAST = re.compile(rf",\s({_NAME})\s*[.!?]*$")
_INTRODUCED = re.compile(rf"\b(?:my name is|this is|I'm|I am)\s({_NAME})\b(?![\w'])")


def called_names(sentences: Sequence[Sentence]) -> dict[str, str]:
    """Placeholder label -> the name the others call that speaker by (or they give).

    A vocative (``Sara, ...``, ``..., Mr. Lee.``) names the sentence's addressee; an
    introduction (``This is John Cruise``) its speaker. A name counts only when it is a
    known first name or carries a title, is given to one label only, and is not another
    speaker's label.
    """
    votes: dict[str, Counter[str]] = {}
    for sentence in sentences:
        text = sentence.text.strip()
        for pattern, who in (
            (_CALLED_FIRST, sentence.addressee),
            (_CALLED_LAST, sentence.addressee),
            (_INTRODUCED, sentence.speaker),
        ):
            match = pattern.search(text)
            if PLACEHOLDER.match(who) and match and _is_name(match.group(1)):
                votes.setdefault(who, Counter())[match.group(1)] += 1
    chosen = {label: count.most_common(1)[0][0] for label, count in votes.items()}
    taken = Counter(chosen.values())
    speakers = {s.speaker for s in sentences}
    return {
        label: name for label, name in chosen.items() if taken[name] == 1 and name not in speakers
    }


def _is_name(text: str) -> bool:
    first = text.split()[0].rstrip(".")
    return first in ("Mr", "Mrs", "Ms", "Miss", "Dr") or first in FIRST_NAMES
