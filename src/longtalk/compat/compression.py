"""``compress_conversation_history()``: Orchid's running summary as a function of messages.

Pass the whole message list and the previous result; only the messages that left the
verbatim window since then are sent to the writer, never the whole history again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from longtalk.config import MemoryConfig
from longtalk.core.history import split_history
from longtalk.core.messages import Message, Role
from longtalk.core.tokens import TokenCounter, TokenUsage, resolve_counter
from longtalk.errors import LLMError
from longtalk.storage.base import SummaryRow
from longtalk.summary.chain import render_chain, row_summary
from longtalk.summary.model import ConversationSummary
from longtalk.summary.planner import SummaryPlanner
from longtalk.summary.writer import SummaryWriter

SUMMARY_PREFIX = "[Conversation summary]"


@dataclass(frozen=True, slots=True)
class CompressionResult:
    """The compressed history: summary chain, verbatim messages, bookkeeping.

    Feed it back as ``previous`` on the next call. ``error`` is set when the writer failed:
    the last good summary and the recent window are returned (the messages the writer could
    not fold are retried by the next call, which sees them again in ``messages``).
    """

    summary_rows: tuple[SummaryRow, ...] = ()
    verbatim: tuple[Message, ...] = ()
    summarized_count: int = 0
    usage: TokenUsage = field(default_factory=TokenUsage)
    error: LLMError | None = None

    @property
    def summary(self) -> ConversationSummary | None:
        """The latest row's summary, if any."""
        return row_summary(self.summary_rows[-1]) if self.summary_rows else None

    @property
    def summary_text(self) -> str:
        """The whole chain rendered for a prompt ('' when there is none)."""
        return render_chain(self.summary_rows)

    def to_messages(self) -> list[Message]:
        """A system message with the summary (when there is one), then the verbatim ones."""
        head = (
            [Message(role=Role.SYSTEM, content=f"{SUMMARY_PREFIX}\n{self.summary_text}")]
            if self.summary_rows
            else []
        )
        return [*head, *self.verbatim]


async def compress_conversation_history(
    messages: Sequence[Message],
    *,
    writer: SummaryWriter,
    previous: CompressionResult | None = None,
    config: MemoryConfig | None = None,
    counter: TokenCounter | None = None,
    force: bool = False,
) -> CompressionResult:
    """Extend the running summary with the messages that left the window since ``previous``.

    ``messages`` is the whole conversation so far, oldest first; messages already
    summarized are not read again.
    """
    config = config or MemoryConfig(strategy="running_summary")
    counter = counter or resolve_counter(
        config.token_counter, chars_per_token=config.chars_per_token
    )
    previous = previous or CompressionResult()
    if previous.summarized_count > len(messages):
        raise ValueError(
            f"previous result covers {previous.summarized_count} messages but only "
            f"{len(messages)} were given; pass the whole conversation"
        )
    numbered = [(index, message) for index, message in enumerate(messages, start=1)]
    planner = SummaryPlanner(config, writer, counter)
    plan = await planner.plan(
        previous.summary_rows,
        numbered,
        chat_id="",
        last_summarized=previous.summarized_count,
        force=force,
    )
    rows = plan.chain or tuple(previous.summary_rows)
    done = plan.last_summarized if plan.last_summarized is not None else previous.summarized_count
    if plan.error is None:
        verbatim = tuple(message for index, message in numbered if index > done)
    else:  # the writer failed: the recent window only, so the result stays bounded
        split = split_history(
            numbered, last_summarized=done, recent_turns=config.summary_recent_turns
        )
        verbatim = tuple(message for _, message in split.recent)
    return CompressionResult(rows, verbatim, done, plan.usage, plan.error)
