"""API keys map to tenants; a second tenant sees nothing of the first (real uvicorn)."""

from __future__ import annotations

from pathlib import Path

import pytest
from service_harness import KEYS, SummaryModel, exchange, make_settings, running

from longtalk.service import bind_host
from longtalk.service.auth import LOCALHOST

A = {"Authorization": "Bearer key-a"}
B = {"X-API-Key": "key-b"}


async def test_second_tenant_sees_nothing(tmp_path: Path, model: SummaryModel) -> None:
    settings = make_settings(tmp_path, keys=KEYS)
    async with running(settings, model, transport="uvicorn") as api:
        client = api.client
        created = await client.post("/chats", json={"id": "secret", "title": "A's"}, headers=A)
        assert created.status_code == 201 and created.json()["tenant"] == "tenant-a"
        for number in range(4):
            await client.post(
                "/chats/secret/messages", json={"messages": exchange(number)}, headers=A
            )
        await api.settle()
        chain = (await client.get("/chats/secret/summaries", headers=A)).json()["items"]
        assert chain, "tenant A's chat was summarized"
        row = chain[0]["id"]

        assert (await client.get("/chats", headers=B)).json()["items"] == []
        for method, url, body in [
            ("GET", "/chats/secret", None),
            ("GET", "/chats/secret/messages", None),
            ("POST", "/chats/secret/messages", {"role": "user", "content": "intrusion"}),
            ("POST", "/chats/secret/context", {"query": "Lisbon"}),
            ("GET", "/chats/secret/summaries", None),
            ("POST", "/chats/secret/summarize", None),
            ("GET", "/chats/secret/events", None),
            ("DELETE", "/chats/secret", None),
            ("PATCH", f"/summaries/{row}", {"content": "overwritten"}),
            ("PATCH", f"/summaries/{row}", {"chat_id": "secret", "content": "overwritten"}),
            ("POST", "/summaries", {"chat_id": "secret", "content": "planted"}),
        ]:
            response = await client.request(method, url, json=body, headers=B)
            assert response.status_code == 404, (method, url, response.status_code)
            assert "overwritten" not in response.text

        intrusion = {"role": "user", "content": "intrusion"}
        missing = await client.post("/chats/nowhere/messages", json=intrusion, headers=B)
        other = await client.post("/chats/secret/messages", json=intrusion, headers=B)
        assert missing.status_code == other.status_code == 404  # existence is not told
        assert other.json()["detail"].replace("secret", "nowhere") == missing.json()["detail"]
        asked = {"query": "Lisbon"}
        missing = await client.post("/chats/nowhere/context", json=asked, headers=B)
        other = await client.post("/chats/secret/context", json=asked, headers=B)
        assert other.json()["detail"].replace("secret", "nowhere") == missing.json()["detail"]

        own = (await client.get("/chats/secret", headers=A)).json()
        assert own["message_count"] == 8
        rows = (await client.get("/chats/secret/summaries", headers=A)).json()["items"]
        assert [r["summary_text"] for r in rows] == [r["summary_text"] for r in chain]
        assert "overwritten" not in str(rows)

        b_chat = await client.post("/chats", json={}, headers=B)
        assert b_chat.json()["tenant"] == "tenant-b"
        assert [c["id"] for c in (await client.get("/chats", headers=A)).json()["items"]] == [
            "secret"
        ]


async def test_keys_are_required(tmp_path: Path, model: SummaryModel) -> None:
    async with running(make_settings(tmp_path, keys=KEYS), model) as api:
        missing = await api.client.get("/chats")
        assert missing.status_code == 401 and "API key" in missing.json()["detail"]
        assert missing.headers["www-authenticate"] == "Bearer"
        assert (await api.client.get("/chats", headers={"X-API-Key": "nope"})).status_code == 401
        query = await api.client.get("/chats", params={"api_key": "key-a"})
        assert query.status_code == 401 and "not accepted in the URL" in query.json()["detail"]
        assert (await api.client.get("/healthz")).status_code == 200


def test_without_keys_binds_localhost_only(tmp_path: Path) -> None:
    open_settings = make_settings(tmp_path)
    assert bind_host(open_settings.service, "0.0.0.0") == LOCALHOST
    keyed = make_settings(tmp_path, keys=KEYS)
    assert bind_host(keyed.service, "0.0.0.0") == "0.0.0.0"


async def test_default_tenant_without_keys(
    tmp_path: Path, model: SummaryModel, caplog: pytest.LogCaptureFixture
) -> None:
    async with running(make_settings(tmp_path), model) as api:
        chat = await api.client.post("/chats", json={}, headers={"X-API-Key": "ignored"})
        assert chat.json()["tenant"] == "default"
    assert "binds to 127.0.0.1 only" in caplog.text
