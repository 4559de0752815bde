"""``GET /users/{user}/memory``: what the web view shows about a chat's user, per tenant."""

from __future__ import annotations

from pathlib import Path

from service_harness import SummaryModel, make_settings, running

from longtalk.storage.user_memory import UserFact, user_memory_for

A = {"X-API-Key": "key-a"}
B = {"X-API-Key": "key-b"}


async def test_a_users_items_with_their_provenance_for_the_callers_tenant_only(
    tmp_path: Path, model: SummaryModel
) -> None:
    settings = make_settings(tmp_path, keys={"key-a": "tenant-a", "key-b": "tenant-b"})
    async with running(settings, model) as api:
        chat = {"id": "trip", "user": "maya"}
        assert (await api.client.post("/chats", json=chat, headers=A)).status_code == 201
        users = user_memory_for(api.service.engine.storage)
        await users.add("tenant-a", "maya", [UserFact("profile", "Maya lives in Berlin.")])
        derived = UserFact("preference", "prefers quiet streets", "derived", "trip", (3, 7))
        await users.replace_derived("tenant-a", "maya", "trip", [derived])

        answer = await api.client.get("/users/maya/memory", headers=A)
        assert answer.status_code == 200
        body = answer.json()
        assert (body["tenant"], body["user"]) == ("tenant-a", "maya")
        items = [
            (i["kind"], i["text"], i["origin"], i["chat_id"], i["messages"]) for i in body["items"]
        ]
        assert items == [
            ("profile", "Maya lives in Berlin.", "given", None, [0, 0]),
            ("preference", "prefers quiet streets", "derived", "trip", [3, 7]),
        ]
        assert all(item["id"] and item["created_at"] for item in body["items"])
        assert not any("episodes" in item for item in body["items"])  # episodes are exchanges

        other = await api.client.get("/users/maya/memory", headers=B)
        assert other.status_code == 200 and other.json()["items"] == []  # another tenant's
        unknown = await api.client.get("/users/nobody/memory", headers=A)
        assert unknown.json()["items"] == []
        assert (await api.client.get("/users/maya/memory")).status_code == 401
        longest = await api.client.get(f"/users/{'x' * 200}/memory", headers=A)
        assert longest.status_code == 200  # as long as a chat's user may be
        too_long = await api.client.get(f"/users/{'x' * 201}/memory", headers=A)
        assert too_long.status_code == 413 and "max_name_chars" in too_long.text
        paths = (await api.client.get("/openapi.json")).json()["paths"]
        assert "get" in paths["/users/{user_id}/memory"]
