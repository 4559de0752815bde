"""Keeping a chat's durable facts: found as messages arrive, settled as they are summarized.

An append adds the facts its messages state to the chat's (cheap cue patterns, in the same
transaction), so a fact is kept from the moment it is said. Each extension of the summary
then merges the chat's facts with those of the messages it folded (duplicates unite, a
later fact supersedes an earlier one on the same subject); with an LLM writer, also with
what the new summary rows say (its preferences, decisions, people).

Storage keeps what was said; what a reader is shown is resolved against all of the chat's
facts (:func:`longtalk.facts.known.resolve`): a statement about someone the chat does not
know is held back, and "we" is named once the speaker's partner is known.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from longtalk.core.history import Numbered
from longtalk.core.messages import Message, Role
from longtalk.facts.durable_fact import DurableFact, FactKind
from longtalk.facts.from_summary import facts_from_summary
from longtalk.facts.known import related_to, resolve
from longtalk.facts.merge import merge_facts
from longtalk.facts.offline import holder_of, statements
from longtalk.storage.base import ChatRecord, ChatState, SummaryRow
from longtalk.storage.user_memory import UserFact, UserFactKind
from longtalk.summary.chain import row_summary
from longtalk.summary.planner import SummaryPlan

USER_KINDS: dict[FactKind, UserFactKind] = {
    "constraint": "profile",
    "identity": "profile",
    "relation": "profile",
    "possession": "profile",
    "preference": "preference",
    "dislike": "preference",
    "decision": "fact",
    "commitment": "fact",
    "question": "fact",
}
"""How a durable fact is filed in its user's memory."""


class DurableFacts:
    """The job path's durable-facts step (``longtalk.engine.job.FactKeeper``).

    ``from_summaries``: also take facts from the structured rows the plan wrote (true for
    an LLM writer; the offline summarizer's lists are cue matches already found here).
    """

    def __init__(self, *, from_summaries: bool = False) -> None:
        self.from_summaries = from_summaries

    def of_messages(
        self, messages: Sequence[Numbered], previous: Sequence[Message] = ()
    ) -> list[dict[str, Any]]:
        """The facts new messages state, as storage keeps them (found at append time).

        ``previous``: the chat's latest messages before them (whom the first one answers).
        """
        return [fact.to_dict() for fact in statements(messages, previous=previous)]

    def update(
        self,
        current: Sequence[Mapping[str, Any]],
        plan: SummaryPlan,
        previous: Sequence[Message] = (),
    ) -> list[dict[str, Any]] | None:
        """The chat's facts after ``plan``; None when the plan folded nothing."""
        if not plan.folded:
            return None
        found = statements(plan.folded, previous=previous)
        if self.from_summaries:
            sequences = [sequence for sequence, _ in plan.folded]
            for row in _structured(plan.rows):
                found += facts_from_summary(row_summary(row), plan.folded, sequences=sequences)
        merged = merge_facts(said_facts(current), found)
        return [fact.to_dict() for fact in merged]

    def known_about_user(
        self, chat: ChatRecord, current: Sequence[Mapping[str, Any]], state: ChatState
    ) -> list[UserFact]:
        """The chat's facts its user stated, as items of their memory across chats.

        Each item's provenance is the first and last message its fact was taken from.

        The user's facts are those held by ``user`` (unnamed user messages), by the chat's
        user id, or by a name the chat's user messages carry, and those of the people the
        user's relations name (``the user's husband Sam is allergic to shellfish``).
        """
        holders = {"user", (chat.user or "").casefold()}
        holders |= {
            holder_of(item.message).casefold()
            for item in state.messages
            if item.message.role == Role.USER
        }
        said = said_facts(current)
        holders |= related_to(said, holders)
        return [
            UserFact(
                USER_KINDS[fact.kind],
                fact.text,
                "derived",
                chat.id,
                (min(fact.sequences), max(fact.sequences)) if fact.sequences else (0, 0),
            )
            for fact in resolve(said)
            if fact.holder.casefold() in holders
        ]


def stored_facts(current: Sequence[Mapping[str, Any]]) -> list[DurableFact]:
    """The facts storage holds for a chat, merged and resolved: what a reader is shown.

    Appends add facts unmerged; a statement about someone the chat does not know is held
    back and "we" named (see :func:`longtalk.facts.known.resolve`). Entries it cannot read
    are skipped.
    """
    return resolve(said_facts(current))


def said_facts(current: Sequence[Mapping[str, Any]]) -> list[DurableFact]:
    """The facts storage holds for a chat, merged, as said. Unreadable entries are skipped."""
    facts = []
    for entry in current:
        try:
            facts.append(DurableFact.from_dict(entry))
        except ValueError:
            continue
    return merge_facts(facts, ())


def _structured(rows: Sequence[SummaryRow]) -> list[SummaryRow]:
    return [row for row in rows if row.format == "json" and row.kind != "archived"]
