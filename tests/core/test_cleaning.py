import pytest

from longtalk.core.cleaning import clean_output


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("<|im_start|>assistant\nold<|im_end|>The summary.", "The summary."),
        ("The summary.<|im_end|>", "The summary."),
        ("<|im_start|>The summary.<|im_sep|>", "The summary."),
        ("<think>let me see\nmore</think>\nThe summary.", "The summary."),
        ("<THINKING>x</THINKING>The summary.", "The summary."),
        ("The summary.<|eot_id|>", "The summary."),
        ("<start_of_turn>The summary.<end_of_turn>", "The summary."),
        ("[INST] The summary. [/INST]", "The summary."),
        ("  plain text  ", "plain text"),
        ("<|im_start|>user\nSummarize<|im_end|>\n<|im_start|>assistant\nSum.", "Sum."),
    ],
)
def test_special_tokens_and_reasoning_are_stripped(raw: str, clean: str) -> None:
    assert clean_output(raw) == clean


def test_user_text_with_angle_brackets_survives() -> None:
    assert clean_output("Use a <div> and x < y") == "Use a <div> and x < y"
