"""One masking function: every credential shape an error body or log line may hold."""

from __future__ import annotations

import logging

import pytest

from longtalk.core.redact import RedactSecrets, add_secrets, redact


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("http://bob:pw1234@host/v1", "http://bob:***@host/v1"),
        ("Authorization: Bearer sk-abcdef123456", "Authorization: Bearer ***"),
        ("Authorization: Basic Ym9iOnB3MTIzNA==", "Authorization: Basic ***"),
        ('"Authorization": "Basic Ym9iOnB3MTIzNA=="', '"Authorization": "Basic ***"'),
        ("{'authorization': 'Bearer abcdef'}", "{'authorization': 'Bearer ***'}"),
        ("Proxy-Authorization: Basic Ym9iOnB3", "Proxy-Authorization: Basic ***"),
        ("x-api-key: abcdef123", "x-api-key: ***"),
        ('{"api-key": "abcdef123", "n": 1}', '{"api-key": "***", "n": 1}'),
        ("token: abcdef123", "token: ***"),
        ("X-Auth-Token=abcdef123", "X-Auth-Token=***"),
        ("?api_key=abcdef&x=1", "?api_key=***&x=1"),
        ("the key sk-proj-abc123def456 is wrong", "the key sk-*** is wrong"),
    ],
)
def test_every_credential_shape_is_masked(text: str, masked: str) -> None:
    assert redact(text) == masked
    assert redact(masked) == masked  # idempotent


def test_ordinary_text_is_left_alone() -> None:
    text = "The token of thanks: a basic authorization form, at http://example.com/path."
    assert redact(text) == text


def test_configured_values_are_masked_wherever_they_stand() -> None:
    add_secrets(["plain-CONFIGURED-91", None, "abc"])  # too short to mask: words would go
    assert redact("your key plain-CONFIGURED-91 is invalid") == "your key *** is invalid"
    assert redact("abc") == "abc"


def test_log_records_are_masked_before_they_are_written() -> None:
    record = logging.LogRecord(
        "x", logging.WARNING, "f", 1, "failed: %s", ("Authorization: Basic Ym9iOnB3",), None
    )
    RedactSecrets().filter(record)
    assert record.getMessage() == "failed: Authorization: Basic ***"
