"""The OpenAPI document says what the service does: no request it refuses looks valid there,
none it accepts looks invalid, and every answer has its documented media type."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from service_harness import Harness, SummaryModel, make_settings, running


@pytest.fixture
async def api(tmp_path: Path, model: SummaryModel) -> AsyncIterator[Harness]:
    async with running(make_settings(tmp_path), model) as harness:
        assert (await harness.client.post("/chats", json={"id": "c1"})).status_code == 201
        yield harness


async def spec(api: Harness) -> dict[str, Any]:
    document: dict[str, Any] = (await api.client.get("/openapi.json")).json()
    return document


@pytest.mark.parametrize(
    "body",
    [
        {"summary_max_tokens": False},
        {"budget_tokens": True},
        {"recent_turns": "2"},
        {"budget_tokens": 2.5},
    ],
)
async def test_numbers_are_numbers(api: Harness, body: dict[str, Any]) -> None:
    response = await api.client.post("/chats/c1/context", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["errors"][0]["field"] == next(iter(body))


async def test_an_integral_float_is_an_integer_as_json_schema_says(api: Harness) -> None:
    response = await api.client.post("/chats/c1/context", json={"recent_turns": 2.0})
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("stamp", [0, 1700000000.5, "1700000000"])
async def test_a_timestamp_is_date_time_text(api: Harness, stamp: object) -> None:
    body = {"role": "user", "content": "hi", "timestamp": stamp}
    response = await api.client.post("/chats/c1/messages", json=body)
    assert response.status_code == 422 and "ISO 8601" in response.text


async def test_the_event_stream_is_documented_as_one(tmp_path: Path, model: SummaryModel) -> None:
    async with running(make_settings(tmp_path), model, transport="uvicorn") as api:
        await api.client.post("/chats", json={"id": "c1"})
        content = (await spec(api))["paths"]["/chats/{chat_id}/events"]["get"]["responses"]
        event = content["200"]["content"]["text/event-stream"]["schema"]
        assert event["required"] == ["event", "data"]
        assert "state" in event["properties"]["event"]["enum"]
        async with api.client.stream("GET", "/chats/c1/events") as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            first = await anext(response.aiter_lines())
    assert first == "event: state"


async def test_a_summary_needs_its_text_as_the_schema_says(api: Harness) -> None:
    create = (await spec(api))["components"]["schemas"]["SummaryCreate"]
    assert set(create["required"]) == {"chat_id", "summary_text"}
    only_chat = await api.client.post("/summaries", json={"chat_id": "c1"})
    assert only_chat.status_code == 422
    assert only_chat.json()["errors"][0]["field"] == "summary_text"
    numeric = await api.client.post("/summaries", json={"sessionId": 7.0, "content": "x"})
    assert numeric.status_code == 404 and "'7'" in numeric.text  # the integer id 7


async def test_a_patch_with_nothing_to_change_answers_the_row(api: Harness) -> None:
    created = await api.client.post("/summaries", json={"chat_id": "c1", "content": "kept"})
    row = created.json()
    same = await api.client.patch(f"/summaries/{row['id']}", json={})
    assert same.status_code == 200 and same.json() == row


async def test_the_document_carries_the_configured_limits(api: Harness) -> None:
    schemas = (await spec(api))["components"]["schemas"]
    message = schemas["MessageIn"]["properties"]
    assert message["content"]["maxLength"] == 2000  # service.max_message_chars here
    assert message["content"]["pattern"] == "^[^\\u0000]*$"
    assert schemas["MessageBatch"]["properties"]["messages"]["maxItems"] == 20
    assert message["metadata"]["maxProperties"] == 512
    nul = await api.client.post("/chats/c1/messages", json={"role": "user", "content": "a\x00b"})
    assert nul.status_code == 422 and "NUL" in nul.json()["detail"]
    empty = await api.client.post("/chats/c1/messages", json={"messages": []})
    assert empty.status_code == 422
