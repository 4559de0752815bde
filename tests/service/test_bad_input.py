"""Bad input gets a 4xx naming the problem, stores nothing, and never bricks a chat."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from service_harness import Harness, SummaryModel, make_settings, running

from longtalk.core.messages import Message
from longtalk.storage.base import NewMessages, TurnCommit

HUGE = str(2**64)


@pytest.fixture
async def api(tmp_path: Path, model: SummaryModel) -> AsyncIterator[Harness]:
    settings = make_settings(
        tmp_path,
        max_body_bytes=20_000,
        max_metadata_bytes=300,
        max_metadata_depth=4,
        max_title_chars=40,
        max_name_chars=30,
        max_id_chars=50,
        max_query_chars=100,
        max_summary_chars=500,
        max_tool_calls=3,
    )
    async with running(settings, model) as harness:
        yield harness


async def chat_with_one_message(api: Harness) -> str:
    chat = (await api.client.post("/chats", json={"id": "c1"})).json()["id"]
    stored = await api.client.post(f"/chats/{chat}/messages", json={"role": "user", "content": "a"})
    assert stored.status_code == 201
    return str(chat)


async def raw_post(api: Harness, path: str, text: str) -> Any:
    headers = {"content-type": "application/json"}
    return await api.client.post(path, content=text.encode("utf-8"), headers=headers)


async def test_integers_past_64_bits_are_422(api: Harness) -> None:
    chat = await chat_with_one_message(api)
    for path, params in (
        ("/chats", {"offset": HUGE}),
        (f"/chats/{chat}/messages", {"after_sequence": HUGE}),
    ):
        response = await api.client.get(path, params=params)
        assert response.status_code == 422, response.text
        assert response.json()["error"] == "invalid"
    for field in ("tokenCount", "episode_first", "turn_number"):
        body = f'{{"sessionId": "{chat}", "content": "x", "{field}": {HUGE}}}'
        response = await raw_post(api, "/summaries", body)
        assert response.status_code == 422, (field, response.text)
        assert field in response.json()["errors"][0]["field"]
    far = await api.client.patch(f"/summaries/{HUGE}", json={"content": "x"})
    assert far.status_code == 422
    many_digits = await raw_post(
        api, "/summaries", '{"sessionId": "c1", "tokenCount": 1' + "0" * 5000 + "}"
    )
    assert many_digits.status_code == 400 and many_digits.json()["error"] == "invalid_json"
    assert await api.service.engine.storage.list_summaries(chat) == []


@pytest.mark.parametrize(
    "body",
    [
        '{"role": "user", "content": "bad \\ud800 text"}',
        '{"role": "user", "content": "ok", "name": "\\udfff"}',
        '{"role": "user", "content": "ok", "metadata": {"k": "\\ud83d"}}',
        '{"role": "user", "content": "ok", "metadata": {"\\ud83d": 1}}',
        '{"role": "user", "content": "ok", "metadata": {"n": NaN}}',
        '{"role": "user", "content": "ok", "metadata": {"n": -Infinity}}',
        '{"role": "user", "content": "ok", "metadata": ' + '{"a": ' * 5 + "1" + "}" * 5 + "}",
        '{"role": "user", "content": "ok", "metadata": ' + "[" * 2000 + "]" * 2000 + "}",
        '{"role": "user", "content": "ok", "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}",
    ],
    ids=[
        "surrogate-content",
        "surrogate-name",
        "surrogate-metadata",
        "surrogate-key",
        "nan",
        "infinity",
        "deep",
        "deeper",
        "deepest",
    ],
)
async def test_unstorable_messages_are_refused_and_the_chat_still_reads(
    tmp_path: Path, model: SummaryModel, body: str
) -> None:
    async with running(make_settings(tmp_path, max_metadata_depth=4), model) as api:
        chat = await chat_with_one_message(api)
        response = await raw_post(api, f"/chats/{chat}/messages", body)
        assert response.status_code in (400, 413, 422), response.text
        payload = response.json()
        assert payload["error"] in ("invalid", "invalid_json", "too_large") and payload["detail"]
        listed = await api.client.get(f"/chats/{chat}/messages")
        assert listed.status_code == 200
        assert [item["message"]["content"] for item in listed.json()["items"]] == ["a"]


async def test_rows_stored_before_the_limits_are_answered_repaired(api: Harness) -> None:
    chat = await chat_with_one_message(api)
    deep: Any = "bottom"
    for _ in range(60):
        deep = {"d": deep}
    bad = Message(
        role="user",
        content="fine",
        metadata={"s": "x\ud800y", "n": float("nan"), "deep": deep, "q": "what?"},
    )
    # written past the gate, as a row stored before the limits existed
    await api.service.engine.storage.commit_turn(TurnCommit(chat, append=NewMessages([bad])))
    listed = await api.client.get(f"/chats/{chat}/messages")
    assert listed.status_code == 200, listed.text
    metadata = listed.json()["items"][-1]["message"]["metadata"]
    assert metadata["s"] == "x\ufffdy" and metadata["n"] is None and metadata["q"] == "what?"
    assert json.dumps(metadata).count('"d"') < 40


@pytest.mark.parametrize(
    ("path", "body", "setting"),
    [
        ("/chats", {"title": "t" * 41}, "max_title_chars"),
        ("/chats", {"user": "u" * 31}, "max_name_chars"),
        (
            "/chats/c1/messages",
            {"role": "user", "content": "x", "name": "n" * 31},
            "max_name_chars",
        ),
        ("/chats/c1/messages", {"role": "user", "content": "x", "id": "i" * 51}, "max_id_chars"),
        (
            "/chats/c1/messages",
            {"role": "tool", "content": "x", "tool_call_ids": ["a", "b", "c", "d"]},
            "max_tool_calls",
        ),
        (
            "/chats/c1/messages",
            {"role": "tool", "content": "x", "tool_call_ids": ["a" * 51]},
            "max_id_chars",
        ),
        (
            "/chats/c1/messages",
            {"role": "user", "content": "x", "metadata": {"k": "v" * 400}},
            "max_metadata_bytes",
        ),
        ("/chats/c1/messages", {"role": "user", "content": "x" * 2001}, "max_message_chars"),
        ("/chats/c1/context", {"query": "q" * 101}, "max_query_chars"),
        ("/summaries", {"sessionId": "c1", "content": "s" * 501}, "max_summary_chars"),
        ("/chats/c1/messages", {"role": "user", "content": "x" * 30_000}, "max_body_bytes"),
    ],
)
async def test_every_field_has_a_limit_that_names_itself(
    api: Harness, path: str, body: dict[str, Any], setting: str
) -> None:
    await chat_with_one_message(api)
    response = await api.client.post(path, json=body)
    assert response.status_code == 413, response.text
    assert response.json()["error"] == "too_large"
    assert f"service.{setting}" in response.json()["detail"]
    messages = await api.service.engine.storage.list_messages("c1")
    assert [m.message.content for m in messages] == ["a"]
    assert len(await api.service.engine.storage.list_chats()) == 1


async def test_a_long_chat_id_in_the_path_is_413(api: Harness) -> None:
    response = await api.client.get(f"/chats/{'x' * 51}")
    assert response.status_code == 413 and "service.max_id_chars" in response.json()["detail"]


async def test_a_body_streamed_past_the_limit_is_413_without_content_length(
    api: Harness,
) -> None:
    await chat_with_one_message(api)

    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"role": "user", "content": "'
        for _ in range(30):
            yield b"x" * 1000
        yield b'"}'

    response = await api.client.post(
        "/chats/c1/messages", content=chunks(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 413 and "service.max_body_bytes" in response.json()["detail"]
