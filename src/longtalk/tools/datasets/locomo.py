"""Reading LoCoMo-format files: conversations of dated sessions, QA items with evidence ids.

Speaker A becomes the ``user`` role and speaker B the ``assistant`` role (both keep their
names), so an exchange is an episode. Each turn keeps its ``dia_id`` as the message id and
its session's date-time as the timestamp.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from longtalk.core.messages import Message, Role

_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%d %B, %Y", "%Y-%m-%d %H:%M")


@dataclass(frozen=True, slots=True)
class Turn:
    """One dialogue turn.

    Its 1-based position, its ``dia_id``, the message, and the dataset's own text (without
    a photo caption): what evidence recall looks for.
    """

    sequence: int
    dia_id: str
    message: Message
    text: str = ""


@dataclass(slots=True)
class Conversation:
    """A LoCoMo sample: its turns in order and its QA items."""

    sample_id: str
    turns: list[Turn]
    qa: list[dict[str, Any]]
    by_dia: dict[str, Turn] = field(default_factory=dict)

    @property
    def messages(self) -> list[Message]:
        """The turns' messages, oldest first."""
        return [turn.message for turn in self.turns]


def parse_when(text: str) -> datetime | None:
    """LoCoMo's ``1:56 pm on 8 May, 2023`` (and a few plainer forms); None if unreadable."""
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text.strip(), fmt)
        except ValueError:
            continue
    return None


def normalise_dia_id(raw: str) -> list[str]:
    """``D8:6; D9:17`` -> [D8:6, D9:17]; ``D:11:26`` -> D11:26; ``D30:05`` -> D30:5."""
    found = []
    for piece in re.split(r"[;,\s]+", str(raw)):
        numbers = re.findall(r"\d+", piece)
        if piece.upper().startswith("D") and len(numbers) >= 2:
            found.append(f"D{int(numbers[0])}:{int(numbers[1])}")
    return found


def turn_content(raw: dict[str, Any], *, captions: bool = True) -> str:
    """A turn's text; a shared photo's caption is appended as ``[shares …]``."""
    text = str(raw.get("text", ""))
    caption = raw.get("blip_caption")
    return f"{text} [shares {caption}]" if captions and caption else text


def iter_conversations(
    data: list[dict[str, Any]], *, captions: bool = True
) -> Iterator[Conversation]:
    """Conversations from parsed LoCoMo JSON."""
    for index, sample in enumerate(data):
        conv = sample["conversation"]
        speaker_a = conv.get("speaker_a")
        numbers = sorted(
            int(m.group(1)) for key in conv if (m := re.fullmatch(r"session_(\d+)", key))
        )
        turns: list[Turn] = []
        for number in numbers:
            when = parse_when(str(conv.get(f"session_{number}_date_time", "")))
            for raw in conv[f"session_{number}"] or []:
                speaker = str(raw.get("speaker", ""))
                message = Message(
                    role=Role.USER if speaker == speaker_a else Role.ASSISTANT,
                    content=turn_content(raw, captions=captions),
                    name=speaker,
                    timestamp=when,
                    id=str(raw["dia_id"]) if raw.get("dia_id") else None,
                )
                dia_id = str(raw.get("dia_id", ""))
                turns.append(Turn(len(turns) + 1, dia_id, message, str(raw.get("text", ""))))
        conversation = Conversation(
            str(sample.get("sample_id", index)), turns, list(sample.get("qa", []))
        )
        for turn in turns:
            for dia in normalise_dia_id(turn.dia_id):
                conversation.by_dia.setdefault(dia, turn)
        yield conversation


def load_locomo(path: str | Path, *, captions: bool = True) -> list[Conversation]:
    """Every conversation of a LoCoMo-format JSON file."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{path}: a LoCoMo file holds a JSON list of samples")
    return list(iter_conversations(data, captions=captions))
