"""Forget messages everywhere: the messages, then every artefact derived from them.

:meth:`Forgetter.forget` deletes the messages and records the pending forget in one
transaction (``ForgetStore.begin_forget``), then rewrites what was derived from them:

* a summary row (or archived row) whose range held one is re-derived by the chat's
  summarizer from the remaining messages of its range; a digest is merged again from the
  archived rows it covers, rewritten; a row with nothing left, or whose summarizer fails,
  is cut;
* a durable fact whose sources were all forgotten goes, one with other sources keeps them;
  the user's memory is taken again from the facts left;
* the chat's recall vectors are deleted and its remaining turns indexed again;
* a generated title is generated again.

Every step is idempotent and the record is dropped only with the rewrite
(``finish_forget``), so a run killed in between is finished by :meth:`Forgetter.resume`
(every door resumes pending forgets when it opens). The receipt lists every artefact.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, replace
from typing import Any

from longtalk.config import MemoryConfig
from longtalk.core.history import count_episodes
from longtalk.core.receipt import Artefact, ForgetAction, ForgetItem, ForgetReceipt
from longtalk.core.tokens import TokenCounter
from longtalk.engine.forget_fact import is_tombstone
from longtalk.engine.job import FactKeeper
from longtalk.errors import ConflictError, LongtalkError, UsageError
from longtalk.llm.base import LLM
from longtalk.storage.base import ChatRecord, ChatStorage, StoredMessage, SummaryRow
from longtalk.storage.forgetting import (
    ForgetRewrite,
    ForgetStore,
    PendingForget,
    forget_sequences,
)
from longtalk.storage.user_memory import UserFact, UserMemoryStore
from longtalk.summary.chain import message_span, row_summary, stored_form
from longtalk.summary.consolidate import merged, story
from longtalk.summary.model import ConversationSummary
from longtalk.summary.title import generate_title
from longtalk.summary.writer import SummaryWriter

log = logging.getLogger(__name__)
ATTEMPTS = 5
"""Rewrites tried when a summary commit keeps landing in between."""
DropVectors = Callable[[ChatRecord], Awaitable[bool]]
"""Deletes a chat's recall vectors and indexes its remaining turns; False without recall."""


@dataclass(eq=False)
class Forgetter:
    """Forgets messages of a chat for one engine's storage, summarizer and recall."""

    storage: ChatStorage
    writer: SummaryWriter
    config: MemoryConfig
    counter: TokenCounter
    facts: FactKeeper
    users: UserMemoryStore
    drop_vectors: DropVectors
    _: KW_ONLY
    title_llm: LLM | None = None

    @property
    def store(self) -> ForgetStore:
        """The storage's forgetting seam; ``UsageError`` for a storage without one."""
        if not isinstance(self.storage, ForgetStore):
            raise UsageError(f"{type(self.storage).__name__} cannot forget single messages")
        return self.storage

    async def forget(
        self, chat_id: str, sequences: Sequence[int], *, tenant: str | None = None
    ) -> ForgetReceipt:
        """Delete the messages and everything derived from them; the receipt."""
        wanted = forget_sequences(sequences)
        chat = await self.storage.get_chat(chat_id, tenant=tenant)
        if chat is not None:
            past = [s for s in wanted if s > chat.message_count]
            if past:
                raise UsageError(
                    f"sequences: {past} are past the chat's last message ({chat.message_count})"
                )
        pending = await self.store.begin_forget(chat_id, wanted, tenant=tenant)
        return await self.finish(pending, resumed=False)

    async def resume(self, chat_id: str | None = None) -> list[ForgetReceipt]:
        """Finish every pending forget (of one chat, or of all); their receipts."""
        receipts = []
        for pending in await self.store.pending_forgets(chat_id):
            receipts.append(await self.finish(pending, resumed=True))
        return receipts

    async def finish(self, pending: PendingForget, *, resumed: bool) -> ForgetReceipt:
        """Rewrite what was derived from the pending forget's messages, then drop its record."""
        for _ in range(ATTEMPTS):
            try:
                return await self._rewrite(pending, resumed)
            except ConflictError:
                continue
        raise ConflictError(
            f"chat {pending.chat_id!r}: the summary kept changing while forgetting; the "
            "forget stays pending and is finished at the next start"
        )

    async def _rewrite(self, pending: PendingForget, resumed: bool) -> ForgetReceipt:
        forgotten = set(pending.sequences)
        state = await self.storage.load_state(pending.chat_id)
        chat = state.chat
        items = [_message_item(s, s in pending.deleted, resumed) for s in pending.sequences]
        rows = await self.storage.list_summaries(chat.id)
        rewritten, cut, row_items = await self._rows(chat, rows, forgotten)
        items += row_items
        facts, fact_items = _facts(state.facts, forgotten)
        items += fact_items
        title = await self._title(chat, rows, rewritten, cut)
        if title is not None:
            items.append(ForgetItem("title", chat.id, "rewritten", "generated again"))
        elif chat.title is not None:
            items.append(ForgetItem("title", chat.id, "kept", _title_kept(chat)))
        stored = await self.drop_vectors(chat)
        reason = "deleted; the remaining turns are indexed again"
        items.append(ForgetItem("vectors", chat.id, "removed" if stored else "kept", reason))
        before = await self._user_items(chat)
        await self._refresh_user_memory(chat, facts)
        rewrite = ForgetRewrite(
            chat.id,
            pending.sequences,
            rows=tuple(rewritten),
            cut=tuple(row.id for row in cut if row.id is not None),
            facts=tuple(facts),
            title=title,
            expected_summary_version=chat.summary_version,
        )
        after_chat = await self.store.finish_forget(rewrite)
        await self._refresh_user_memory(after_chat, facts)
        items += _user_memory_items(before, await self._user_items(after_chat))
        log.info(
            "chat %s: forgot %d messages (%d artefacts rewritten, %d removed or cut)",
            chat.id,
            len(pending.sequences),
            sum(1 for i in items if i.action == "rewritten"),
            sum(1 for i in items if i.action in ("removed", "cut")),
        )
        return ForgetReceipt(chat.id, pending.sequences, tuple(items), resumed)

    async def _rows(
        self, chat: ChatRecord, rows: Sequence[SummaryRow], forgotten: set[int]
    ) -> tuple[list[SummaryRow], list[SummaryRow], list[ForgetItem]]:
        """Rows re-derived, rows cut, and an item for every row (digests last)."""
        spans = row_spans(rows)
        rewritten: list[SummaryRow] = []
        cut: list[SummaryRow] = []
        items: list[ForgetItem] = []
        for row in [r for r in rows if r.kind != "digest"]:
            first, last = spans[row.id or 0]
            if not forgotten & set(range(first, last + 1)):
                items.append(_row_item(row, "kept", "drew on none of the messages"))
                continue
            remaining = await self._messages(chat.id, first, last)
            new = await self._rederive(row, remaining) if remaining else None
            if new is None:
                cut.append(row)
                why = "nothing of its range is left" if not remaining else "cannot re-derive"
                items.append(_row_item(row, "cut", why))
            else:
                rewritten.append(new)
                left = len(remaining)
                why = f"re-derived from the {left} message{'s' * (left != 1)} left in its range"
                items.append(_row_item(row, "rewritten", why))
        for digest in [r for r in rows if r.kind == "digest"]:
            first, last = spans[digest.id or 0]
            if not forgotten & set(range(first, last + 1)):
                items.append(_row_item(digest, "kept", "drew on none of the messages"))
                continue
            new = self._redigest(digest, rows, rewritten, cut)
            if new is None:
                cut.append(digest)
                items.append(_row_item(digest, "cut", "none of the rows it covered is left"))
            else:
                rewritten.append(new)
                items.append(_row_item(digest, "rewritten", "merged again from its rows"))
        return rewritten, cut, items

    async def _messages(self, chat_id: str, first: int, last: int) -> list[StoredMessage]:
        found = await self.storage.list_messages(chat_id, after_sequence=first - 1)
        return [item for item in found if item.sequence <= last]

    async def _rederive(
        self, row: SummaryRow, remaining: Sequence[StoredMessage]
    ) -> SummaryRow | None:
        """The row re-derived from ``remaining`` by the chat's summarizer; None if it fails."""
        messages = [item.message for item in remaining]
        structured = row.format == "json"
        try:
            draft = await self.writer.extend(None, messages, structured=structured)
        except LongtalkError as exc:
            log.warning("chat %s: re-deriving summary row %s failed: %s", row.chat_id, row.id, exc)
            return None
        summary = draft.summary.model_copy(update={"covered_turns": count_episodes(messages)})
        text, fmt = stored_form(summary, structured=structured)
        return replace(row, summary_text=text, format=fmt, token_count=self.counter.count(text))

    def _redigest(
        self,
        digest: SummaryRow,
        rows: Sequence[SummaryRow],
        rewritten: Sequence[SummaryRow],
        cut: Sequence[SummaryRow],
    ) -> SummaryRow | None:
        """The digest merged again from the archived rows it covers, as they are now."""
        now = {row.id: row for row in rewritten}
        gone = {row.id for row in cut}
        covered = [
            now.get(row.id, row)
            for row in sorted(rows, key=lambda r: r.episode_first)
            if row.kind == "archived"
            and row.id not in gone
            and digest.episode_first <= row.episode_first <= digest.episode_last
        ]
        if not covered:
            return None
        combined = merged([row_summary(row) for row in covered])
        cap = max(1, self.config.summary_max_tokens // 2)
        combined = combined.model_copy(
            update={"narrative": story(combined.narrative, cap, self.counter)}
        )
        text, fmt = stored_form(combined, structured=digest.format == "json")
        return replace(digest, summary_text=text, format=fmt, token_count=self.counter.count(text))

    async def _title(
        self,
        chat: ChatRecord,
        rows: Sequence[SummaryRow],
        rewritten: Sequence[SummaryRow],
        cut: Sequence[SummaryRow],
    ) -> str | None:
        """A generated title generated again when the summary changed; None: unchanged."""
        if chat.title_source != "generated" or not (rewritten or cut):
            return None
        now = {row.id: row for row in rewritten}
        gone = {row.id for row in cut}
        live = [now.get(r.id, r) for r in rows if r.kind != "archived" and r.id not in gone]
        latest = max(live, key=lambda r: (r.episode_last, r.sequence), default=None)
        after = max(0, (latest.turn_number if latest else chat.message_count) - 8)
        recent = await self.storage.list_messages(chat.id, after_sequence=after)
        messages = [item.message for item in recent]
        summary = row_summary(latest) if latest else ConversationSummary()
        return await generate_title(self.title_llm, summary, messages)

    async def _user_items(self, chat: ChatRecord) -> list[UserFact]:
        if chat.user is None:
            return []
        found = await self.users.items(chat.tenant, chat.user)
        return [item for item in found if item.chat_id == chat.id and item.origin == "derived"]

    async def _refresh_user_memory(
        self, chat: ChatRecord, facts: Sequence[Mapping[str, Any]]
    ) -> None:
        """What the user's memory took from the chat, less what the facts left no longer give.

        Only removes: promoting facts is the job path's step, not forgetting's.
        """
        if chat.user is None:
            return
        had = {(item.kind, item.text) for item in await self._user_items(chat)}
        state = await self.storage.load_state(chat.id)
        items = self.facts.known_about_user(chat, facts, state)
        kept = [item for item in items if (item.kind, item.text) in had]
        await self.users.replace_derived(chat.tenant, chat.user, chat.id, kept)


def row_spans(rows: Sequence[SummaryRow]) -> dict[int, tuple[int, int]]:
    """Each row's message range (first, last sequence), by row id.

    See :func:`longtalk.summary.chain.message_span`.
    """
    return {row.id or 0: message_span(row, rows) for row in rows}


def _facts(
    current: Sequence[Mapping[str, Any]], forgotten: set[int]
) -> tuple[list[dict[str, Any]], list[ForgetItem]]:
    """The chat's facts without the forgotten sources, and an item for each fact."""
    kept: list[dict[str, Any]] = []
    items: list[ForgetItem] = []
    for index, entry in enumerate(current, start=1):
        if is_tombstone(entry):  # a forgotten fact's digests: kept, not a fact
            kept.append(dict(entry))
            continue
        sources = _sources(entry)
        ref = f"#{index} ({entry.get('kind', '?')}, sources {list(sources)})"
        left = [s for s in sources if s not in forgotten]
        if sources and not left:
            items.append(ForgetItem("fact", ref, "removed", "every source was forgotten"))
        elif len(left) < len(sources):
            kept.append({**entry, "sequences": left})
            why = f"keeps its other sources {left}"
            items.append(ForgetItem("fact", ref, "rewritten", why))
        else:
            kept.append(dict(entry))
            why = "no source recorded" if not sources else "drew on none of the messages"
            items.append(ForgetItem("fact", ref, "kept", why))
    return kept, items


def _sources(entry: Mapping[str, Any]) -> tuple[int, ...]:
    value = entry.get("sequences", ())
    if not isinstance(value, list | tuple):
        return ()
    return tuple(s for s in value if isinstance(s, int) and not isinstance(s, bool))


def _message_item(sequence: int, deleted_now: bool, resumed: bool) -> ForgetItem:
    if deleted_now:
        reason = "deleted as asked"
    elif resumed:
        reason = "deleted before the rewrite was interrupted"
    else:
        reason = "already gone"
    return ForgetItem("message", str(sequence), "removed", reason)


_ROW_ARTEFACTS: dict[str, Artefact] = {
    "row": "summary row",
    "digest": "digest",
    "archived": "archived row",
}


def _row_item(row: SummaryRow, action: ForgetAction, reason: str) -> ForgetItem:
    ref = f"{row.id} (episodes {row.episode_range}, to message {row.turn_number})"
    return ForgetItem(_ROW_ARTEFACTS[row.kind], ref, action, reason)


def _title_kept(chat: ChatRecord) -> str:
    return "set by the user" if chat.title_source == "user" else "the summary did not change"


def _user_memory_items(before: Sequence[UserFact], after: Sequence[UserFact]) -> list[ForgetItem]:
    """One item per user-memory item this chat gave: removed when its text is no longer taken."""
    still = {(item.kind, item.text) for item in after}
    items = []
    for item in before:
        ref = f"{item.id} ({item.kind}, messages {item.messages[0]}-{item.messages[1]})"
        if (item.kind, item.text) in still:
            items.append(ForgetItem("user memory", ref, "kept", "its facts are still known"))
        else:
            items.append(ForgetItem("user memory", ref, "removed", "its facts were forgotten"))
    return items
