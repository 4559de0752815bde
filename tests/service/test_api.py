"""Every endpoint, in process (ASGI) and against a real uvicorn on 127.0.0.1."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from service_harness import Harness, SummaryModel, exchange, make_settings, running


@pytest.fixture(params=["asgi", "uvicorn"])
async def api(
    request: pytest.FixtureRequest, tmp_path: Path, model: SummaryModel
) -> AsyncIterator[Harness]:
    async with running(make_settings(tmp_path), model, transport=request.param) as harness:
        yield harness


async def new_chat(api: Harness, **body: str) -> str:
    response = await api.client.post("/chats", json=body)
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


async def test_chat_lifecycle(api: Harness) -> None:
    chat = await new_chat(api, id="trip", title="Trip", user="maya")
    got = (await api.client.get(f"/chats/{chat}")).json()
    assert got["title"] == "Trip" and got["user"] == "maya" and got["tenant"] == "default"
    assert got["summary_state"] == "idle" and got["message_count"] == 0
    assert (await api.client.post("/chats", json={"id": "trip"})).status_code == 409
    for number in range(4):
        await new_chat(api, id=f"extra-{number}")
    first = (await api.client.get("/chats", params={"limit": 2})).json()
    second = (await api.client.get("/chats", params={"limit": 2, "offset": 2})).json()
    third = (await api.client.get("/chats", params={"limit": 2, "offset": 4})).json()
    ids = [item["id"] for page in (first, second, third) for item in page["items"]]
    assert sorted(ids) == sorted(["trip", *(f"extra-{n}" for n in range(4))])
    assert first["next_offset"] == 2 and third["next_offset"] is None


async def test_delete_cascades(api: Harness) -> None:
    chat = await new_chat(api)
    for number in range(4):
        await api.client.post(f"/chats/{chat}/messages", json={"messages": exchange(number)})
    await api.settle()
    assert await api.service.engine.storage.list_summaries(chat)
    assert (await api.client.delete(f"/chats/{chat}")).status_code == 204
    assert (await api.client.get(f"/chats/{chat}")).status_code == 404
    assert (await api.client.delete(f"/chats/{chat}")).status_code == 404
    assert await api.service.engine.storage.list_messages(chat) == []
    assert await api.service.engine.storage.list_summaries(chat) == []


async def test_append_and_list_messages(api: Harness) -> None:
    chat = await new_chat(api)
    one = await api.client.post(f"/chats/{chat}/messages", json={"role": "user", "content": "hi"})
    assert one.status_code == 201
    assert [item["sequence"] for item in one.json()["stored"]] == [1]
    batch = await api.client.post(f"/chats/{chat}/messages", json={"messages": exchange(1) * 3})
    assert [item["sequence"] for item in batch.json()["stored"]] == [2, 3, 4, 5, 6, 7]
    assert batch.json()["message_count"] == 7
    page = (await api.client.get(f"/chats/{chat}/messages", params={"limit": 4})).json()
    assert [item["sequence"] for item in page["items"]] == [1, 2, 3, 4]
    assert page["items"][0]["message"] == {
        **page["items"][0]["message"],
        "role": "user",
        "content": "hi",
    }
    rest = await api.client.get(
        f"/chats/{chat}/messages", params={"after_sequence": page["next_after"], "limit": 4}
    )
    assert [item["sequence"] for item in rest.json()["items"]] == [5, 6, 7]
    assert rest.json()["next_after"] is None


async def test_bad_input_is_4xx_and_stores_nothing(api: Harness) -> None:
    chat = await new_chat(api)
    url = f"/chats/{chat}/messages"
    await api.client.post(url, json={"role": "user", "content": "kept"})
    too_long = await api.client.post(url, json={"role": "user", "content": "x" * 2001})
    assert too_long.status_code == 413 and "max_message_chars" in too_long.json()["detail"]
    mixed = {
        "messages": [{"role": "user", "content": "fine"}, {"role": "user", "content": "y" * 2001}]
    }
    assert (await api.client.post(url, json=mixed)).status_code == 413
    too_many = await api.client.post(url, json={"messages": exchange(0) * 11})
    assert too_many.status_code == 413 and "max_batch_size" in too_many.json()["detail"]
    empty = await api.client.post(url, json={"messages": []})
    assert empty.status_code == 422 and "empty" in empty.json()["detail"]
    broken = await api.client.post(
        url, content=b'{"role": "user", ', headers={"content-type": "application/json"}
    )
    assert broken.status_code == 400 and broken.json()["error"] == "invalid_json"
    wrong = await api.client.post(url, json={"role": "robot", "content": 5})
    assert wrong.status_code == 422
    assert "message.role" in wrong.json()["detail"] and "message.content" in wrong.json()["detail"]
    unknown = await api.client.post("/chats/nope/messages", json={"role": "user", "content": "x"})
    assert unknown.status_code == 404 and "nope" in unknown.json()["detail"]
    bad_page = await api.client.get(url, params={"limit": 0})
    assert bad_page.status_code == 422 and "limit" in bad_page.json()["detail"]
    stored = (await api.client.get(url)).json()["items"]
    assert [item["message"]["content"] for item in stored] == ["kept"]


async def test_context_with_provenance(api: Harness) -> None:
    chat = await new_chat(api)
    for number in range(6):
        await api.client.post(f"/chats/{chat}/messages", json={"messages": exchange(number)})
    await api.settle()
    summaries = (await api.client.get(f"/chats/{chat}/summaries")).json()["items"]
    asked = {"query": "Lisbon", "budget_tokens": 150}  # less than the chat: layered
    response = await api.client.post(f"/chats/{chat}/context", json=asked)
    body = response.json()
    assert response.status_code == 200 and body["strategy"] == "running_summary"
    kinds = [part["kind"] for part in body["parts"]]
    assert kinds == ["facts", "summary", "verbatim"]  # the summary's preference, decision
    facts, summary, verbatim = body["parts"]
    assert "quiet neighbourhoods" in facts["text"].lower() and facts["sequences"]
    assert summary["episode_ranges"] == [[s["episode_first"], s["episode_last"]] for s in summaries]
    assert summary["summary_ids"] == [s["id"] for s in summaries]
    assert verbatim["sequences"] == list(range(13 - len(verbatim["sequences"]), 13))
    assert body["text"].startswith("Durable facts the participants stated:")
    small = (await api.client.post(f"/chats/{chat}/context", json={"budget_tokens": 60})).json()
    assert small["budget_tokens"] == 60 and small["tokens_used"] <= 60
    plain = (await api.client.post(f"/chats/{chat}/context", json={"strategy": "none"})).json()
    assert [p["kind"] for p in plain["parts"]] == ["verbatim"] and plain["strategy"] == "none"
    assert plain["parts"][0]["sequences"] == list(range(1, 13))
    bad = await api.client.post(f"/chats/{chat}/context", json={"strategy": "psychic"})
    assert bad.status_code == 422


async def test_summaries_contract(api: Harness) -> None:
    chat = await new_chat(api)
    created = await api.client.post(
        "/summaries",
        json={
            "sessionId": chat,
            "content": "They planned a trip.",
            "tokenCount": 5,
            "episodeRange": "1-3",
        },
    )
    assert created.status_code == 201, created.text
    row = created.json()
    assert (row["episode_first"], row["episode_last"], row["token_count"]) == (1, 3, 5)
    patched = await api.client.patch(
        f"/summaries/{row['id']}", json={"content": "They booked Lisbon.", "episodeRange": "1-4"}
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["episode_range"] == "1-4" and patched.json()["version"] > row["version"]
    chain = (await api.client.get(f"/chats/{chat}/summaries")).json()["items"]
    assert [(r["id"], r["summary_text"]) for r in chain] == [(row["id"], "They booked Lisbon.")]
    with_chat = await api.client.patch(
        f"/summaries/{row['id']}", json={"chat_id": chat, "token_count": 9}
    )
    assert with_chat.json()["token_count"] == 9
    assert (await api.client.patch("/summaries/999", json={"content": "x"})).status_code == 404
    bad_range = await api.client.patch(f"/summaries/{row['id']}", json={"episodeRange": "three"})
    assert bad_range.status_code == 422 and "first-last" in bad_range.json()["detail"]
    unchanged = await api.client.patch(f"/summaries/{row['id']}", json={})  # as the schema allows
    assert unchanged.status_code == 200 and unchanged.json()["token_count"] == 9
    orphan = await api.client.post("/summaries", json={"sessionId": "nope", "content": "x"})
    assert orphan.status_code == 404
    numeric = await api.client.post("/summaries", json={"sessionId": 42, "content": "x"})
    assert numeric.status_code == 404 and "'42'" in numeric.json()["detail"]  # seed ids are ints


async def test_summarize_now(api: Harness) -> None:
    chat = await new_chat(api)
    short = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    await api.client.post(f"/chats/{chat}/messages", json={"messages": short})
    await api.client.post(f"/chats/{chat}/messages", json={"role": "user", "content": "and then?"})
    await api.settle()
    assert api.model.calls == 0  # below the trigger: the background job did not summarize
    response = await api.client.post(f"/chats/{chat}/summarize")
    assert response.status_code == 200
    assert response.json()["outcome"] == "summarized"
    assert response.json()["episode_ranges"] == [[1, 1]]
    assert response.json()["reason"] is None
    again = await api.client.post(f"/chats/{chat}/summarize")
    assert again.json()["outcome"] == "unchanged"
    assert again.json()["reason"].startswith("nothing to summarize: every message older than")


async def test_health_metrics_openapi(api: Harness) -> None:
    chat = await new_chat(api)
    for number in range(3):
        await api.client.post(f"/chats/{chat}/messages", json={"messages": exchange(number)})
    await api.settle()
    health = await api.client.get("/healthz")
    assert health.status_code == 200
    assert health.json()["status"] == "ok"
    assert health.json()["checks"]["storage"]["status"] == "ok"
    llm = health.json()["checks"]["llm"]
    assert llm["calls"]["failed"] == 0 and llm["calls"]["last"] == "ok"
    assert llm | {"ms": 0, "calls": None} == {
        "status": "ok",
        "backend": llm["backend"],
        "probed": False,
        "ms": 0,
        "calls": None,
    }
    assert health.json()["checks"]["storage"]["writable"] is True
    metrics = (await api.client.get("/metrics")).text
    route = 'method="POST",route="/chats/{chat_id}/messages",status="201"'
    assert f"longtalk_http_requests_total{{{route}}} 3.0" in metrics
    assert 'longtalk_summary_jobs_total{outcome="summarized"}' in metrics
    assert 'longtalk_llm_tokens_total{direction="input",tenant="default"}' in metrics
    paths = (await api.client.get("/openapi.json")).json()["paths"]
    for path in (
        "/chats",
        "/chats/{chat_id}",
        "/chats/{chat_id}/messages",
        "/chats/{chat_id}/context",
        "/chats/{chat_id}/summaries",
        "/chats/{chat_id}/summarize",
        "/summaries",
        "/summaries/{summary_id}",
        "/chats/{chat_id}/events",
        "/healthz",
        "/metrics",
    ):
        assert path in paths
    page = await api.client.get("/ui/")
    assert page.status_code == 200 and "Summarising" in page.text


async def test_a_retried_append_with_an_idempotency_key_stores_nothing_twice(api: Harness) -> None:
    chat = await new_chat(api)
    body = {"messages": exchange(0)}
    headers = {"Idempotency-Key": "append-1"}
    first = await api.client.post(f"/chats/{chat}/messages", json=body, headers=headers)
    again = await api.client.post(f"/chats/{chat}/messages", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json()["stored"] == first.json()["stored"]
    other = {"messages": exchange(1)}
    reused = await api.client.post(f"/chats/{chat}/messages", json=other, headers=headers)
    assert reused.status_code in (400, 409, 422) and "other content" in reused.text
    fresh = await api.client.post(
        f"/chats/{chat}/messages", json=other, headers={"Idempotency-Key": "append-2"}
    )
    assert [m["sequence"] for m in fresh.json()["stored"]] == [3, 4]
    listed = (await api.client.get(f"/chats/{chat}/messages")).json()["items"]
    assert [m["sequence"] for m in listed] == [1, 2, 3, 4]
