"""The varied durable-facts set of bench/durable_facts.py: planting, asking and judging.

See ``bench/durable_facts.py`` for what is measured; the set is ``data/durable_facts.json``.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from longtalk import AsyncMemory, Message, Role
from longtalk.tools.datasets.locomo import Conversation, load_locomo

SET = Path(__file__).resolve().parent / "data" / "durable_facts.json"
MEMORY_FREE_KINDS = frozenset({"recalled", "verbatim"})
SAID_SHARE = 0.60  # statements spread over this first share of the conversation
CHANGE_SHARES = (0.70, 0.80)  # updates and retractions between these
HALVES = ("tune", "report")


@dataclass(frozen=True, slots=True)
class Item:
    """One entry of the set (see its ``about``)."""

    id: str
    kind: str
    by: str
    role: str
    say: str
    reply: str
    question: str
    keys: tuple[tuple[str, ...], ...]
    update: str
    stale: tuple[str, ...]
    retract: str
    half: str

    @property
    def current(self) -> bool:
        """A fact whose value should be shown at the end."""
        return self.role == "fact" and not self.retract


def load_set(path: Path = SET) -> list[Item]:
    rows = json.loads(path.read_text("utf-8"))["facts"]
    return [
        Item(
            **{
                **row,
                "keys": tuple(tuple(group) for group in row["keys"]),
                "stale": tuple(row["stale"]),
            }
        )
        for row in rows
    ]


def normal(text: str) -> str:
    """Lower case, whitespace collapsed, thousands separators removed (``4,200`` -> ``4200``)."""
    text = re.sub(r"(?<=\d)[,\u202f](?=\d{3}\b)", "", text.casefold())
    return " ".join(text.split())


def holds(text: str, keys: Sequence[Sequence[str]]) -> bool:
    """True when every key group has one of its phrases in ``text``."""
    flat = normal(text)
    return all(any(normal(phrase) in flat for phrase in group) for group in keys)


def shows_stale(text: str, item: Item) -> bool:
    """A line of ``text`` shows one of the item's old values without its new one.

    ``switched from tennis to padel`` names the old value in telling the change; a line
    that also shows the new value is that change, not the old claim still standing.
    """
    return any(
        any(normal(phrase) in normal(line) for phrase in item.stale) and not holds(line, item.keys)
        for line in text.splitlines()
    )


WORDS = re.compile(r"[^\W\d_]{3,}")
"""A word of three letters or more."""


def tells_the_retraction(text: str, item: Item) -> bool:
    """``text`` tells the item's retraction, not its claim: more of the words only the
    retraction says (``quit``, ``March``) are in it than of those only the claim says.

    ``I quit smoking cigarettes in March`` names the cigarettes in ending the claim; shown
    as the claim's latest word it is the retraction followed, not the claim still standing.
    """
    said, taken_back = (
        set(WORDS.findall(normal(item.say))),
        set(WORDS.findall(normal(item.retract))),
    )
    words = set(WORDS.findall(normal(text)))
    return len(words & (taken_back - said)) > len(words & (said - taken_back))


def speakers(conv: Conversation) -> tuple[str, str]:
    """(the user-role speaker, the other one)."""
    user = next((m.name for m in conv.messages if m.role == Role.USER and m.name), "User")
    other = next((m.name for m in conv.messages if m.role != Role.USER and m.name), "Friend")
    return user, other


def check_absent(conv: Conversation, items: Sequence[Item]) -> None:
    text = normal("\n".join(m.content for m in conv.messages))
    for item in items:
        for phrase in [p for group in item.keys for p in group] + list(item.stale):
            if normal(phrase) in text:
                raise ValueError(f"{conv.sample_id}: {phrase!r} ({item.id}) is already in it")


def plant(conv: Conversation, items: Sequence[Item]) -> list[Message]:
    """The conversation with each item said once, and its update or retraction later.

    Each line goes after a message of the other side, with that message's timestamp, and is
    answered by the other side with the item's reply (or a short acknowledgement).
    """
    check_absent(conv, items)
    user, other = speakers(conv)
    messages = list(conv.messages)
    count = len(messages)
    inserts: dict[int, list[tuple[str, str]]] = {}
    for index, item in enumerate(items):
        at = int(count * SAID_SHARE * (index + 1) / (len(items) + 1))
        inserts.setdefault(at, []).append((item.by, item.say))
        later = item.update or item.retract
        if later:
            low, high = CHANGE_SHARES
            at = int(count * (low + (high - low) * (index + 1) / (len(items) + 1)))
            inserts.setdefault(at, []).append((item.by, later))
    replies = {item.say: item.reply for item in items}
    planted: list[Message] = []
    for index, message in enumerate(messages):
        planted.append(message)
        for by, text in inserts.get(index, []):
            stamp = message.timestamp
            name, answerer = (user, other) if by == "user" else (other, user)
            role, answer_role = (
                (Role.USER, Role.ASSISTANT) if by == "user" else (Role.ASSISTANT, Role.USER)
            )
            planted.append(Message(role=role, content=text, name=name, timestamp=stamp))
            reply = replies.get(text, "Oh, okay!")
            planted.append(Message(role=answer_role, content=reply, name=answerer, timestamp=stamp))
    return planted


async def run_half(
    conv: Conversation, items: Sequence[Item], budgets: Sequence[int]
) -> dict[str, Any]:
    """Plant one half, append it through the front door, ask, and judge."""
    user, other = speakers(conv)
    messages = plant(conv, items)
    report: dict[str, Any] = {"conversation": conv.sample_id, "messages": len(messages)}
    async with AsyncMemory("memory:") as memory:
        chat = await memory.chat(f"varied-{conv.sample_id}")
        for message in messages:
            await chat.append(
                message.role, message.content, name=message.name, timestamp=message.timestamp
            )
        while (await chat.summarize()).changed:
            pass
        facts = await chat.facts()
        texts = [(f.holder, f.text) for f in facts]
        current = [item for item in items if item.current]
        retracted = [item for item in items if item.retract]
        others = [item for item in current if item.by == "other"]
        distractors = [item for item in items if item.role in ("distractor", "nickname")]
        retraction_ok = [  # the holder's own facts: another's "Kiwi Junior" is no kiwi allergy
            i.id
            for i in retracted
            if not any(
                h.casefold() == (user if i.by == "user" else other).casefold()
                and holds(t, i.keys)
                and not tells_the_retraction(t, i)
                for h, t in texts
            )
        ]
        other_ok = [
            i.id
            for i in others
            if any(h.casefold() == other.casefold() and holds(t, i.keys) for h, t in texts)
        ]
        false = [i.id for i in distractors if any(holds(t, i.keys) for _, t in texts)]
        for budget in budgets:
            context_hits, memory_hits, stale, updated = [], [], [], []
            for item in current:
                name = user if item.by == "user" else other
                context = await chat.context(item.question.format(name=name), budget_tokens=budget)
                memory_text = "\n".join(
                    p.text for p in context.parts if p.kind not in MEMORY_FREE_KINDS
                )
                if holds(context.text, item.keys):
                    context_hits.append(item.id)
                if holds(memory_text, item.keys):
                    memory_hits.append(item.id)
                if item.update:
                    updated.append(item.id)
                    if shows_stale(memory_text, item):
                        stale.append(item.id)
            n = max(1, len(current))
            supersessions = [i for i in current if i.update]
            report[str(budget)] = {
                "n": len(current),
                "in_context": round(len(context_hits) / n, 4),
                "in_memory": round(len(memory_hits) / n, 4),
                "supersession_current": round(
                    sum(i.id in memory_hits for i in supersessions) / max(1, len(supersessions)), 4
                ),
                "stale_shown": len(stale),
                "retraction_ok": round(len(retraction_ok) / max(1, len(retracted)), 4),
                "other_speaker_ok": round(len(other_ok) / max(1, len(others)), 4),
                "false_facts": len(false),
                "missed": {
                    "context": [i.id for i in current if i.id not in context_hits],
                    "memory": [i.id for i in current if i.id not in memory_hits],
                    "stale": stale,
                    "retraction": [i.id for i in retracted if i.id not in retraction_ok],
                    "other_speaker": [i.id for i in others if i.id not in other_ok],
                    "false_facts": false,
                },
            }
        report["facts"] = len(facts)
    return report


async def evaluate(
    data: Path, budgets: Sequence[int], min_turns: int, log: Callable[[str], None]
) -> dict[str, Any]:
    """Both halves, each in its own long conversation."""
    items = load_set()
    long = [c for c in load_locomo(data, captions=False) if len(c.turns) >= min_turns]
    if not long:
        raise ValueError(f"{data}: no conversation has {min_turns} messages or more")
    hosts = {"tune": long[0], "report": long[-1]}
    results: dict[str, Any] = {}
    for half in HALVES:
        mine = [item for item in items if item.half == half]
        log(f"varied/{half}: {len(mine)} items into {hosts[half].sample_id}")
        results[half] = await run_half(hosts[half], mine, budgets)
    return results


KEYS = (
    "in_context",
    "in_memory",
    "supersession_current",
    "stale_shown",
    "retraction_ok",
    "other_speaker_ok",
    "false_facts",
)


def print_report(results: dict[str, Any], out: Any = sys.stdout) -> None:
    print("\nvaried set:", file=out)
    print(f"{'half':>7} {'budget':>7} " + " ".join(f"{k[:12]:>12}" for k in KEYS), file=out)
    for half, report in results.items():
        rows = {budget: row for budget, row in report.items() if isinstance(row, dict)}
        for budget, row in rows.items():
            values = " ".join(f"{row[k]:>12}" for k in KEYS)
            print(f"{half:>7} {budget:>7} {values}", file=out)
        for budget, row in rows.items():
            print(f"  {half} {budget} misses: {json.dumps(row['missed'])}", file=out)
