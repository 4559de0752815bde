"""Forget one durable fact, and keep it forgotten: a tombstone for its claim.

The fact's entries go from the chat's facts, and what the user's memory took from them. In
their place the chat's facts keep a tombstone: digests of the fact's text and of its claim
(holder, subject, what it says), never the text itself. :class:`TombstonedFacts` wraps the
job path's fact keeper and drops every fact a tombstone names, so a later summary (an LLM's
structured row, a message saying it again) does not bring it back.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from longtalk.core.history import Numbered
from longtalk.core.messages import Message
from longtalk.core.receipt import ForgetItem, ForgetReceipt
from longtalk.engine.job import FactKeeper
from longtalk.errors import NotFoundError, UsageError
from longtalk.facts.durable_fact import DurableFact, normal_text
from longtalk.storage.base import ChatRecord, ChatState, ChatStorage, RecordUpdate, TurnCommit
from longtalk.storage.user_memory import UserFact, UserMemoryStore
from longtalk.summary.planner import SummaryPlan

TOMBSTONE = "forgotten"
"""The key of a tombstone entry among a chat's stored facts."""


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _marks(fact: DurableFact) -> set[str]:
    claim = f"{fact.holder.casefold()}|{fact.subject.casefold()}|{fact.sameness}"
    return {_digest(normal_text(fact.text)), _digest(claim)}


def is_tombstone(entry: Mapping[str, Any]) -> bool:
    """True for a tombstone entry (not a fact)."""
    return TOMBSTONE in entry


def buried(entries: Sequence[Mapping[str, Any]]) -> tuple[set[str], list[Mapping[str, Any]]]:
    """The tombstones' digests, and the entries no tombstone names (tombstones left out)."""
    marks = {str(mark) for e in entries if is_tombstone(e) for mark in e[TOMBSTONE]}
    alive = []
    for entry in entries:
        if is_tombstone(entry):
            continue
        fact = _fact(entry)
        if fact is None or not (_marks(fact) & marks):
            alive.append(entry)
    return marks, alive


def _fact(entry: Mapping[str, Any]) -> DurableFact | None:
    try:
        return DurableFact.from_dict(entry)
    except ValueError:
        return None


class TombstonedFacts:
    """A fact keeper that keeps the chat's tombstones and every fact they name out."""

    def __init__(self, inner: FactKeeper) -> None:
        self.inner = inner

    def of_messages(
        self, messages: Sequence[Numbered], previous: Sequence[Message] = ()
    ) -> list[dict[str, Any]]:
        """The facts new messages state (tombstones apply when the chat is summarized)."""
        return self.inner.of_messages(messages, previous)

    def update(
        self,
        current: Sequence[Mapping[str, Any]],
        plan: SummaryPlan,
        previous: Sequence[Message] = (),
    ) -> list[dict[str, Any]] | None:
        """The inner keeper's facts after ``plan``, without the buried; the tombstones kept."""
        marks, alive = buried(current)
        found = self.inner.update(alive, plan, previous)
        if found is None or not marks:
            return found
        stones = [dict(entry) for entry in current if is_tombstone(entry)]
        fresh = [entry for entry in found if not ((f := _fact(entry)) and _marks(f) & marks)]
        return fresh + stones

    def known_about_user(
        self, chat: ChatRecord, current: Sequence[Mapping[str, Any]], state: ChatState
    ) -> list[UserFact]:
        """The inner keeper's items for the user, from the facts no tombstone names."""
        return self.inner.known_about_user(chat, buried(current)[1], state)


async def forget_fact(
    storage: ChatStorage,
    facts: FactKeeper,
    users: UserMemoryStore,
    chat_id: str,
    text: str,
    *,
    tenant: str | None = None,
) -> ForgetReceipt:
    """Forget the chat's durable fact whose text is ``text``, and keep it forgotten."""
    wanted = normal_text(text)
    if not wanted:
        raise UsageError("text: give the text of the durable fact to forget")
    chat = await storage.get_chat(chat_id, tenant=tenant)
    if chat is None:
        raise NotFoundError(f"no chat with id {chat_id!r}")
    state = await storage.load_state(chat_id)
    hit = [e for e in state.facts if (f := _fact(e)) is not None and normal_text(f.text) == wanted]
    if not hit:
        raise NotFoundError(f"text: chat {chat_id!r} has no durable fact {text!r}")
    marks = set().union(*(_marks(f) for e in hit if (f := _fact(e)) is not None))
    kept = [e for e in state.facts if not ((f := _fact(e)) and _marks(f) & marks)]
    old = [m for e in state.facts if is_tombstone(e) for m in e[TOMBSTONE]]
    kept = [e for e in kept if not is_tombstone(e)]
    tombstone = {TOMBSTONE: sorted(set(old) | marks)}
    before = await _derived(users, chat)
    result = await storage.commit_turn(
        TurnCommit(chat.id, record=RecordUpdate(facts=(*kept, tombstone)), tenant=tenant)
    )
    if chat.user is not None:  # only removes: promoting is the job path's step
        had = {(item.kind, item.text) for item in before}
        items = facts.known_about_user(result.chat, kept, state)
        kept_items = [item for item in items if (item.kind, item.text) in had]
        await users.replace_derived(chat.tenant, chat.user, chat.id, kept_items)
    after = {(i.kind, i.text) for i in await _derived(users, chat)}
    receipt = [
        ForgetItem(
            "fact",
            f"{e.get('kind', '?')}, sources {list(e.get('sequences', []))}",
            "removed",
            "forgotten as asked; a tombstone keeps it out",
        )
        for e in state.facts
        if not is_tombstone(e) and e not in kept
    ]
    for item in before:
        ref = f"{item.id} ({item.kind}, messages {item.messages[0]}-{item.messages[1]})"
        gone = (item.kind, item.text) not in after
        reason = "its fact was forgotten" if gone else "its facts are still known"
        receipt.append(ForgetItem("user memory", ref, "removed" if gone else "kept", reason))
    return ForgetReceipt(chat.id, (), tuple(receipt))


async def _derived(users: UserMemoryStore, chat: ChatRecord) -> list[UserFact]:
    if chat.user is None:
        return []
    found = await users.items(chat.tenant, chat.user)
    return [item for item in found if item.chat_id == chat.id and item.origin == "derived"]
