"""The spine's contract: no cliff where none is needed, titles, backoff, cost, facts, budgets."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from longtalk.config import MemoryConfig
from longtalk.core.filters import NO_CONTEXT, FilterContext, MessageFilterPipeline
from longtalk.core.messages import Message, assistant, user
from longtalk.core.tokens import HeuristicTokenCounter
from longtalk.engine import MIN_BUDGET_TOKENS, MemoryEngine
from longtalk.errors import LLMTransientError, UsageError
from longtalk.memory import AsyncMemory
from longtalk.storage.in_memory import InMemoryStorage
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.testing import ScriptedLLM

COUNTER = HeuristicTokenCounter()


def exchange(i: int) -> list[Message]:
    return [
        user(f"Day {i}: what should we see in Lisbon after lunch? " + "x" * 40),
        assistant(f"On day {i}, walk from Alfama down to the river. " + "y" * 40),
    ]


def engine(llm: ScriptedLLM | None = None, **settings: object) -> MemoryEngine:
    config = MemoryConfig(
        **{  # type: ignore[arg-type]
            "strategy": "running_summary",
            "summary_recent_turns": 2,
            "summary_trigger_tokens": 60,
            "structured_output": False,
            **settings,
        }
    )
    writer = LLMSummaryWriter(llm or ScriptedLLM(default="They plan Lisbon, day by day."))
    return MemoryEngine(InMemoryStorage(), config=config, writer=writer, counter=COUNTER)


async def grow(memory: MemoryEngine, chat_id: str, turns: int) -> None:
    for i in range(turns):
        await memory.append(chat_id, exchange(i))
        await memory.summarize(chat_id)


async def test_a_chat_that_fits_the_budget_is_the_chat_verbatim() -> None:
    memory = engine()
    await memory.create_chat("c")
    await grow(memory, "c", 8)
    assert await memory.storage.list_summaries("c")  # summarized, yet it all fits
    whole = await memory.get_context("c", "day 0?", budget_tokens=2000)
    assert [part.kind for part in whole.parts] == ["verbatim"]
    assert len(whole.verbatim) == 16 and whole.verbatim[0].content.startswith("Day 0:")
    layered = await memory.get_context("c", "day 0?", budget_tokens=300)
    assert "summary" in [part.kind for part in layered.parts]
    assert layered.tokens_used <= 300


async def test_a_chat_whose_length_misleads_is_read_as_layers_all_the_same() -> None:
    memory = engine()
    await memory.create_chat("c")
    await grow(memory, "c", 8)
    layered = await memory.get_context("c", "day 0?", budget_tokens=300)
    # its length says it may fit: it is loaded whole and filtered, found over, read as layers
    misled = MemoryEngine(
        memory.storage,
        config=memory.config.model_copy(update={"chars_per_token": 1000.0}),
        counter=COUNTER,
    )
    runs: list[int] = []
    misled.reader.pipeline = MessageFilterPipeline((*misled.reader.pipeline.filters, Seen(runs)))
    again = await misled.get_context("c", "day 0?", budget_tokens=300)
    assert len(runs) == 2 and runs[0] == 16 > runs[1]  # the whole chat, then the window
    assert "summary" in [part.kind for part in again.parts]
    assert again.text == layered.text and again.parts == layered.parts


@dataclass
class Seen:
    """A filter that keeps every message and notes how many each run saw."""

    runs: list[int]

    def apply(
        self, messages: Sequence[Message], context: FilterContext = NO_CONTEXT
    ) -> list[Message]:
        self.runs.append(len(messages))
        return list(messages)


async def test_without_a_query_older_messages_fill_verbatim_before_the_summary_alone() -> None:
    memory = engine()
    await memory.create_chat("c")
    await grow(memory, "c", 20)
    chat = await memory.storage.get_chat("c")
    assert chat is not None and chat.last_summarized_sequence > 10
    context = await memory.get_context("c", budget_tokens=600)
    shown = context.part("verbatim")
    assert shown is not None and context.part("summary") is not None
    older = [seq for seq in shown.sequences if seq <= chat.last_summarized_sequence]
    assert older and older == list(range(older[0], older[-1] + 1))  # the newest of them
    assert context.tokens_used <= 600
    with_query = await memory.get_context("c", "Alfama?", budget_tokens=600)
    shown = with_query.part("verbatim")
    assert shown is not None
    assert not [seq for seq in shown.sequences if seq <= chat.last_summarized_sequence]


async def test_a_title_the_user_set_is_never_regenerated() -> None:
    memory = engine()
    await memory.create_chat("mine", title="House renovation")
    await memory.create_chat("generated")
    for chat_id in ("mine", "generated"):
        await grow(memory, chat_id, 6)
    mine = await memory.storage.get_chat("mine")
    generated = await memory.storage.get_chat("generated")
    assert mine is not None and mine.title == "House renovation"
    assert mine.title_source == "user"
    assert generated is not None and generated.title and generated.title_source == "generated"


async def test_a_failing_model_backs_off_and_is_not_called_on_every_append() -> None:
    llm = ScriptedLLM(default="They plan Lisbon.")
    memory = engine(llm)
    await memory.create_chat("c")
    await grow(memory, "c", 4)
    calls = len(llm.calls)
    llm.default = LLMTransientError("the model is down")
    await grow(memory, "c", 10)
    assert len(llm.calls) == calls + 1  # one failed try, then the chat backs off
    chat = await memory.storage.get_chat("c")
    assert chat is not None
    stats = chat.stats
    assert stats.failures == 1 and stats.by_kind == {"unavailable": 1}
    assert stats.retry_at is not None and stats.retry_at > datetime.now(UTC)
    assert "model is down" in (stats.last_error or "")
    memory.job.clock = lambda: datetime.now(UTC) + timedelta(hours=1)  # the backoff ran out
    llm.default = "They plan Lisbon and Porto."
    outcome = await memory.summarize("c")
    assert outcome.changed and outcome.chat is not None
    assert outcome.chat.stats.failures == 0 and outcome.chat.stats.retry_at is None
    assert outcome.chat.stats.by_kind == {"unavailable": 1}  # the history of failures stays


async def test_failing_again_waits_for_the_chat_to_grow_by_what_the_failed_call_read() -> None:
    llm = ScriptedLLM(default='{"narrative": "They plan Lisbon and')  # broken JSON, read
    memory = engine(llm, structured_output=True)
    clock = Clock()
    memory.job.clock = clock
    await memory.create_chat("c")
    await grow(memory, "c", 4)
    first = await memory.storage.get_chat("c")
    assert first is not None and first.stats.failures == 1
    assert first.stats.by_kind == {"broken_json": 1}
    assert first.stats.retry_volume == 0  # one failure: retried on time alone
    clock.later(hours=1)
    await memory.summarize("c")
    second = await memory.storage.get_chat("c")
    assert second is not None and second.stats.failures == 2
    assert second.stats.retry_volume > second.content_chars  # the chat must grow first
    clock.later(hours=1)
    calls = len(llm.calls)
    assert (await memory.summarize("c")).skipped == "backing off"  # time passed, no growth
    while (await memory.storage.get_chat("c")).content_chars < second.stats.retry_volume:  # type: ignore[union-attr]
        await memory.append("c", exchange(99))
    assert len(llm.calls) == calls
    clock.later(hours=1)
    assert (await memory.summarize("c")).failed  # grown and due: tried again
    assert len(llm.calls) == calls + 1


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def later(self, **delta: float) -> None:
        self.now += timedelta(**delta)


async def test_summary_calls_and_tokens_add_up_on_the_chat() -> None:
    llm = ScriptedLLM(default="They plan Lisbon.")
    memory = engine(llm)
    await memory.create_chat("c")
    await grow(memory, "c", 6)
    chat = await memory.storage.get_chat("c")
    assert chat is not None
    summary_calls = [call for call in llm.calls if "title" not in call.text.lower()]
    assert chat.stats.calls == len(summary_calls) > 0
    assert chat.stats.input_tokens > 0 and chat.stats.output_tokens > 0


async def test_a_budget_below_the_minimum_is_refused_by_name() -> None:
    memory = engine()
    await memory.create_chat("c")
    await memory.append("c", exchange(0))
    for budget in (0, 10, MIN_BUDGET_TOKENS - 1):
        with pytest.raises(UsageError, match=f"at least {MIN_BUDGET_TOKENS}"):
            await memory.get_context("c", budget_tokens=budget)
    assert (await memory.get_context("c", budget_tokens=MIN_BUDGET_TOKENS)).budget_tokens == 32


async def test_a_fact_said_once_leads_every_context_from_the_append_on() -> None:
    async with AsyncMemory("memory:", summarize="off") as memory:
        chat = await memory.chat("c", user="ana")
        await chat.append("user", "I'm allergic to shellfish, by the way.")
        for i in range(30):
            await chat.extend([{"role": m.role.value, "content": m.content} for m in exchange(i)])
        context = await chat.context("What should I cook tonight?", budget_tokens=400)
    facts = context.part("facts")
    assert facts is not None and "allergic to shellfish" in facts.text
    assert facts.sequences == (1,) and context.parts[0] is facts
    assert context.tokens_used <= 400


async def test_without_a_query_the_summary_may_pass_its_digest_size_up_to_its_own_cap() -> None:
    long_story = " ".join(f"On day {i} they walked from Alfama to the river." for i in range(12))
    memory = engine(ScriptedLLM(default=long_story), summary_max_tokens=60)
    await memory.create_chat("c")
    await grow(memory, "c", 20)
    unasked = await memory.get_context("c", budget_tokens=400, recent_turns=0)
    summary = unasked.part("summary")
    assert summary is not None and 60 < summary.tokens <= 120  # twice summary_max_tokens
    asked = await memory.get_context("c", "Alfama?", budget_tokens=400, recent_turns=0)
    assert asked.part("summary") is None or asked.part("summary").tokens <= 60  # type: ignore[union-attr]
    capped = engine(ScriptedLLM(default=long_story), summary_no_query_max_tokens=60)
    await capped.create_chat("c")
    await grow(capped, "c", 20)
    shown = (await capped.get_context("c", budget_tokens=400, recent_turns=0)).part("summary")
    assert shown is not None and shown.tokens <= 60
