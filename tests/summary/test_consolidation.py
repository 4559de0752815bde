"""Consolidation: the shown summary stays under its cap and nothing important is lost."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import datetime, timedelta

from longtalk.config import MemoryConfig
from longtalk.core.messages import Message, assistant, user
from longtalk.core.tokens import HeuristicTokenCounter
from longtalk.engine import MemoryEngine
from longtalk.llm.base import LLMRequest
from longtalk.storage.base import SummaryRow
from longtalk.storage.in_memory import InMemoryStorage
from longtalk.summary.chain import ShownSummaries, shown_summary
from longtalk.summary.consolidate import merged, restore_lost, story
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.summary.model import ConversationSummary, SummaryEntity
from longtalk.testing import FunctionLLM

COUNTER = HeuristicTokenCounter()
START = datetime(2023, 5, 8, 13, 0)


def exchange(index: int) -> list[Message]:
    when = START + timedelta(days=index)
    return [
        user(f"I met Person{index} in Town{index} and I love hobby{index}.", timestamp=when),
        assistant(f"Will you see Person{index} again? Decided: plan{index}.", timestamp=when),
    ]


def forgetful_model(request: LLMRequest) -> str:
    """A model that answers the JSON schema but remembers only the newest batch.

    Extensions report the people, places and preferences of the new messages;
    consolidations keep only a narrative, dropping every entity and list: the check
    after consolidation has to put them back.
    """
    prompt = request.messages[-1].content
    if prompt.startswith("Merge these summaries"):
        return json.dumps({"narrative": "Many meetings happened."})
    tail = prompt.split("New messages:")[-1] if "New messages:" in prompt else prompt
    numbers = sorted(set(re.findall(r"Person(\d+)", tail)), key=int)
    return json.dumps(
        {
            "entities": [
                {"name": f"Person{n}", "type": "person", "details": f"met in Town{n}"}
                for n in numbers
            ],
            "user_preferences": [f"loves hobby{n}" for n in numbers],
            "decisions": [f"plan{n}" for n in numbers],
            "open_questions": [f"see Person{n} again?" for n in numbers],
            "narrative": " ".join(f"The user met Person{n}." for n in numbers),
        }
    )


async def run_chat(exchanges: int, config: MemoryConfig) -> tuple[MemoryEngine, FunctionLLM]:
    llm = FunctionLLM(forgetful_model)
    storage = InMemoryStorage()
    await storage.setup()
    engine = MemoryEngine(storage, config=config, writer=LLMSummaryWriter(llm), counter=COUNTER)
    await engine.create_chat("c")
    for index in range(exchanges):
        await engine.append("c", exchange(index))
        await engine.summarize("c")
    return engine, llm


FOLDING = MemoryConfig(
    strategy="running_summary",
    summary_recent_turns=1,
    summary_trigger_tokens=40,
    summary_row_max_tokens=50,
    summary_max_tokens=120,
    summary_consolidate_tokens=60,
)


async def test_fifty_consolidations_keep_every_entity_preference_and_decision() -> None:
    config = FOLDING.model_copy(update={"summary_consolidation": "model"})
    engine, llm = await run_chat(150, config)
    merges = [c for c in llm.calls if c.text.startswith("Merge") or "Merge these" in c.text]
    assert len(merges) >= 50
    stored = await engine.storage.list_summaries("c")
    state = await engine.storage.load_state("c")
    digests = [row for row in state.summaries if row.kind == "digest"]
    assert len(digests) == 1 and state.summaries[0] is digests[0]
    assert len(state.summaries) <= 4  # the digest and the rows since (under the threshold)
    digest = ConversationSummary.parse(digests[0].summary_text)
    folded = digests[0].episode_last
    names = {entity.name for entity in digest.entities}
    assert {f"Person{n}" for n in range(folded)} <= names  # episodes 1..n are Person0..n-1
    assert {f"loves hobby{n}" for n in range(folded)} <= set(digest.user_preferences)
    assert {f"plan{n}" for n in range(folded)} <= set(digest.decisions)
    archived = [row for row in stored if row.kind == "archived"]
    assert archived and all(row.episode_first >= 1 for row in archived)  # kept, with ranges
    assert digest.period.startswith("8 May 2023")  # the dates it covers


async def test_the_shown_summary_never_exceeds_its_cap_as_the_chat_grows() -> None:
    config = MemoryConfig(
        strategy="running_summary",
        summary_recent_turns=2,
        summary_trigger_tokens=60,
        summary_row_max_tokens=60,
        summary_max_tokens=150,
    )
    engine, _ = await run_chat(80, config)
    for budget in (400, 1000):
        context = await engine.get_context("c", budget_tokens=budget)
        part = context.part("summary")
        assert part is not None and context.window_intact
        assert part.tokens <= config.no_query_summary_cap == 300  # no query: twice the digest
        assert COUNTER.count(context.render()) <= budget
    assert "Person79" in (await engine.get_context("c")).render()  # the window
    override = await engine.get_context(
        "c", budget_tokens=1000, summary_max_tokens=60, recent_turns=0
    )
    part = override.part("summary")
    assert part is not None and part.tokens <= 60
    # no window: the unsummarized messages are still shown (as pending), none is lost
    chat = await engine.storage.get_chat("c")
    assert chat is not None
    unsummarized = set(range(chat.last_summarized_sequence + 1, chat.message_count + 1))
    shown = override.part("verbatim")
    assert shown is not None and unsummarized <= set(shown.sequences)


def test_a_cut_summary_loses_the_oldest_detail_and_reports_exactly_the_rows_shown() -> None:
    old = ConversationSummary(
        narrative="Ancient history of the chat. " * 10,
        decisions=tuple(f"old decision {i}" for i in range(20)),
    )
    new = ConversationSummary(narrative="The newest thing happened.", decisions=("new decision",))
    rows = [
        SummaryRow("c", old.to_json(), format="json", episode_first=1, episode_last=9),
        SummaryRow("c", new.to_json(), format="json", episode_first=10, episode_last=12),
    ]
    shown = shown_summary(rows, max_tokens=40, counter=COUNTER)
    assert COUNTER.count(shown.text) <= 40 and shown.truncated
    assert "The newest thing happened." in shown.text and "new decision" in shown.text
    assert shown.text.count("Ancient history") <= 1  # the old row's oldest sentences went
    assert "old decision 0" not in shown.text and "old decision 10" not in shown.text
    has_old = any(f"old decision {i}" in shown.text for i in range(20))
    assert [r.episode_first for r in shown.rows] == ([1, 10] if has_old else [10])


def test_shown_summaries_cut_a_chain_once_per_content_and_cap() -> None:
    calls: list[str] = []

    class Counting(HeuristicTokenCounter):
        def count(self, text: str) -> int:
            calls.append(text)
            return super().count(text)

    old = ConversationSummary(narrative="Ancient history. " * 30, decisions=("old plan",))
    rows = [
        SummaryRow("c", old.to_json(), format="json", episode_first=1, episode_last=9, id=1),
        SummaryRow("c", "The newest thing.", episode_first=10, episode_last=12, id=2),
    ]
    shown = ShownSummaries(Counting(), size=2)
    first = shown(rows, max_tokens=30)
    assert first == shown_summary(rows, max_tokens=30, counter=COUNTER) and first.truncated
    counted = len(calls)
    assert shown(list(rows), max_tokens=30) is first and len(calls) == counted  # no new work
    assert shown(rows, max_tokens=500).text != first.text  # another cap: another answer
    edited = [rows[0], replace(rows[1], summary_text="Something else.", version=2)]
    assert "Something else." in shown(edited, max_tokens=30).text  # new content: new key
    assert len(shown._memo) == 2  # bounded: the least recently used went
    assert shown(rows, max_tokens=30) is not first  # ...and is cut again when asked


def test_restore_puts_back_what_a_digest_lost() -> None:
    inputs = [
        ConversationSummary(
            entities=(SummaryEntity(name="Maya", type="person"),),
            user_preferences=("allergic to peanuts",),
            open_questions=("which hotel?",),
        ),
        ConversationSummary(decisions=("book the train",)),
    ]
    digest, restored = restore_lost(ConversationSummary(narrative="short"), inputs)
    assert restored == 4
    assert [e.name for e in digest.entities] == ["Maya"]
    assert digest.user_preferences == ("allergic to peanuts",)
    assert digest.decisions == ("book the train",) and digest.open_questions == ("which hotel?",)


def test_a_large_digest_does_not_make_every_new_row_a_consolidation() -> None:
    from longtalk.summary.consolidate import due

    def row(tokens: int, kind: str = "row") -> SummaryRow:
        return SummaryRow("c", "x", token_count=tokens, kind=kind)  # type: ignore[arg-type]

    # the newest rows that fill the cap (40) stay; the digest does not count
    assert not due([row(900, "digest"), row(60), row(70)], 40, 100)  # to fold: 60
    assert due([row(900, "digest"), row(60), row(50), row(70)], 40, 100)  # 110 > 100
    assert not due([row(500)], 40, 100)  # nothing older to fold
    assert not due([row(60), row(30), row(20)], 40, 100)  # keeps 30 + 20, folds 60
    assert due([row(60), row(50), row(30), row(20)], 40, 100)  # folds 60 + 50


async def test_by_default_the_digest_is_merged_without_a_model_call() -> None:
    """The model reads each message once; folding its own rows into the digest costs nothing."""
    engine, llm = await run_chat(150, FOLDING)
    assert not [c for c in llm.calls if "Merge these" in c.text]
    prompts = sum(c.text.count("The user met Person") for c in llm.calls)
    assert prompts <= 150  # no row is read back by the model: each extension sees its own row
    state = await engine.storage.load_state("c")
    digests = [row for row in state.summaries if row.kind == "digest"]
    assert len(digests) == 1 and len(state.summaries) <= 4
    digest = ConversationSummary.parse(digests[0].summary_text)
    folded = digests[0].episode_last
    assert {f"Person{n}" for n in range(folded)} <= {e.name for e in digest.entities}
    assert {f"loves hobby{n}" for n in range(folded)} <= set(digest.user_preferences)
    assert digest.narrative.startswith("The user met Person0.")  # how it began
    assert f"Person{folded - 1}." in digest.narrative  # and what happened last
    chat = await engine.storage.get_chat("c")
    assert chat is not None and chat.stats.calls == len(llm.calls)  # merges are no calls


def test_a_merged_story_keeps_its_opening_and_its_newest_sentences() -> None:
    from longtalk.summary.consolidate import story

    text = " ".join(f"Sentence number {n} tells what happened on day {n}." for n in range(30))
    kept = story(text, 60, COUNTER)
    assert kept.startswith("Sentence number 0 tells")
    assert kept.endswith("Sentence number 29 tells what happened on day 29.")
    assert "day 15." not in kept and COUNTER.count(kept) <= 60
    assert story("One short story.", 60, COUNTER) == "One short story."
    long_opening = "An opening that runs on " + "and on " * 40 + "forever. Then a short end."
    assert story(long_opening, 60, COUNTER) == "Then a short end."


def test_a_long_sentence_cut_leaves_room_for_a_shorter_one_cut_before_it() -> None:
    story = (
        "Ana booked Lisbon. "
        + "Then the group argued at great length about "
        + "every single hotel and hostel in the whole old town " * 4
        + "before agreeing."
    )
    rows = [
        SummaryRow("c", ConversationSummary(narrative=text).model_dump_json(), format="json")
        for text in (story, "Tom paid.")
    ]
    shown = shown_summary(rows, max_tokens=30, counter=COUNTER)
    assert "Ana booked Lisbon." in shown.text and "argued" not in shown.text
    assert "Tom paid." in shown.text and COUNTER.count(shown.text) <= 30


def test_a_merged_told_story_keeps_whole_quotes_one_a_line() -> None:
    told = [
        ConversationSummary(
            narrative="\n".join(
                f'John ({day} May 2023): "I ran {row * 10 + day} km. It rained on me!"'
                for day in range(1, 11)
            )
        )
        for row in range(4)
    ]
    joined = merged(told).narrative
    assert joined.count("\n") == 39  # the rows' lines, not their sentences run together
    kept = story(joined, 120, COUNTER).splitlines()
    assert 2 < len(kept) < 40 and all(line in joined.splitlines() for line in kept)
    assert kept[0] == joined.splitlines()[0] and kept[-1] == joined.splitlines()[-1]
