"""Properties of the library's inputs, checked over generated values (hypothesis).

Messages and metadata, configuration (mappings, YAML, URLs), filters, truncation and context
assembly: what holds for every input, not only the hand-picked ones. Derandomized and
bounded, so a run is reproducible and takes seconds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from longtalk.config import load_yaml, parse_settings, redact_url
from longtalk.core.context import ContextBudget, assemble_context
from longtalk.core.filters import (
    ExcludeLastUserFilter,
    MaxCharsFilter,
    MaxTurnsFilter,
    agent_pipeline,
)
from longtalk.core.limits import InputLimits, depth_of, json_problem
from longtalk.core.messages import Message, MessageType, Role, group_episodes
from longtalk.core.tokens import HeuristicTokenCounter
from longtalk.core.truncation import (
    ELLIPSIS,
    TruncationStrategy,
    shorten_content,
    truncate_hard,
    truncate_middle,
)
from longtalk.errors import ConfigError, UsageError
from longtalk.service.limits import scrub

BOUNDED = settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# any code point, lone surrogates included: what a JSON body's "\ud800" escapes produce
any_text = st.text(st.characters(codec=None), max_size=40)
json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | any_text
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(any_text, inner, max_size=4),
    max_leaves=30,
)
plain_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=200)
roles = st.sampled_from(list(Role))


@st.composite
def messages(draw: st.DrawFn) -> Message:
    role = draw(roles)
    tool = role == Role.TOOL or draw(st.booleans()) and role == Role.ASSISTANT
    return Message(
        role=role,
        content=draw(plain_text),
        name=draw(st.none() | st.text(min_size=1, max_size=12)),
        type=MessageType.TOOL if tool else MessageType.TEXT,
        tool_call_ids=tuple(draw(st.lists(st.text(min_size=1, max_size=6), max_size=2)))
        if tool
        else (),
        timestamp=draw(
            st.none() | st.datetimes(min_value=datetime(2000, 1, 1), timezones=st.just(UTC))
        ),
        id=draw(st.none() | st.uuids().map(str)),
        metadata=draw(st.dictionaries(st.text(max_size=8), st.integers() | plain_text, max_size=3)),
    )


conversations = st.lists(messages(), max_size=12)


def encodable(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (ValueError, UnicodeEncodeError):
        return False
    return True


# -- messages and metadata --------------------------------------------------------------------


@BOUNDED
@given(messages())
def test_a_message_survives_its_json_round_trip(message: Message) -> None:
    again = Message.model_validate_json(message.model_dump_json())
    assert again == message and again.content_hash == message.content_hash


@BOUNDED
@given(json_values)
def test_what_passes_the_check_can_be_stored_and_answered(value: Any) -> None:
    if json_problem(value, max_depth=64) is None:
        assert encodable(value)
    assert encodable(scrub(value))  # rows stored before the limits can always be answered


@BOUNDED
@given(st.dictionaries(any_text, json_values, max_size=5))
def test_the_metadata_limits_let_through_only_storable_metadata(metadata: dict[str, Any]) -> None:
    limits = InputLimits(max_metadata_depth=3, max_metadata_bytes=400)
    try:
        limits.metadata(metadata)
    except UsageError as exc:
        assert "metadata" in str(exc)
        return
    assert encodable(metadata)
    assert depth_of(metadata) <= 3
    assert len(json.dumps(metadata, ensure_ascii=False).encode("utf-8")) <= 400


# -- configuration ----------------------------------------------------------------------------

config_keys = st.sampled_from(
    ["supervisor", "memory", "strategy", "service", "api_keys", "storage", "url", "port",
     "max_body_bytes", "llm", "base_url", "agents", "name", "rag_k", "summary_share"]
)  # fmt: skip
config_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(config_keys, inner, max_size=3),
    max_leaves=12,
)


@BOUNDED
@given(st.dictionaries(config_keys, config_values, max_size=4))
def test_any_configuration_mapping_is_valid_or_a_config_error(data: dict[str, Any]) -> None:
    try:
        parse_settings(data)
    except ConfigError as exc:
        assert str(exc)


@BOUNDED
@given(st.text(st.sampled_from("ab:&*[]{}-, \n'\"!<>|"), max_size=120))
def test_yaml_loading_ends_with_a_value_or_a_yaml_error(text: str) -> None:
    try:
        load_yaml(text)
    except yaml.YAMLError:
        pass


hosts = st.from_regex(r"[a-z][a-z0-9-]{0,10}(\.[a-z]{2,5}){0,2}", fullmatch=True)


@BOUNDED
@given(
    st.sampled_from(["postgresql", "postgresql+asyncpg", "http", "https", "sqlite"]),
    st.from_regex(r"[a-z]{1,8}", fullmatch=True),
    st.from_regex(r"PW[A-Za-z0-9]{4,12}", fullmatch=True),
    hosts,
    st.none() | st.integers(1, 65535),
)
def test_a_redacted_url_never_shows_its_password(
    scheme: str, user: str, password: str, host: str, port: int | None
) -> None:
    url = f"{scheme}://{user}:{password}@{host}{f':{port}' if port else ''}/db?password={password}"
    shown = redact_url(url)
    assert password not in shown
    assert shown.startswith(f"{scheme}://{user}:***@{host}")


# -- filters and truncation -------------------------------------------------------------------


def is_subsequence(part: list[Message], whole: list[Message]) -> bool:
    remaining = iter(whole)
    return all(any(item is candidate for candidate in remaining) for item in part)


@BOUNDED
@given(conversations, st.integers(0, 8))
def test_max_turns_keeps_a_subsequence_with_at_most_that_many_exchanges(
    history: list[Message], turns: int
) -> None:
    kept = MaxTurnsFilter(turns).apply(history)
    assert is_subsequence(kept, history)
    users = [m for m in kept if m.role == Role.USER]
    assert len(users) <= turns
    if len(group_episodes(history)) <= turns:
        assert kept == history


@BOUNDED
@given(conversations)
def test_excluding_the_query_removes_only_an_unanswered_last_user_message(
    history: list[Message],
) -> None:
    kept = ExcludeLastUserFilter().apply(history)
    users = [i for i, m in enumerate(history) if m.role == Role.USER]
    replies = [m for m in history[users[-1] :] if m.role == Role.ASSISTANT] if users else []
    answered = any(m.content.strip() or m.tool_call_ids for m in replies)  # blank: no answer
    if users and not answered:
        assert kept == history[: users[-1]] + history[users[-1] + 1 :]
    else:
        assert kept == history


@BOUNDED
@given(conversations, st.integers(0, 60), st.sampled_from(list(TruncationStrategy)))
def test_max_chars_bounds_every_message_and_changes_nothing_else(
    history: list[Message], limit: int, strategy: TruncationStrategy
) -> None:
    kept = MaxCharsFilter(limit, strategy).apply(history)
    assert len(kept) == len(history)
    for before, after in zip(history, kept, strict=True):
        assert len(after.content) <= limit
        assert after.model_copy(update={"content": before.content}) == before
        if len(before.content) <= limit:
            assert after.content == before.content


@BOUNDED
@given(plain_text, st.integers(0, 300))
def test_truncation_stays_within_the_limit(content: str, limit: int) -> None:
    for strategy in TruncationStrategy:
        assert len(shorten_content(content, limit, strategy)) <= limit
    hard = truncate_hard(content, limit)
    if len(content) <= limit:
        assert hard == content == truncate_middle(content, limit)
    elif limit:
        assert hard == content[: limit - 1] + ELLIPSIS


@BOUNDED
@given(
    conversations,
    st.lists(st.from_regex(r"P[a-z]{0,5}", fullmatch=True), max_size=3),
    st.none() | st.integers(0, 100),
    st.none() | st.integers(0, 6),
)
def test_an_agent_pipeline_only_removes_strips_and_shortens(
    history: list[Message], prefixes: list[str], max_chars: int | None, max_turns: int | None
) -> None:
    kept = agent_pipeline(prefixes, max_chars, max_turns).apply(history)
    assert len(kept) <= len(history)
    if max_chars is not None:
        assert all(len(m.content) <= max_chars for m in kept)
    ids = [m.id for m in history if m.id]
    assert all(m.id in ids for m in kept if m.id)


# -- context assembly -------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    summary_text: str
    episode_first: int
    episode_last: int


@dataclass(frozen=True)
class Recalled:
    message: Message
    score: float
    sequence: int


@settings(BOUNDED, max_examples=50)
@given(
    conversations,
    conversations,
    st.lists(st.tuples(plain_text, st.integers(1, 50)), max_size=4),
    st.lists(st.tuples(messages(), st.floats(-1, 1)), max_size=5),
    st.integers(-5, 600),
    st.integers(0, 200),
    st.floats(0, 1),
)
def test_the_assembled_context_never_exceeds_its_budget(
    window: list[Message],
    pending: list[Message],
    rows: list[tuple[str, int]],
    recalled: list[tuple[Message, float]],
    budget: int,
    summary_cap: int,
    share: float,
) -> None:
    counter = HeuristicTokenCounter()
    numbered = list(enumerate(pending + window, start=1))
    context = assemble_context(
        recalled=[Recalled(m, s, 1000 + i) for i, (m, s) in enumerate(recalled)],
        summary_rows=[Row(text, n, n) for text, n in rows],
        verbatim=numbered[len(pending) :],
        pending=numbered[: len(pending)],
        budget_tokens=budget,
        counter=counter,
        rules=ContextBudget(summary_max_tokens=summary_cap, summary_share=share),
    )
    assert context.tokens_used <= max(0, budget)
    assert counter.count(context.render()) <= max(0, budget)
    shown = list(context.verbatim)
    assert is_subsequence(shown, pending + window) or all(
        m.content in {w.content for w in pending + window} for m in shown
    )
    summary = context.part("summary")
    if summary is not None:
        assert summary.tokens <= summary_cap
