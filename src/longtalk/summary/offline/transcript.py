"""A pasted transcript (``Speaker: text`` lines) read back into messages."""

from __future__ import annotations

import re

from longtalk.core.messages import Message, Role

__all__ = ["parse_transcript"]

_SPEAKER_LINE = re.compile(r"^\s*([^:\n]{1,40}?):\s*(.+)$")


def parse_transcript(text: str) -> list[Message]:
    """Read ``Speaker: text`` lines into messages; other lines continue the previous one.

    Lines before the first speaker line (an instruction) are ignored. ``user`` / ``human``
    speakers are user messages, ``assistant`` / ``ai`` assistant messages, and any other
    name speaks as a named user.
    """
    messages: list[Message] = []
    for line in text.splitlines():
        match = _SPEAKER_LINE.match(line)
        if match and match.group(2).strip() and len(match.group(1).split()) <= 3:
            messages.append(_message(match.group(1).strip(), match.group(2).strip()))
        elif messages and line.strip():
            messages[-1] = messages[-1].with_content(f"{messages[-1].content} {line.strip()}")
    return messages


def _message(speaker: str, content: str) -> Message:
    lower = speaker.casefold()
    if lower in ("user", "human"):
        return Message(role=Role.USER, content=content)
    if lower in ("assistant", "ai", "bot"):
        return Message(role=Role.ASSISTANT, content=content)
    return Message(role=Role.USER, content=content, name=speaker)
