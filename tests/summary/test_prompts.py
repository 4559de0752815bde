import pytest

from longtalk.summary.prompts import PromptSet, render_prompt


def test_braces_in_values_and_templates_never_break_formatting() -> None:
    template = 'Return JSON like {"a": 1}. Conversation:\n{transcript}\n{unknown} {0}'
    values = {"transcript": "user: my code is `def f(): return {x}` and {transcript}"}
    rendered = render_prompt(template, values)
    assert rendered == (
        'Return JSON like {"a": 1}. Conversation:\n'
        "user: my code is `def f(): return {x}` and {transcript}\n{unknown} {0}"
    )


def test_extension_prompt_gets_both_parts_once() -> None:
    prompts = PromptSet()
    text = prompts.extension("OLD {new_messages}", "NEW {existing_summary}")
    assert text.count("OLD {new_messages}") == 1
    assert text.count("NEW {existing_summary}") == 1
    assert text.index("OLD") < text.index("NEW")


def test_per_agent_overrides_use_seed_names() -> None:
    prompts = PromptSet().with_overrides(
        {
            "summary_compression_system_prompt": "SYS",
            "summary_compression_user_prompt": "Summarise: {transcript}",
            "summary_extension_user_prompt": "Extend: {existing_summary} with {new_messages}",
        }
    )
    assert prompts.compression_system == "SYS"
    assert prompts.compression("T") == "Summarise: T"
    assert prompts.extension("S", "N") == "Extend: S with N"


def test_none_override_keeps_the_default_and_unknown_section_is_an_error() -> None:
    default = PromptSet()
    assert default.with_overrides({"summary_compression_user_prompt": None}) == default
    with pytest.raises(KeyError, match="summary_compresion_user_prompt"):
        default.with_overrides({"summary_compresion_user_prompt": "x"})
