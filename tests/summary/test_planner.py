import pytest

from longtalk.config import MemoryConfig
from longtalk.core.messages import Message, assistant, user
from longtalk.core.tokens import HeuristicTokenCounter
from longtalk.errors import LLMOutputError, LLMTransientError
from longtalk.summary.llm_writer import LLMSummaryWriter
from longtalk.summary.model import ConversationSummary
from longtalk.summary.planner import SummaryPlanner, trigger_policy
from longtalk.testing import ScriptedLLM

COUNTER = HeuristicTokenCounter()


def conversation(n: int, size: int = 80) -> list[tuple[int, Message]]:
    messages: list[Message] = []
    for i in range(n):
        messages += [user(f"question {i} " + "q" * size), assistant(f"answer {i} " + "a" * size)]
    return list(enumerate(messages, start=1))


def planner(llm: ScriptedLLM, **settings: object) -> SummaryPlanner:
    config = MemoryConfig(strategy="running_summary", **settings)  # type: ignore[arg-type]
    return SummaryPlanner(config, LLMSummaryWriter(llm), COUNTER)


async def test_nothing_happens_below_the_trigger() -> None:
    llm = ScriptedLLM()
    plan = await planner(llm, summary_recent_turns=2, summary_trigger_tokens=10_000).plan(
        [], conversation(6), chat_id="c", last_summarized=0
    )
    assert not plan.changed and plan.last_summarized is None and llm.calls == []
    assert "<=" in plan.decision.reason


async def test_first_summary_reads_only_messages_older_than_the_window() -> None:
    llm = ScriptedLLM(default="first summary")
    plan = await planner(
        llm, summary_recent_turns=2, summary_trigger_tokens=50, structured_output=False
    ).plan([], conversation(5), chat_id="c", last_summarized=0)
    assert plan.last_summarized == 6
    (row,) = plan.rows
    assert (row.summary_text, row.format, row.episode_range) == ("first summary", "text", "1-3")
    prompt = llm.calls[0].request.messages[-1].content
    assert "question 2" in prompt and "question 3" not in prompt


async def test_extension_sends_existing_summary_plus_only_new_messages() -> None:
    llm = ScriptedLLM(default="s1")
    p = planner(llm, summary_recent_turns=2, summary_trigger_tokens=50, structured_output=False)
    first = await p.plan([], conversation(5), chat_id="c", last_summarized=0)
    llm.default = "s2"
    second = await p.plan(list(first.chain), conversation(8), chat_id="c", last_summarized=6)
    prompt = llm.calls[-1].request.messages[-1].content
    assert "s1" in prompt
    assert "question 3" in prompt and "question 5" in prompt
    assert "question 2" not in prompt and "question 6" not in prompt
    (row,) = second.rows
    assert row.summary_text == "s2" and row.episode_range == "1-6"
    assert second.last_summarized == 12


async def test_chain_rolls_over_to_a_fresh_row_when_the_latest_is_too_long() -> None:
    llm = ScriptedLLM(default="x" * 400)  # 100 tokens > summary_row_max_tokens 50
    p = planner(
        llm,
        summary_recent_turns=1,
        summary_trigger_tokens=50,
        summary_row_max_tokens=50,
        structured_output=False,
    )
    first = await p.plan([], conversation(3), chat_id="c", last_summarized=0)
    second = await p.plan(list(first.chain), conversation(5), chat_id="c", last_summarized=4)
    assert [r.episode_range for r in second.chain] == ["1-2", "3-4"]
    fresh_prompt = llm.calls[-1].request.messages[-1].content
    assert "x" * 400 not in fresh_prompt  # a fresh row does not read the old one


async def test_input_is_capped_and_the_overflow_is_carried_not_skipped() -> None:
    llm = ScriptedLLM(default="s")
    p = planner(
        llm,
        summary_recent_turns=1,
        summary_trigger_tokens=10,
        summary_input_max_chars=400,
        max_extensions_per_run=2,
        structured_output=False,
    )
    plan = await p.plan([], conversation(10), chat_id="c", last_summarized=0)
    assert plan.extensions == 2
    assert plan.last_summarized == max(s for s, _ in plan.folded) < 18
    chain, done = list(plan.chain), plan.last_summarized
    while True:  # later runs start exactly where the previous one stopped
        nxt = await p.plan(chain, conversation(10), chat_id="c", last_summarized=done)
        if not nxt.changed:
            break
        assert min(s for s, _ in nxt.folded) == done + 1
        chain, done = list(nxt.chain), nxt.last_summarized
    assert done == 18
    inputs = "\n".join(c.request.messages[-1].content for c in llm.calls)
    for i in range(9):
        assert inputs.count(f"question {i} ") == 1


async def test_writer_failure_keeps_completed_extensions_and_stores_no_error_text() -> None:
    llm = ScriptedLLM().enqueue("good", LLMTransientError("boom"))
    p = planner(
        llm,
        summary_recent_turns=1,
        summary_trigger_tokens=50,
        summary_input_max_chars=400,
        structured_output=False,
    )
    plan = await p.plan([], conversation(10), chat_id="c", last_summarized=0)
    assert isinstance(plan.error, LLMTransientError)
    assert [r.summary_text for r in plan.rows] == ["good"]
    assert plan.extensions == 1


@pytest.mark.parametrize("reply", ["", "   <|im_end|>  ", "<think>only thoughts</think>"])
async def test_empty_or_token_only_answers_are_failures(reply: str) -> None:
    llm = ScriptedLLM().enqueue(reply)
    p = planner(llm, summary_recent_turns=1, summary_trigger_tokens=50)
    plan = await p.plan([], conversation(4), chat_id="c", last_summarized=0)
    assert isinstance(plan.error, LLMOutputError) and plan.rows == ()


async def test_structured_extension_merges_entities_the_model_forgot() -> None:
    llm = ScriptedLLM().enqueue(
        '{"entities": [{"name": "Ann", "type": "person", "details": "user"}], "narrative": "one"}',
        '{"entities": [{"name": "ann", "type": "person", "details": "likes tea"},'
        ' {"name": "Oslo", "type": "place", "details": ""}], "narrative": "two"}',
    )
    p = planner(llm, summary_recent_turns=1, summary_trigger_tokens=50)
    first = await p.plan([], conversation(3), chat_id="c", last_summarized=0)
    second = await p.plan(list(first.chain), conversation(5), chat_id="c", last_summarized=4)
    summary = ConversationSummary.parse(second.rows[-1].summary_text)
    assert [(e.name, e.details) for e in summary.entities] == [
        ("Ann", "user; likes tea"),
        ("Oslo", ""),
    ]
    assert summary.narrative == "two" and summary.covered_turns == 4
    request = llm.calls[0].request
    assert request.json_schema is not None and "JSON" in request.messages[0].content


def test_trigger_policies_follow_the_seeds() -> None:
    few = [user("x" * 40) for _ in range(20)]
    orbiter = trigger_policy(MemoryConfig(summary_trigger="count_or_tokens"))
    assert not orbiter.evaluate(few, counter=COUNTER).triggered
    assert orbiter.evaluate([*few, user("y")], counter=COUNTER).triggered
    episode_service = trigger_policy(MemoryConfig(summary_trigger="tokens_and_episodes"))
    four = [user("x" * 400) for _ in range(4)]
    assert not episode_service.evaluate(four, new_episodes=4, counter=COUNTER).triggered
    assert episode_service.evaluate([*four, user("z")], new_episodes=5, counter=COUNTER).triggered
