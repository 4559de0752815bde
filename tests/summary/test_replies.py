"""Replies checked before storing: what is a summary, a digest or a title, and what is not."""

from __future__ import annotations

import json

import pytest

from longtalk.core.cleaning import clean_output
from longtalk.errors import LLMOutputError
from longtalk.summary.replies import summary_from_reply, title_from_reply

SUMMARY = {"narrative": "They planned Lyon.", "topics": ["Lyon"], "covered_turns": 2}


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("", "empty"),
        ("<|im_start|>assistant\n<|im_end|>", "empty"),
        ('{"narrative": "They planned', "not valid JSON"),
        ("{narrative: 'x',}", "not valid JSON"),
        ("The user planned a trip.", "not JSON"),
        ("[1, 2]", "not an object"),
        (json.dumps([SUMMARY]), "not an object"),
        ('{"title": "x"}', "none of the summary fields"),
        (json.dumps({**SUMMARY, "narrative": 3}), "narrative must be a string"),
        (json.dumps({**SUMMARY, "topics": "Lyon"}), "topics must be a list of strings"),
        (json.dumps({**SUMMARY, "decisions": [1]}), "decisions must be a list of strings"),
        (json.dumps({**SUMMARY, "covered_turns": "two"}), "covered_turns"),
        (json.dumps({**SUMMARY, "covered_turns": True}), "covered_turns"),
        (json.dumps({**SUMMARY, "entities": ["Marie"]}), "entities"),
        (json.dumps({**SUMMARY, "entities": [{"name": ""}]}), "entities"),
        (json.dumps({"narrative": "", "topics": []}), "holds no narrative"),
    ],
)
def test_a_reply_that_is_no_structured_summary_names_its_fault(reply: str, problem: str) -> None:
    with pytest.raises(LLMOutputError, match=problem):
        summary_from_reply(reply, structured=True)


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
    with pytest.raises(LLMOutputError, match="empty digest"):
        summary_from_reply("<think>hmm</think>", structured=False, what="digest")


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
