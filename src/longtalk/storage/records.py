"""The values storage keeps: chats, messages, summary rows, what a turn writes.

Messages and summaries are values (``longtalk.core``); ids, sequences and versions are
storage's business and live on these records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal

from longtalk.core.fields import field_names, same_named
from longtalk.core.messages import Message
from longtalk.errors import ConflictError, UsageError

SummaryFormat = Literal["text", "json"]
SummaryKind = Literal["row", "digest", "archived"]
"""``row``: a chain row; ``digest``: older rows consolidated into one; ``archived``: a row a
digest covers (kept for provenance and the web view, no longer shown)."""
DEFAULT_SMART_LOAD_TAIL = 4
TitleSource = Literal["user", "generated"]
"""Who set a chat's title: the user (never replaced) or the summary job (regenerated)."""
UserFactKind = Literal["fact", "preference", "profile"]
Origin = Literal["derived", "given"]


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
    """A message as stored: its position in the chat (1-based, never reused) and its value.

    A forgotten message leaves a gap: later messages keep their sequences.
    """

    chat_id: str
    sequence: int
    message: Message


@dataclass(frozen=True, slots=True)
class SummaryRow:
    """One row of a chat's summary chain, covering episodes first..last.

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
        """``"first-last"``, as the episode-summary service stores it."""
        return f"{self.episode_first}-{self.episode_last}"


@dataclass(frozen=True, slots=True)
class SummaryPatch:
    """A partial update of a summary row (the episode-summary service's PATCH /summaries/{id})."""

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
        return cls(**same_named(field_names(cls), row))

    def values(self) -> dict[str, object]:
        """The fields this patch sets, by name."""
        fields = same_named(field_names(SummaryPatch), self)
        return {name: value for name, value in fields.items() if value is not None}


@dataclass(frozen=True, slots=True)
class ChatState:
    """What a turn starts from: the chat, its summary chain, and the loaded messages.

    With a summary, ``messages`` holds the unsummarized messages plus at least the last
    ``tail`` (smart loading); without one, every message. ``facts`` are the chat's durable
    facts as the facts layer serialised them (storage keeps them opaque). ``user_memory``
    is what is kept about the chat's user across chats when the load was asked for it and
    the storage keeps user memory itself (read with the rest, in the same snapshot); None
    otherwise (ask the user-memory store).
    """

    chat: ChatRecord
    summaries: tuple[SummaryRow, ...] = ()
    messages: tuple[StoredMessage, ...] = ()
    facts: tuple[Mapping[str, Any], ...] = ()
    user_memory: tuple[UserFact, ...] | None = None

    @property
    def latest_summary(self) -> SummaryRow | None:
        """The newest row of the chain."""
        return self.summaries[-1] if self.summaries else None


@dataclass(frozen=True, slots=True)
class NewMessages:
    """An append: the messages, the facts they state, the background job they request.

    ``found_facts`` are computed before the commit (see :class:`FoundFacts`) and added to
    the chat's facts. ``enqueue`` names a kind of background job to request for the chat in
    the same transaction when messages are stored (a row of the job table, announced to
    the workers when new); backends without a job table ignore it.
    """

    messages: Sequence[Message] = ()
    found_facts: FoundFacts | None = None
    enqueue: str | None = None

    @property
    def lookup_ids(self) -> list[str]:
        """The ids a writer looks up first: the messages' own, then one guard per key.

        Two messages of one append may not share an id (``UsageError``). The guard is the
        id one past the end of an ``Idempotency-Key`` request (``idem:<key>:<n>`` for n
        messages): found stored, it shows that the key named a longer request, of which
        this one is only a prefix.
        """
        ids = [message.id for message in self.messages if message.id is not None]
        if len(set(ids)) != len(ids):
            repeated = sorted({i for i in ids if ids.count(i) > 1})
            raise UsageError(f"message ids must be unique within an append, repeated: {repeated}")
        return ids + _guards(ids)


IDEMPOTENCY_PREFIX = "idem:"
"""Ids an ``Idempotency-Key`` gives: ``idem:<key>:<index in the request>``."""


def idempotent(messages: Sequence[Message], key: str) -> list[Message]:
    """The request's messages, each without an id given ``idem:<key>:<index>``.

    The key then names the whole request: a retry resends the same messages in the same
    order and is answered with the stored ones; anything else under the key is an
    ``IdempotencyConflict`` (see ``storage.base.replayed``).
    """
    return [
        message if message.id else message.model_copy(update={"id": _keyed(key, index)})
        for index, message in enumerate(messages)
    ]


def _keyed(key: str, index: int) -> str:
    return f"{IDEMPOTENCY_PREFIX}{key}:{index}"


def _guards(ids: Sequence[str]) -> list[str]:
    last: dict[str, int] = {}
    for message_id in ids:
        if not message_id.startswith(IDEMPOTENCY_PREFIX):
            continue
        key, _, index = message_id[len(IDEMPOTENCY_PREFIX) :].rpartition(":")
        if key and index.isdigit():
            last[key] = max(last.get(key, -1), int(index))
    return [_keyed(key, index + 1) for key, index in last.items()]


@dataclass(frozen=True, slots=True)
class SummaryUpdate:
    """A summary job's rows and watermark, written as a compare-and-swap.

    ``rows`` are rows to insert (``id`` None) or replace (``id`` set). When the chat's
    summary version is not ``expected_version`` (if given), nothing is written and
    ``ConflictError`` is raised. ``last_summarized_sequence`` never moves backwards: a
    commit that would move it so raises ``ConflictError`` too.
    """

    rows: Sequence[SummaryRow] = ()
    last_summarized_sequence: int | None = None
    expected_version: int | None = None

    @property
    def changes(self) -> bool:
        """True when the update writes summary rows or summary bookkeeping."""
        return bool(self.rows) or self.last_summarized_sequence is not None


@dataclass(frozen=True, slots=True)
class RecordUpdate:
    """What a commit sets on the chat's record besides its messages and summary.

    ``title`` is set as ``title_source`` says: a generated title never replaces one the user
    set. ``facts`` (when not None) replace the chat's durable facts; ``facts_read`` (when
    set) is how many of them ``facts`` was computed from, and the entries past those (what
    appends added since the writer read them) are kept after ``facts``, so a summary job
    never drops the facts of messages appended while it ran. ``run`` counts a summary
    job's run in the chat's ``stats``.
    """

    title: str | None = None
    title_source: TitleSource = "generated"
    facts: Sequence[Mapping[str, Any]] | None = None
    run: SummaryRun | None = None
    facts_read: int | None = None


@dataclass(frozen=True, slots=True)
class TurnCommit:
    """Everything one turn writes to a chat, in one transaction, as three optional parts.

    ``append`` stores messages, ``summary`` extends the summary, ``record`` sets the title,
    facts and run bookkeeping; a part left at its default writes nothing. Two guards hold
    for every part: ``tenant`` (when set) is whose chat it must be (another tenant's chat
    is answered as one that does not exist, before anything else, a replay included), and
    ``incarnation`` (when set) names the chat the turn was planned for (if it was deleted
    and created again since, nothing is written and ``NotFoundError`` is raised).
    """

    chat_id: str
    append: NewMessages = NewMessages()
    summary: SummaryUpdate = SummaryUpdate()
    record: RecordUpdate = RecordUpdate()
    tenant: str | None = None
    incarnation: str | None = None

    def with_found_facts(self, found: FoundFacts | None) -> TurnCommit:
        """A copy of the commit with ``found`` as the facts its messages state."""
        return replace(self, append=replace(self.append, found_facts=found))

    def facts_after(
        self, current: Sequence[Mapping[str, Any]]
    ) -> tuple[Mapping[str, Any], ...] | None:
        """The chat's facts after this commit; None when it leaves them as they are."""
        replaced = self.record.facts
        found = self.append.found_facts
        added = found.facts if found and self.append.messages else ()
        if replaced is None and not added:
            return None
        if replaced is None:
            return (*current, *added)
        read = self.record.facts_read
        since = tuple(current[read:]) if read is not None else ()
        return (*replaced, *added, *since)


@dataclass(frozen=True, slots=True)
class FoundFacts:
    """Durable facts an append's messages state, computed by the caller before the commit.

    Each fact names the sequences of the messages it came from, which depend on how many
    messages the chat holds: the facts were numbered as if it held ``numbered_for``. The
    commit writes them only if it still does; otherwise nothing is written and
    :class:`MessageCountMoved` tells the count to number from.
    """

    facts: tuple[Mapping[str, Any], ...]
    numbered_for: int


class MessageCountMoved(ConflictError):
    """An append's facts were numbered for another message count than the chat's now."""

    def __init__(self, chat_id: str, numbered_for: int, message_count: int) -> None:
        super().__init__(
            f"chat {chat_id!r}: the append's facts were numbered for {numbered_for} messages, "
            f"the chat holds {message_count}; number them again and retry"
        )
        self.message_count = message_count


@dataclass(frozen=True, slots=True)
class CommitResult:
    """What a commit wrote: the stored messages and the chat afterwards."""

    chat: ChatRecord
    messages: tuple[StoredMessage, ...] = ()
    summaries: tuple[SummaryRow, ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class UserFact:
    """One thing known about a user, and where it came from.

    ``chat_id`` and ``messages`` (first, last sequence) name the chat and the messages it
    was taken from; both are empty for what the application stored itself (``origin`` given).
    """

    kind: UserFactKind
    text: str
    origin: Origin = "given"
    chat_id: str | None = None
    messages: tuple[int, int] = (0, 0)
    id: int | None = None
    created_at: datetime | None = field(default=None, compare=False)
