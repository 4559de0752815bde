"""Over HTTP, an Idempotency-Key covers the whole request; reuse for another is 400."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from service_harness import Harness, SummaryModel, make_settings, running

KEY = {"Idempotency-Key": "turn-7"}
BATCH: list[dict[str, Any]] = [
    {"role": "user", "content": "Book the 9:40 train.", "name": "ann", "metadata": {"via": "app"}},
    {"role": "assistant", "content": "Booked: car 7, seat 12."},
    {"role": "user", "content": "Thanks!"},
]


@pytest.fixture
async def api(tmp_path: Path, model: SummaryModel) -> AsyncIterator[Harness]:
    async with running(make_settings(tmp_path), model) as harness:
        created = await harness.client.post("/chats", json={"id": "c1"})
        assert created.status_code == 201
        first = await harness.client.post(
            "/chats/c1/messages", json={"messages": BATCH}, headers=KEY
        )
        assert first.status_code == 201
        yield harness


async def test_the_same_request_is_answered_as_the_first(api: Harness) -> None:
    again = await api.client.post("/chats/c1/messages", json={"messages": BATCH}, headers=KEY)
    assert again.status_code == 201
    assert [item["sequence"] for item in again.json()["stored"]] == [1, 2, 3]


def renamed() -> list[dict[str, Any]]:
    return [{**BATCH[0], "name": "bob"}, *BATCH[1:]]


def remarked() -> list[dict[str, Any]]:
    return [{**BATCH[0], "metadata": {"via": "web"}}, *BATCH[1:]]


@pytest.mark.parametrize(
    "batch",
    [renamed(), remarked(), BATCH[:2], [*BATCH, {"role": "user", "content": "more"}]],
    ids=["name", "metadata", "prefix", "longer"],
)
async def test_any_other_request_under_the_key_is_400_and_stores_nothing(
    api: Harness, batch: list[dict[str, Any]]
) -> None:
    response = await api.client.post("/chats/c1/messages", json={"messages": batch}, headers=KEY)
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["error"] == "idempotency_conflict" and "Idempotency-Key" in body["detail"]
    listed = (await api.client.get("/chats/c1/messages")).json()["items"]
    assert [item["message"]["content"] for item in listed] == [m["content"] for m in BATCH]


async def test_the_documented_status_is_in_the_openapi_document(api: Harness) -> None:
    spec = (await api.client.get("/openapi.json")).json()
    described = spec["paths"]["/chats/{chat_id}/messages"]["post"]["responses"]["400"]
    assert "idempotency" in described["description"].lower()
