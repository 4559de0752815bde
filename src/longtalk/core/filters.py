"""The message filter pipeline (Orchid's consolidated one): one place that cleans a chat history.

A filter takes the whole history and returns a new one, so filters that need context
(the last user message, the last N exchanges) fit the same seam as per-message ones.
A tool call and its results form one *tool group* (messages linked by ``tool_call_ids``);
every filter keeps or drops a tool group as a whole, so no call is ever separated from
its results.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from longtalk.core.messages import Message, MessageType, Role, group_episodes
from longtalk.core.truncation import Shortener, TruncationStrategy, shorten_content

__all__ = [
    "SUPERVISOR_PIPELINE",
    "SUPERVISOR_SKIP_PREFIXES",
    "ExcludeLastUserFilter",
    "FilterContext",
    "MaxCharsFilter",
    "MaxTurnsFilter",
    "MessageFilter",
    "MessageFilterPipeline",
    "SkipBlankFilter",
    "SkipPrefixFilter",
    "SkipTypeFilter",
    "StripPrefixFilter",
    "agent_pipeline",
    "context_for",
    "drop_whole_groups",
    "extract_conversation_history",
    "keep_whole_groups",
    "tool_groups",
]

SUPERVISOR_SKIP_PREFIXES = ("[Supervisor", "[Conversation summary]")


@dataclass(frozen=True, slots=True)
class FilterContext:
    """What a pipeline run knows beyond the messages: the current query."""

    query: str | None = None


NO_CONTEXT = FilterContext()


@runtime_checkable
class MessageFilter(Protocol):
    """Turns a history into a filtered history; must never split a tool group."""

    def apply(
        self, messages: Sequence[Message], context: FilterContext = NO_CONTEXT
    ) -> list[Message]:
        """The filtered messages, in their original order."""
        ...


def tool_groups(messages: Sequence[Message]) -> list[int]:
    """A group number per message: messages linked by a tool-call id share one.

    A message without tool-call ids is a group of its own.
    """
    parent = list(range(len(messages)))

    def find(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    owner: dict[str, int] = {}
    for index, message in enumerate(messages):
        for call_id in message.tool_call_ids:
            if call_id in owner:
                parent[find(index)] = find(owner[call_id])
            else:
                owner[call_id] = index
    return [find(index) for index in range(len(messages))]


def drop_whole_groups(messages: Sequence[Message], drop: Iterable[int]) -> list[Message]:
    """Remove the messages at ``drop`` together with every message of their tool groups."""
    dropped = set(drop)
    if not dropped:
        return list(messages)
    groups = tool_groups(messages)
    dropped_groups = {groups[index] for index in dropped}
    return [m for i, m in enumerate(messages) if groups[i] not in dropped_groups]


def keep_whole_groups(messages: Sequence[Message], keep: Iterable[int]) -> list[Message]:
    """Keep the messages at ``keep`` together with every message of their tool groups."""
    groups = tool_groups(messages)
    kept_groups = {groups[index] for index in keep}
    return [m for i, m in enumerate(messages) if groups[i] in kept_groups]


@dataclass(frozen=True, slots=True)
class SkipPrefixFilter:
    """Drops messages whose content starts with one of ``prefixes`` (routing noise)."""

    prefixes: tuple[str, ...]

    def apply(
        self, messages: Sequence[Message], context: FilterContext = NO_CONTEXT
    ) -> list[Message]:
        """Drop matching messages and the rest of their tool groups."""
        prefixes = tuple(self.prefixes)
        if not prefixes:
            return list(messages)
        drop = [i for i, m in enumerate(messages) if m.content.lstrip().startswith(prefixes)]
        return drop_whole_groups(messages, drop)


@dataclass(frozen=True, slots=True)
class StripPrefixFilter:
    r"""Removes the first matching prefix (an agent label such as ``"[MyAgent]\n"``)."""

    prefixes: tuple[str, ...]

    def apply(
        self, messages: Sequence[Message], context: FilterContext = NO_CONTEXT
    ) -> list[Message]:
        """Every message, with a leading prefix removed where one matches."""
        return [self._strip(message) for message in messages]

    def _strip(self, message: Message) -> Message:
        for prefix in self.prefixes:
            if prefix and message.content.startswith(prefix):
                return message.with_content(message.content[len(prefix) :])
        return message


@dataclass(frozen=True, slots=True)
class SkipTypeFilter:
    """Drops messages of the given types (and roles); ``tool`` drops calls with results."""

    types: tuple[MessageType, ...] = (MessageType.TOOL,)
    roles: tuple[Role, ...] = ()

    def apply(
        self, messages: Sequence[Message], context: FilterContext = NO_CONTEXT
    ) -> list[Message]:
        """Drop matching messages and the rest of their tool groups."""
        return drop_whole_groups(messages, [i for i, m in enumerate(messages) if self._matches(m)])

    def _matches(self, message: Message) -> bool:
        if message.type in self.types or message.role in self.roles:
            return True
        return MessageType.TOOL in self.types and message.is_tool


@dataclass(frozen=True, slots=True)
class SkipBlankFilter:
    """Drops messages whose content is empty or only whitespace (tool calls stay)."""

    def apply(
        self, messages: Sequence[Message], context: FilterContext = NO_CONTEXT
    ) -> list[Message]:
        """Every message with visible content, or that belongs to a tool call."""
        return [m for m in messages if m.content.strip() or m.tool_call_ids]


@dataclass(frozen=True, slots=True)
class ExcludeLastUserFilter:
    """Removes the current query: the last user message, when no reply follows it yet.

    A user message already answered by an assistant message (with text or tool calls) is
    history, not the query, so ``[question, answer]`` is kept whole; a blank reply is no answer.
    """

    def apply(
        self, messages: Sequence[Message], context: FilterContext = NO_CONTEXT
    ) -> list[Message]:
        """Every message except the last user message when it is still unanswered."""
        for index in range(len(messages) - 1, -1, -1):
            message = messages[index]
            if message.role == Role.ASSISTANT and (
                message.content.strip() or message.tool_call_ids
            ):
                return list(messages)
            if message.role == Role.USER:
                return [*messages[:index], *messages[index + 1 :]]
        return list(messages)


@dataclass(frozen=True, slots=True)
class MaxTurnsFilter:
    """Keeps the last ``max_turns`` exchanges (a user message and the replies it got).

    A tool call whose results fall inside the kept exchanges is kept too.
    """

    max_turns: int

    def __post_init__(self) -> None:
        if self.max_turns < 0:
            raise ValueError(f"max_turns must be zero or positive, got {self.max_turns}")

    def apply(
        self, messages: Sequence[Message], context: FilterContext = NO_CONTEXT
    ) -> list[Message]:
        """The messages of the last ``max_turns`` exchanges, tool groups kept whole."""
        if self.max_turns == 0:
            return []
        episodes = group_episodes(messages)
        if len(episodes) <= self.max_turns:
            return list(messages)
        dropped = sum(len(episode.messages) for episode in episodes[: -self.max_turns])
        return keep_whole_groups(messages, range(dropped, len(messages)))


@dataclass(frozen=True, slots=True)
class MaxCharsFilter:
    """Truncates each message longer than ``max_chars`` with ``strategy``.

    ``llm`` and ``semantic`` ask ``shortener`` (``longtalk.engine.pipeline.shortener_for``
    builds one; ``semantic`` ranks sentences against the run's query) and use ``middle``
    without one.
    """

    max_chars: int
    strategy: TruncationStrategy = TruncationStrategy.HARD
    shortener: Shortener | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.max_chars < 0:
            raise ValueError(f"max_chars must be zero or positive, got {self.max_chars}")
        object.__setattr__(self, "strategy", TruncationStrategy(self.strategy))

    def apply(
        self, messages: Sequence[Message], context: FilterContext = NO_CONTEXT
    ) -> list[Message]:
        """Every message, long contents truncated."""
        return [self._truncate(message, context) for message in messages]

    def _truncate(self, message: Message, context: FilterContext) -> Message:
        if len(message.content) <= self.max_chars:
            return message
        content = shorten_content(
            message.content,
            self.max_chars,
            self.strategy,
            query=context.query,
            shortener=self.shortener,
        )
        return message.with_content(content)


@dataclass(frozen=True, slots=True)
class MessageFilterPipeline:
    """Filters applied in order; itself a filter, so pipelines nest."""

    filters: tuple[MessageFilter, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "filters", tuple(self.filters))

    def apply(
        self, messages: Sequence[Message], context: FilterContext | None = None
    ) -> list[Message]:
        """Run every filter; ``context`` defaults to the last user message as query."""
        context = context or context_for(messages)
        result = list(messages)
        for message_filter in self.filters:
            result = message_filter.apply(result, context)
        return result

    def __call__(self, messages: Sequence[Message]) -> list[Message]:
        """Shorthand for :meth:`apply`."""
        return self.apply(messages)

    def then(self, *filters: MessageFilter) -> MessageFilterPipeline:
        """A new pipeline with ``filters`` appended."""
        return MessageFilterPipeline((*self.filters, *filters))


def context_for(messages: Sequence[Message], query: str | None = None) -> FilterContext:
    """The run context: ``query`` or else the content of the last user message."""
    if query is None:
        query = next((m.content for m in reversed(messages) if m.role == Role.USER), None)
    return FilterContext(query=query)


SUPERVISOR_PIPELINE = MessageFilterPipeline(
    (
        ExcludeLastUserFilter(),
        SkipPrefixFilter(SUPERVISOR_SKIP_PREFIXES),
        SkipTypeFilter((MessageType.TOOL,)),
    )
)
"""The supervisor's view: no routing noise, no old summaries, no tool chatter, no query."""


def agent_pipeline(
    prefixes: Sequence[str],
    max_chars: int | None = None,
    max_turns: int | None = None,
    *,
    strategy: TruncationStrategy | str = TruncationStrategy.HARD,
    skip_prefixes: Sequence[str] = SUPERVISOR_SKIP_PREFIXES,
    skip_tools: bool = False,
    exclude_last_user: bool = True,
    shortener: Shortener | None = None,
    skip_blank: bool = True,
) -> MessageFilterPipeline:
    """An agent's view: skip blanks and routing noise, strip ``prefixes``, cap, truncate.

    Tool calls stay (whole) unless ``skip_tools``. ``None`` limits mean no limit.
    """
    filters: list[MessageFilter] = []
    if skip_blank:
        filters.append(SkipBlankFilter())
    if exclude_last_user:
        filters.append(ExcludeLastUserFilter())
    if skip_prefixes:
        filters.append(SkipPrefixFilter(tuple(skip_prefixes)))
    if skip_tools:
        filters.append(SkipTypeFilter((MessageType.TOOL,)))
    if prefixes:
        filters.append(StripPrefixFilter(tuple(prefixes)))
    if max_turns is not None:
        filters.append(MaxTurnsFilter(max_turns))
    if max_chars is not None:
        strategy = TruncationStrategy(strategy)
        filters.append(MaxCharsFilter(max_chars, strategy, shortener=shortener))
    return MessageFilterPipeline(tuple(filters))


def extract_conversation_history(
    messages: Sequence[Message],
    pipeline: MessageFilterPipeline | None = None,
    *,
    skip_prefixes: Sequence[str] = SUPERVISOR_SKIP_PREFIXES,
    strip_prefixes: Sequence[str] = (),
    max_chars: int | None = None,
    max_turns: int | None = None,
    truncation_strategy: TruncationStrategy | str = TruncationStrategy.HARD,
    exclude_last_user: bool = True,
    query: str | None = None,
) -> list[Message]:
    """The filtered history: through ``pipeline`` or, when None, the legacy parameters.

    The legacy parameters build ``agent_pipeline(strip_prefixes, max_chars, max_turns)``
    skipping ``skip_prefixes``; they are ignored when a pipeline is given.
    """
    if pipeline is None:
        pipeline = agent_pipeline(
            strip_prefixes,
            max_chars,
            max_turns,
            strategy=truncation_strategy,
            skip_prefixes=skip_prefixes,
            exclude_last_user=exclude_last_user,
        )
    return pipeline.apply(messages, context_for(messages, query))
