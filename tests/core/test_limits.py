"""The input gate: one set of limits, checked before anything is stored, errors that say where."""

from __future__ import annotations

from typing import Any

import pytest

from longtalk.config import Settings
from longtalk.core.limits import DEFAULT_LIMITS, InputLimits, check_messages, measure
from longtalk.core.messages import Message, user
from longtalk.errors import InputError, InputTooLarge, UsageError


def nested(levels: int) -> dict[str, Any]:
    value: Any = "bottom"
    for _ in range(levels):
        value = {"d": value}
    return value  # type: ignore[no-any-return]


def test_metadata_nested_130_levels_is_refused_naming_message_field_and_limit() -> None:
    batch = [user("fine"), user("deep", metadata=nested(130))]
    with pytest.raises(InputError) as refused:
        check_messages(batch)
    error = refused.value
    assert isinstance(error, UsageError) and not isinstance(error, InputTooLarge)
    assert (error.index, error.field, error.setting) == (1, "metadata", "limits.max_metadata_depth")
    assert str(error) == (
        "message 1: metadata nests 130 levels; the limit is 8 (limits.max_metadata_depth)"
    )


def test_a_hundred_thousand_levels_are_measured_without_recursing() -> None:
    value: Any = []
    for _ in range(100_000):
        value = [value]
    assert measure(value).depth == 100_001
    with pytest.raises(InputError, match="nests 100002 levels"):
        check_messages([user("x", metadata={"v": value})])


@pytest.mark.parametrize(
    ("message", "field", "setting"),
    [
        (user("x" * 100_001), "content", "limits.max_message_chars"),
        (user("x", id="i" * 201), "id", "limits.max_id_chars"),
        (user("x", name="n" * 201), "name", "limits.max_name_chars"),
        (
            user("x", metadata={f"k{n}": n for n in range(513)}),
            "metadata",
            "limits.max_metadata_keys",
        ),
        (user("x", metadata={"k": "v" * 17_000}), "metadata", "limits.max_metadata_bytes"),
        (
            Message(role="tool", content="x", tool_call_ids=tuple(str(n) for n in range(129))),
            "tool_call_ids",
            "limits.max_tool_calls",
        ),
    ],
    ids=["content", "id", "name", "keys", "bytes", "tool-calls"],
)
def test_sizes_over_a_limit_are_too_large(message: Message, field: str, setting: str) -> None:
    with pytest.raises(InputTooLarge) as refused:
        check_messages([message])
    assert (refused.value.index, refused.value.field, refused.value.setting) == (0, field, setting)
    assert f"message 0: {field}" in str(refused.value) and setting in str(refused.value)


@pytest.mark.parametrize(
    ("message", "field", "problem"),
    [
        (user("bad \ud800 text"), "content", "lone surrogate"),
        (user("nul \x00 byte"), "content", "NUL"),
        (user("x", name="a\x00b"), "name", "NUL"),
        (user("x", metadata={"k": "\udfff"}), "metadata.k", "lone surrogate"),
        (user("x", metadata={"a\x00": 1}), "metadata", "NUL"),
        (user("x", metadata={"n": float("nan")}), "metadata.n", "not a JSON number"),
    ],
    ids=["surrogate", "nul", "nul-name", "surrogate-metadata", "nul-key", "nan"],
)
def test_text_no_backend_can_store_is_refused(message: Message, field: str, problem: str) -> None:
    with pytest.raises(InputError, match=problem) as refused:
        check_messages([user("ok"), message])
    assert refused.value.index == 1 and refused.value.field == field
    assert not isinstance(refused.value, InputTooLarge)


def test_an_empty_or_oversized_batch_is_refused() -> None:
    with pytest.raises(InputError, match="empty"):
        check_messages([])
    with pytest.raises(InputTooLarge, match=r"501 messages .*\(limits.max_batch_size\)"):
        check_messages([user("x")] * 501)


def test_every_door_reads_one_section_and_the_service_keys_still_set_it() -> None:
    assert Settings().input_limits == DEFAULT_LIMITS
    limits = Settings.model_validate({"limits": {"max_metadata_depth": 3}}).input_limits
    assert limits.max_metadata_depth == 3 and limits.setting("max_metadata_depth") == (
        "limits.max_metadata_depth"
    )
    former = Settings.model_validate({"service": {"max_batch_size": 20}}).input_limits
    assert former.max_batch_size == 20 and former.setting("max_batch_size") == (
        "service.max_batch_size"
    )
    both = Settings.model_validate(
        {"limits": {"max_batch_size": 30}, "service": {"max_batch_size": 20}}
    ).input_limits
    assert both.max_batch_size == 30  # the every-door key wins
    with pytest.raises(InputTooLarge, match="service.max_batch_size"):
        check_messages([user("x")] * 21, former)


def test_limits_must_be_numbers_of_zero_or_more() -> None:
    with pytest.raises(UsageError, match="max_batch_size"):
        InputLimits(max_batch_size=-1)
