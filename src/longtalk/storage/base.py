"""The chat-storage seam and the records it stores.

Messages and summaries are values (``longtalk.core``); ids, sequences and versions are
storage's business and live on these records.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable

from longtalk.core.messages import Message
from longtalk.errors import ConflictError, IdempotencyConflict, NotFoundError, UsageError

SummaryFormat = Literal["text", "json"]
SummaryKind = Literal["row", "digest", "archived"]
"""``row``: a chain row; ``digest``: older rows consolidated into one; ``archived``: a row a
digest covers (kept for provenance and the web view, no longer shown)."""
DEFAULT_SMART_LOAD_TAIL = 4
TitleSource = Literal["user", "generated"]
"""Who set a chat's title: the user (never replaced) or the summary job (regenerated)."""


@dataclass(frozen=True, slots=True)
class SummaryStats:
    """What summarizing a chat has cost, and whether it is failing.

    ``calls`` and the token counts add up every summary call ever made for the chat;
    ``failures`` counts the failed runs since the last success (0 after one), and
    ``failure_kinds`` every failure by its kind (``cut_off``, ``broken_json``...).
    ``retry_at`` is when a failing chat is tried again (``None`` when not backing off), and
    ``retry_volume`` the length (``ChatRecord.content_chars``) it must reach first (0: none).
    """

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    failures: int = 0
    failure_kinds: tuple[tuple[str, int], ...] = ()
    last_error: str | None = None
    retry_at: datetime | None = None
    retry_volume: int = 0

    @property
    def by_kind(self) -> dict[str, int]:
        """``failure_kinds`` as a mapping."""
        return dict(self.failure_kinds)

    def after(self, run: SummaryRun) -> SummaryStats:
        """These stats with one more run counted."""
        kinds = self.by_kind
        if run.failure is not None:
            kinds[run.failure] = kinds.get(run.failure, 0) + 1
        return SummaryStats(
            calls=self.calls + run.calls,
            input_tokens=self.input_tokens + run.input_tokens,
            output_tokens=self.output_tokens + run.output_tokens,
            failures=self.failures + 1 if run.failure is not None else 0,
            failure_kinds=tuple(sorted(kinds.items())),
            last_error=run.error if run.failure is not None else None,
            retry_at=run.retry_at if run.failure is not None else None,
            retry_volume=run.retry_volume if run.failure is not None else 0,
        )


@dataclass(frozen=True, slots=True)
class SummaryRun:
    """One run of a chat's summary job, as its commit records it.

    ``failure`` is the failure's kind (None when the run succeeded), ``error`` what to tell
    a person, ``retry_at`` when the chat is due again and ``retry_volume`` the length it
    must have grown to first.
    """

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    failure: str | None = None
    error: str | None = None
    retry_at: datetime | None = None
    retry_volume: int = 0


@dataclass(frozen=True, slots=True)
class ChatRecord:
    """A chat and its summary bookkeeping.

    ``last_summarized_sequence`` is the sequence of the newest message folded into the
    summary chain (0 when none); ``summary_version`` increases with every summary change and
    is what a commit compares-and-swaps on. ``incarnation`` is random per created chat (empty
    for chats older than it): a chat deleted and created again under the same id is another
    incarnation, and work planned for the old one (jobs, streams, vectors, commits) is dropped.
    ``title_source`` says who set the title; ``stats`` what summarizing the chat cost;
    ``content_chars`` how long its messages are in all (what a context read estimates with).
    """

    id: str
    tenant: str = "default"
    user: str | None = None
    title: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    message_count: int = 0
    last_summarized_sequence: int = 0
    summary_version: int = 0
    indexed_sequence: int = 0
    incarnation: str = ""
    title_source: TitleSource | None = None
    stats: SummaryStats = field(default_factory=SummaryStats)
    content_chars: int = 0

    @property
    def index_lag(self) -> int:
        """Stored messages the recall index has not taken in yet."""
        return max(0, self.message_count - self.indexed_sequence)


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """A message as stored: its position in the chat (1-based, gapless) and its value."""

    chat_id: str
    sequence: int
    message: Message


@dataclass(frozen=True, slots=True)
class SummaryRow:
    """One row of a chat's summary chain (seed 002), covering episodes first..last.

    ``summary_text`` is JSON when ``format`` is ``"json"`` (a structured summary), plain text
    otherwise. ``sequence`` (the row's place in the chain), ``id``, ``version`` and the
    timestamps are assigned by storage: a new row (``id`` None) always goes at the end of the
    chain, and every update of a row increases its ``version``.
    """

    chat_id: str
    summary_text: str
    sequence: int = 0
    format: SummaryFormat = "text"
    episode_first: int = 0
    episode_last: int = 0
    turn_number: int = 0
    token_count: int = 0
    kind: SummaryKind = "row"
    version: int = 1
    id: int | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def episode_range(self) -> str:
        """``"first-last"``, as seed 002 stores it."""
        return f"{self.episode_first}-{self.episode_last}"


@dataclass(frozen=True, slots=True)
class SummaryPatch:
    """A partial update of a summary row (seed 002's PATCH /summaries/{id})."""

    summary_text: str | None = None
    token_count: int | None = None
    episode_first: int | None = None
    episode_last: int | None = None
    format: SummaryFormat | None = None
    turn_number: int | None = None
    kind: SummaryKind | None = None

    @classmethod
    def from_row(cls, row: SummaryRow) -> SummaryPatch:
        """A patch that sets every content field of ``row``."""
        return cls(
            summary_text=row.summary_text,
            token_count=row.token_count,
            episode_first=row.episode_first,
            episode_last=row.episode_last,
            format=row.format,
            turn_number=row.turn_number,
            kind=row.kind,
        )

    def values(self) -> dict[str, object]:
        """The fields this patch sets, by name."""
        return {name: value for name in _PATCH_FIELDS if (value := getattr(self, name)) is not None}


_PATCH_FIELDS = (
    "summary_text",
    "token_count",
    "episode_first",
    "episode_last",
    "format",
    "turn_number",
    "kind",
)


@dataclass(frozen=True, slots=True)
class ChatState:
    """What a turn starts from: the chat, its summary chain, and the loaded messages.

    With a summary, ``messages`` holds the unsummarized messages plus at least the last
    ``tail`` (smart loading); without one, every message. ``facts`` are the chat's durable
    facts as the facts layer serialised them (storage keeps them opaque).
    """

    chat: ChatRecord
    summaries: tuple[SummaryRow, ...] = ()
    messages: tuple[StoredMessage, ...] = ()
    facts: tuple[Mapping[str, Any], ...] = ()

    @property
    def latest_summary(self) -> SummaryRow | None:
        """The newest row of the chain."""
        return self.summaries[-1] if self.summaries else None


@dataclass(frozen=True, slots=True)
class TurnCommit:
    """Everything one turn writes, in one transaction.

    ``summaries`` are rows to insert (``id`` None) or replace (``id`` set).
    ``expected_summary_version`` makes the summary part a compare-and-swap: when the chat's
    version differs, nothing is written and ``ConflictError`` is raised. It is only checked
    when the commit changes summaries. Whether checked or not, ``last_summarized_sequence``
    never moves backwards: a commit that would do so raises ``ConflictError`` too.
    ``incarnation`` (when set) names the chat the turn was planned for: if the chat was
    deleted and created again since, nothing is written and ``NotFoundError`` is raised.
    ``tenant`` (when set) is whose chat it must be: another tenant's chat is answered as
    one that does not exist, before anything else (a replay included).
    ``title`` is set as ``title_source`` says: a generated title never replaces one the
    user set. ``facts`` (when not None) replace the chat's durable facts; ``facts_of``, given
    the new messages with the sequences they get, returns facts to add to the chat's (in the
    same transaction); ``run`` counts a summary job's run in the chat's ``stats``.
    """

    chat_id: str
    new_messages: Sequence[Message] = ()
    summaries: Sequence[SummaryRow] = ()
    title: str | None = None
    last_summarized_sequence: int | None = None
    expected_summary_version: int | None = None
    incarnation: str | None = None
    tenant: str | None = None
    title_source: TitleSource = "generated"
    facts: Sequence[Mapping[str, Any]] | None = None
    facts_of: FactsOf | None = None
    run: SummaryRun | None = None

    def facts_after(
        self, current: Sequence[Mapping[str, Any]], stored: Sequence[StoredMessage]
    ) -> tuple[Mapping[str, Any], ...] | None:
        """The chat's facts after this commit; None when it leaves them as they are."""
        base = current if self.facts is None else self.facts
        added = (
            self.facts_of([(item.sequence, item.message) for item in stored])
            if (self.facts_of is not None and stored)
            else ()
        )
        if self.facts is None and not added:
            return None
        return (*base, *added)

    @property
    def changes_summaries(self) -> bool:
        """True when the commit writes summary rows or summary bookkeeping."""
        return bool(self.summaries) or self.last_summarized_sequence is not None


FactsOf = Callable[[Sequence[tuple[int, Message]]], Sequence[Mapping[str, Any]]]
"""The durable facts numbered messages state (the facts layer's extractor, serialised)."""


@dataclass(frozen=True, slots=True)
class CommitResult:
    """What a commit wrote: the stored messages and the chat afterwards."""

    chat: ChatRecord
    messages: tuple[StoredMessage, ...] = ()
    summaries: tuple[SummaryRow, ...] = field(default_factory=tuple)


@runtime_checkable
class ChatStorage(Protocol):
    """Where chats, messages and summary chains live. Every method is one transaction."""

    async def setup(self) -> None:
        """Create or migrate the schema; idempotent."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...

    async def create_chat(
        self,
        chat_id: str | None = None,
        *,
        tenant: str = "default",
        user: str | None = None,
        title: str | None = None,
    ) -> ChatRecord:
        """Create a chat (a random id when none is given)."""
        ...

    async def get_chat(self, chat_id: str, *, tenant: str | None = None) -> ChatRecord | None:
        """The chat, or None (also when it belongs to another tenant)."""
        ...

    async def list_chats(
        self, *, tenant: str = "default", limit: int = 50, offset: int = 0
    ) -> list[ChatRecord]:
        """A tenant's chats, newest first."""
        ...

    async def delete_chat(self, chat_id: str, *, tenant: str | None = None) -> bool:
        """Delete a chat with its messages and summaries; False when there was none."""
        ...

    async def delete_chats(self, *, tenant: str, user: str | None = None) -> list[ChatRecord]:
        """Delete every chat of a tenant (or of one user of it) with its rows; the chats."""
        ...

    async def append_messages(
        self, chat_id: str, messages: Sequence[Message]
    ) -> list[StoredMessage]:
        """Append messages at the end of the chat, atomically, in order."""
        ...

    async def list_messages(
        self, chat_id: str, *, after_sequence: int = 0, limit: int | None = None
    ) -> list[StoredMessage]:
        """Messages after a sequence, oldest first."""
        ...

    async def load_state(self, chat_id: str, *, tail: int | None = None) -> ChatState:
        """Smart load: the summary chain, unsummarized messages and at least the last ``tail``.

        ``tail`` None means the storage's configured ``smart_load_tail`` (default 4).
        Raises ``NotFoundError`` for an unknown chat.
        """
        ...

    async def commit_turn(self, commit: TurnCommit) -> CommitResult:
        """Write a turn atomically; ``ConflictError`` when the summary CAS fails."""
        ...

    async def mark_indexed(
        self, chat_id: str, sequence: int, *, incarnation: str | None = None
    ) -> bool:
        """Move the chat's recall-index watermark up to ``sequence`` (never down).

        False when the chat (of ``incarnation``, when given) no longer exists.
        """
        ...

    async def mark_indexed_many(
        self, watermarks: Mapping[str, int], *, incarnations: Mapping[str, str] | None = None
    ) -> set[str]:
        """``mark_indexed`` for several chats (chat id: sequence) in one transaction.

        Returns the ids of the chats (of the given incarnations) that no longer exist.
        """
        ...

    async def index_backlog(
        self, *, limit: int = 100, chat_ids: Sequence[str] | None = None
    ) -> list[ChatRecord]:
        """Chats whose recall index lags their messages, the longest waiting first.

        ``chat_ids`` limits the answer to those chats (one read for a whole leased batch).
        """
        ...

    async def reset_index(self, chat_id: str | None = None) -> list[ChatRecord]:
        """Set the watermark of one chat (or of every chat) back to 0; the chats reset."""
        ...

    async def list_summaries(self, chat_id: str) -> list[SummaryRow]:
        """The chat's summary chain, oldest first."""
        ...

    async def create_summary(self, row: SummaryRow) -> SummaryRow:
        """Insert a summary row (seed 002's POST /summaries)."""
        ...

    async def update_summary(self, summary_id: int, patch: SummaryPatch) -> SummaryRow:
        """Patch a summary row (seed 002's PATCH /summaries/{id})."""
        ...


def active_chain(rows: Sequence[SummaryRow]) -> tuple[SummaryRow, ...]:
    """The shown chain: rows a digest does not cover, ordered by the episodes they cover."""
    live = [row for row in rows if row.kind != "archived"]
    return tuple(sorted(live, key=lambda row: (row.episode_first, row.sequence)))


def smart_load_after(chat: ChatRecord, *, has_summary: bool, tail: int) -> int:
    """The sequence after which ``load_state`` loads messages (seed 003's smart loading).

    Without a summary every message is loaded (0). With one, the messages not yet folded
    into it and at least the last ``tail``: the summary replaces everything before.
    """
    if tail < 0:
        raise UsageError(f"tail must be 0 or more, got {tail}")
    if not has_summary:
        return 0
    return max(0, min(chat.last_summarized_sequence, chat.message_count - tail))


IDEMPOTENCY_PREFIX = "idem:"
"""Ids an ``Idempotency-Key`` gives: ``idem:<key>:<index in the request>``."""


def idempotent(messages: Sequence[Message], key: str) -> list[Message]:
    """The request's messages, each without an id given ``idem:<key>:<index>``.

    The key then names the whole request: a retry resends the same messages in the same
    order and is answered with the stored ones; anything else under the key is an
    ``IdempotencyConflict`` (see :func:`replayed`).
    """
    return [
        message if message.id else message.model_copy(update={"id": _keyed(key, index)})
        for index, message in enumerate(messages)
    ]


def _keyed(key: str, index: int) -> str:
    return f"{IDEMPOTENCY_PREFIX}{key}:{index}"


def message_ids(new: Sequence[Message]) -> list[str]:
    """The ids to look up before an append: the new messages' own, then one guard per key.

    Two messages of one append may not share an id. The guard is the id one past the end of
    an ``Idempotency-Key`` request (``idem:<key>:<n>`` for n messages): found stored, it
    shows that the key named a longer request, of which this one is only a prefix.
    """
    ids = [message.id for message in new if message.id is not None]
    if len(set(ids)) != len(ids):
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        raise UsageError(f"message ids must be unique within an append, repeated: {repeated}")
    return ids + _guards(ids)


def _guards(ids: Sequence[str]) -> list[str]:
    last: dict[str, int] = {}
    for message_id in ids:
        if not message_id.startswith(IDEMPOTENCY_PREFIX):
            continue
        key, _, index = message_id[len(IDEMPOTENCY_PREFIX) :].rpartition(":")
        if key and index.isdigit():
            last[key] = max(last.get(key, -1), int(index))
    return [_keyed(key, index + 1) for key, index in last.items()]


def replayed(
    found: Sequence[StoredMessage], new: Sequence[Message]
) -> tuple[StoredMessage, ...] | None:
    """The messages a retried append already stored (``found`` by id), or None if it is new.

    A message id names one message of a chat, and an ``Idempotency-Key`` one whole request:
    an append whose messages are all stored already, every field the same (role, content,
    name, type, tool-call ids, timestamp, metadata), in the same order, one after the other,
    is a retry and changes nothing. Anything else that reuses a stored id (other fields, a
    part of the request, more messages, another order) is an ``IdempotencyConflict``: nothing
    is stored.
    """
    if not found:
        return None
    by_id = {item.message.id: item for item in found}
    wanted = {message.id for message in new}
    if any(message_id not in wanted for message_id in by_id):
        raise IdempotencyConflict(
            "this Idempotency-Key (or these message ids) named a longer request: a retry "
            "must resend every message of it; use a new key for another request"
        )
    if any(message.id not in by_id for message in new):
        known = sorted(i for i in by_id if i)[:3]
        raise IdempotencyConflict(
            f"messages with ids {known} are already stored in this chat but others of the "
            "append are not: a retry (same message ids or Idempotency-Key) must resend "
            "exactly the same messages"
        )
    stored = tuple(by_id[message.id] for message in new)
    for message, item in zip(new, stored, strict=True):
        field = _first_difference(item.message, message)
        if field is not None:
            raise IdempotencyConflict(
                f"message id {message.id!r} is already stored with other content (another "
                f"{field}): an id (or an Idempotency-Key) names one message (one request), "
                "use a new one"
            )
    sequences = [item.sequence for item in stored]
    if sequences != list(range(sequences[0], sequences[0] + len(sequences))):
        raise IdempotencyConflict(
            "these message ids were stored in another order or apart: a retry (same message "
            "ids or Idempotency-Key) must resend exactly the same messages, in the same order"
        )
    return stored


_COMPARED = ("role", "content", "name", "type", "tool_call_ids", "timestamp")


def _first_difference(stored: Message, new: Message) -> str | None:
    """The first field in which a resent message differs from the stored one, or None."""
    for name in _COMPARED:
        if getattr(stored, name) != getattr(new, name):
            return name
    if _as_json(stored.metadata) != _as_json(new.metadata):
        return "metadata"
    return None


def _as_json(value: Any) -> Any:
    """``value`` as storage gives it back (tuples as lists, keys as text)."""
    return json.loads(json.dumps(value, default=str))


def check_tenant(chat: ChatRecord, commit: TurnCommit) -> None:
    """``NotFoundError``, as for a missing chat, when ``chat`` is not the commit's tenant's."""
    if commit.tenant is not None and commit.tenant != chat.tenant:
        raise NotFoundError(f"no chat with id {chat.id!r}; create it first with create_chat()")


def check_commit(chat: ChatRecord, commit: TurnCommit) -> None:
    """Raise unless ``commit`` may be applied to ``chat`` as it is now.

    ``NotFoundError`` when the chat is another incarnation than the commit's;
    ``ConflictError`` when the summary compare-and-swap fails or the summary bookkeeping
    would move backwards; ``UsageError`` when it points past the chat's last message or
    carries a summary row of another chat.
    """
    if commit.incarnation is not None and commit.incarnation != chat.incarnation:
        raise NotFoundError(
            f"chat {chat.id!r} was deleted (and created again) since the turn was planned; "
            "nothing was written"
        )
    strangers = [row for row in commit.summaries if row.chat_id != chat.id]
    if strangers:
        raise UsageError(
            f"chat {chat.id!r}: the turn carries a summary row of chat {strangers[0].chat_id!r}"
        )
    if not commit.changes_summaries:
        return
    expected = commit.expected_summary_version
    if expected is not None and expected != chat.summary_version:
        raise ConflictError(
            f"chat {chat.id!r}: the summary is at version {chat.summary_version}, the turn "
            f"was planned from version {expected}; reload the chat state and plan again"
        )
    last = commit.last_summarized_sequence
    if last is None:
        return
    if last < chat.last_summarized_sequence:
        raise ConflictError(
            f"chat {chat.id!r}: messages up to {chat.last_summarized_sequence} are already "
            f"summarized, the turn would move that back to {last}; reload and plan again"
        )
    if last > chat.message_count + len(commit.new_messages):
        raise UsageError(
            f"chat {chat.id!r}: last_summarized_sequence {last} is past the last message "
            f"({chat.message_count + len(commit.new_messages)} after this turn)"
        )


def chat_after(chat: ChatRecord, commit: TurnCommit, *, added: int, now: datetime) -> ChatRecord:
    """The chat as ``commit`` leaves it (every backend writes exactly this)."""
    title, source = chat.title, chat.title_source
    if commit.title is not None and (commit.title_source == "user" or source != "user"):
        title, source = commit.title, commit.title_source
    last = commit.last_summarized_sequence
    return replace(
        chat,
        title=title,
        title_source=source,
        updated_at=now,
        message_count=chat.message_count + added,
        content_chars=chat.content_chars + sum(len(m.content) for m in commit.new_messages[:added]),
        last_summarized_sequence=chat.last_summarized_sequence if last is None else last,
        summary_version=chat.summary_version + int(commit.changes_summaries),
        stats=chat.stats if commit.run is None else chat.stats.after(commit.run),
    )


class StorageBase:
    """What every backend builds the same way on its ``commit_turn``.

    Subclasses implement the rest of ``ChatStorage``; ``smart_load_tail`` is the default
    ``tail`` of their ``load_state``.
    """

    def __init__(self, *, smart_load_tail: int = DEFAULT_SMART_LOAD_TAIL) -> None:
        if smart_load_tail < 0:
            raise UsageError(f"smart_load_tail must be 0 or more, got {smart_load_tail}")
        self.smart_load_tail = smart_load_tail

    async def commit_turn(self, commit: TurnCommit) -> CommitResult:
        """Write a turn atomically (the backend's)."""
        raise NotImplementedError(f"{type(self).__name__}.commit_turn")

    async def append_messages(
        self, chat_id: str, messages: Sequence[Message]
    ) -> list[StoredMessage]:
        """Append messages at the end of the chat, atomically, in order."""
        result = await self.commit_turn(TurnCommit(chat_id, new_messages=messages))
        return list(result.messages)

    async def create_summary(self, row: SummaryRow) -> SummaryRow:
        """Append a row to the chat's chain; bumps the chat's summary version."""
        if row.id is not None:
            raise UsageError(f"create_summary: the row already has id {row.id}; use update")
        result = await self.commit_turn(TurnCommit(row.chat_id, summaries=(row,)))
        return result.summaries[0]
