"""What a chat's summary says about its user, as items to keep across chats.

From each shown row of the chain (digest included): the user's preferences become
``preference`` items, people with details ``profile`` items (``Sam: allergic to
shellfish``), and other entities with details ``fact`` items; each with the messages the
row covers (first and last sequence) as provenance. ``user_part`` renders a user's items
as the context's ``user`` part under its own token cap, quoted like every part of a context
(``longtalk.core.quoting``). Pure: values in, values out.
"""

from __future__ import annotations

from collections.abc import Sequence

from longtalk.core.context import ContextPart
from longtalk.core.quoting import quoted_item, quoted_name
from longtalk.core.tokens import TokenCounter
from longtalk.storage.base import SummaryRow, active_chain
from longtalk.storage.user_memory import KINDS, UserFact, UserFactKind
from longtalk.summary.chain import message_span, row_summary


def user_facts(chat_id: str, rows: Sequence[SummaryRow]) -> list[UserFact]:
    """The items the chat's shown summary rows hold, first mention kept, in chain order."""
    found: list[UserFact] = []
    seen: set[str] = set()

    def keep(kind: UserFactKind, text: str, row: SummaryRow, core: str) -> None:
        key = " ".join(core.lower().split())  # a sentence kept once, whatever its kind
        if text.strip() and key not in seen:
            seen.add(key)
            span = message_span(row, chain)
            found.append(UserFact(kind, text.strip(), "derived", chat_id, span))

    chain = active_chain(rows)
    for row in chain:
        summary = row_summary(row)
        for preference in summary.user_preferences:
            keep("preference", preference, row, preference)
        for entity in summary.entities:
            if entity.details:
                kind: UserFactKind = "profile" if entity.type == "person" else "fact"
                keep(kind, f"{entity.name}: {entity.details}", row, entity.details)
    return found


USER_HEADER = "What is known about {user} from earlier chats:"
KIND_LABELS: dict[UserFactKind, str] = {
    "profile": "profile",
    "preference": "preference",
    "fact": "fact",
}


def user_part(
    user: str, facts: Sequence[UserFact], max_tokens: int, counter: TokenCounter
) -> tuple[ContextPart | None, tuple[UserFact, ...]]:
    """The user's items as a context part within ``max_tokens``, and the items it shows.

    Profile lines first, then preferences, then facts; within a kind the newest first.
    """
    header = USER_HEADER.format(user=quoted_name(user))  # the name is data, never a line
    lines, shown = [header], []
    used = counter.count(header)
    ordered = sorted(enumerate(facts), key=lambda pair: (KINDS.index(pair[1].kind), -pair[0]))
    for _, fact in ordered:
        line = f"- ({KIND_LABELS[fact.kind]}) {quoted_item(fact.text)}"
        cost = counter.count(line) + 1
        if used + cost > max_tokens:
            continue
        lines.append(line)
        shown.append(fact)
        used += cost
    if not shown:
        return None, ()
    text = "\n".join(lines)
    part = ContextPart("user", text, counter.count(text))  # provenance: the items themselves
    return part, tuple(shown)
