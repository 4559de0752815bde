"""Replies checked before storing: what is a summary, a digest or a title, and what is not."""

from __future__ import annotations

import json

import pytest

from longtalk.core.cleaning import clean_output
from longtalk.errors import LLMError, LLMOutputError, LLMPermanentError, LLMTransientError
from longtalk.llm.base import LLMResponse
from longtalk.llm.retry import UnusableReplyError
from longtalk.summary.model import ConversationSummary
from longtalk.summary.replies import (
    FAILURE_KINDS,
    ReplyError,
    failure_kind,
    read_summary_reply,
    summary_from_reply,
    title_from_reply,
)

SUMMARY = {"narrative": "They planned Lyon.", "topics": ["Lyon"], "covered_turns": 2}


@pytest.mark.parametrize(
    ("reply", "kind", "problem"),
    [
        ("", "empty", "empty"),
        ("  \n", "empty", "empty"),
        ("<|im_start|>assistant\n<|im_end|>", "template_only", "only chat-template markers"),
        ("<think>the user wants JSON</think>", "template_only", "only chat-template markers"),
        ('{"narrative": "They planned', "broken_json", "broken JSON"),
        ("{narrative: 'x',}", "broken_json", "broken JSON"),
        ("[1, 2]", "wrong_types", "not an object"),
        (json.dumps([SUMMARY]), "wrong_types", "not an object"),
        ('{"title": "x"}', "wrong_types", "none of the summary fields"),
        (json.dumps({**SUMMARY, "narrative": 3}), "wrong_types", "narrative must be a string"),
        (json.dumps({**SUMMARY, "topics": "Lyon"}), "wrong_types", "topics must be a list"),
        (json.dumps({**SUMMARY, "decisions": [1]}), "wrong_types", "decisions must be a list"),
        (json.dumps({**SUMMARY, "covered_turns": "two"}), "wrong_types", "covered_turns"),
        (json.dumps({**SUMMARY, "covered_turns": True}), "wrong_types", "covered_turns"),
        (json.dumps({**SUMMARY, "entities": ["Marie"]}), "wrong_types", "entities"),
        (json.dumps({**SUMMARY, "entities": [{"name": ""}]}), "wrong_types", "entities"),
        (json.dumps({"narrative": "", "topics": []}), "empty", "holds no narrative"),
        (json.dumps(ConversationSummary.json_schema()), "echoed_schema", "echoed the JSON schema"),
        (
            json.dumps({"topics": ["string"], "narrative": "a paragraph", "covered_turns": 0}),
            "echoed_schema",
            "echoed the JSON schema",
        ),
        (
            '```json\n{"entities": [{"name": "string", "type": "string", "details": "string"}]}'
            "\n```",
            "echoed_schema",
            "echoed the JSON schema",
        ),
    ],
)
def test_a_reply_that_is_no_structured_summary_names_its_kind(
    reply: str, kind: str, problem: str
) -> None:
    with pytest.raises(ReplyError, match=problem) as raised:
        summary_from_reply(reply, structured=True)
    assert raised.value.kind == kind
    assert failure_kind(raised.value) == kind
    read = read_summary_reply(LLMResponse(reply), structured=True)
    assert (read.kind, read.summary) == (kind, None)


def test_prose_in_structured_mode_is_a_narrative_only_summary() -> None:
    read = read_summary_reply(LLMResponse("Sure! The user planned a trip."), structured=True)
    assert read.kind == "prose"
    assert read.summary == ConversationSummary(narrative="Sure! The user planned a trip.")


LOOP = "".join(f'    "2023-05-08 14:{minute:02d}",\n' for minute in range(40))


@pytest.mark.parametrize(
    ("response", "kind", "problem"),
    [
        (
            LLMResponse('{"narrative": "They pla', finish_reason="length"),
            "cut_off",
            r"cut off at the output limit \(max_tokens=750\)",
        ),
        (LLMResponse("They planned a trip to", finish_reason="length"), "cut_off", "cut off"),
        (
            LLMResponse('{"topics": [\n' + LOOP, finish_reason="length"),
            "repetition",
            "repetition loop",
        ),
        (
            LLMResponse('{"topics": [\n' + LOOP[:300], finish_reason="repetition"),
            "repetition",
            "repetition loop",
        ),
    ],
)
def test_a_reply_stopped_early_is_a_failed_extension(
    response: LLMResponse, kind: str, problem: str
) -> None:
    read = read_summary_reply(response, structured=True, max_tokens=750)
    assert (read.kind, read.summary) == (kind, None)
    with pytest.raises(ReplyError, match=problem):
        read.summary_or_raise(response)


def test_a_complete_summary_before_a_loop_is_kept() -> None:
    looped = json.dumps(SUMMARY) + "\n" + "and so on, " * 40
    read = read_summary_reply(LLMResponse(looped, finish_reason="repetition"), structured=True)
    assert read.kind == "json" and read.summary is not None
    assert read.summary.narrative == "They planned Lyon."


def test_failures_that_are_not_replies_have_kinds() -> None:
    assert failure_kind(LLMTransientError("timed out")) == "unavailable"
    assert failure_kind(LLMPermanentError("bad key")) == "rejected"
    assert failure_kind(LLMError("the summary LLM failed: KeyError")) == "error"
    cut = UnusableReplyError("cut", LLMResponse("x", finish_reason="length"))
    assert failure_kind(cut) == "cut_off"
    assert set(FAILURE_KINDS) >= {"cut_off", "repetition", "broken_json", "wrong_types"}


@pytest.mark.parametrize(
    "reply",
    [
        json.dumps(SUMMARY),
        f"```json\n{json.dumps(SUMMARY)}\n```",
        f"Here is the summary:\n{json.dumps(SUMMARY)}",
        f"<|im_start|>assistant\n{json.dumps(SUMMARY)}<|im_end|>",
        json.dumps({**SUMMARY, "entities": [{"name": "Marie", "type": "person"}], "extra": 1}),
    ],
)
def test_a_structured_summary_is_read_as_written(reply: str) -> None:
    summary = summary_from_reply(reply, structured=True)
    assert summary.narrative == "They planned Lyon." and summary.topics == ("Lyon",)
    assert summary.covered_turns == 2


def test_plain_mode_takes_the_text_and_refuses_nothing_but_markers() -> None:
    assert summary_from_reply(" They met. ", structured=False).narrative == "They met."
    wrapped = "<|im_start|>assistant\nThey met.<|im_end|>"
    assert summary_from_reply(wrapped, structured=False).narrative == "They met."
    with pytest.raises(LLMOutputError, match="digest reply held only chat-template markers"):
        summary_from_reply("<think>hmm</think>", structured=False, what="digest")
    echoed = json.dumps(ConversationSummary.json_schema())
    with pytest.raises(ReplyError, match="echoed the JSON schema"):
        summary_from_reply(echoed, structured=False)


@pytest.mark.parametrize(
    ("reply", "title"),
    [
        ("Lyon weekend", "Lyon weekend"),
        ("Title: Lyon weekend", "Lyon weekend"),
        ("**Title:** Lyon weekend", "Lyon weekend"),
        ("Here is a title:\n\nLyon weekend", "Lyon weekend"),
        ("<|im_start|>assistant\nLyon weekend<|im_end|>", "Lyon weekend"),
        ("Sure!\nLyon weekend\nHope it helps.", None),
        ("Here is a short title:", None),
        ('{"title": "Lyon weekend"}', None),
        ("<|im_start|>user\nLyon weekend<|im_end|>", None),
        ("", None),
        (" ".join(["word"] * 20), None),
    ],
)
def test_a_title_reply_is_one_short_line(reply: str, title: str | None) -> None:
    assert title_from_reply(reply) == title


def test_a_reply_wholly_in_one_assistant_turn_keeps_its_text() -> None:
    assert clean_output("<|im_start|>assistant\nThe summary.<|im_end|>") == "The summary."
    assert clean_output("<|im_start|>The summary.<|im_end|>\n") == "The summary."
    assert clean_output("<|im_start|>system\nYou are helpful.<|im_end|>") == ""
    two_turns = "<|im_start|>assistant\nold<|im_end|><|im_start|>assistant\nnew<|im_end|>"
    assert clean_output(two_turns) == ""
