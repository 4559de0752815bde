"""User memory, a chat's facts and its summary cost over HTTP, each tenant seeing its own."""

from __future__ import annotations

from pathlib import Path

from service_harness import KEYS, SummaryModel, exchange, make_settings, running

A = {"X-API-Key": "key-a"}
B = {"X-API-Key": "key-b"}


async def test_remember_read_and_forget_per_tenant(tmp_path: Path, model: SummaryModel) -> None:
    async with running(make_settings(tmp_path, keys=KEYS), model) as api:
        client = api.client
        kept = await client.post(
            "/users/priya/memory",
            json={"text": " Prefers aisle seats ", "kind": "preference"},
            headers=A,
        )
        assert kept.status_code == 201, kept.text
        item = kept.json()
        assert (item["kind"], item["text"], item["origin"]) == (
            "preference",
            "Prefers aisle seats",
            "given",
        )
        other = await client.post("/users/priya/memory", json={"text": "Lives in Oslo"}, headers=A)
        assert other.json()["kind"] == "fact"

        mine = (await client.get("/users/priya/memory", headers=A)).json()["items"]
        assert [i["text"] for i in mine] == ["Prefers aisle seats", "Lives in Oslo"]
        assert (await client.get("/users/priya/memory", headers=B)).json()["items"] == []
        # another tenant can neither delete one item nor all of them
        assert (
            await client.delete(f"/users/priya/memory/{item['id']}", headers=B)
        ).status_code == 404
        assert (await client.delete("/users/priya/memory", headers=B)).json()["forgotten"] == 0

        one = await client.delete(f"/users/priya/memory/{item['id']}", headers=A)
        assert one.status_code == 200 and one.json()["forgotten"] == 1
        again = await client.delete(f"/users/priya/memory/{item['id']}", headers=A)
        assert again.status_code == 404 and "no memory item" in again.json()["detail"]
        rest = await client.delete("/users/priya/memory", headers=A)
        assert rest.json() == {"tenant": "tenant-a", "user": "priya", "forgotten": 1}
        assert (await client.get("/users/priya/memory", headers=A)).json()["items"] == []


async def test_bad_items_are_refused_and_nothing_is_stored(
    tmp_path: Path, model: SummaryModel
) -> None:
    async with running(make_settings(tmp_path), model) as api:
        for body in ({"text": "   "}, {"text": "x", "kind": "rumour"}, {"text": "x", "extra": 1}):
            answer = await api.client.post("/users/priya/memory", json=body)
            assert answer.status_code in (400, 422), (body, answer.text)
        too_long = await api.client.post("/users/priya/memory", json={"text": "x" * 2001})
        assert too_long.status_code == 413 and "max_message_chars" in too_long.json()["detail"]
        assert (await api.client.get("/users/priya/memory")).json()["items"] == []


async def test_a_chat_shows_its_facts_cost_and_user_part(
    tmp_path: Path, model: SummaryModel
) -> None:
    async with running(make_settings(tmp_path, keys=KEYS), model) as api:
        client = api.client
        await client.post("/chats", json={"id": "trip", "user": "priya"}, headers=A)
        said = [
            {"role": "user", "content": "I am vegetarian and my sister Ana lives in Porto."},
            {"role": "assistant", "content": "Noted."},
        ]
        await client.post("/chats/trip/messages", json={"messages": said}, headers=A)
        for number in range(14):  # longer than the budget: the context is layered
            await client.post(
                "/chats/trip/messages", json={"messages": exchange(number)}, headers=A
            )
        await client.post("/users/priya/memory", json={"text": "Prefers trains"}, headers=A)
        await client.post("/chats/trip/summarize", headers=A)
        await api.settle()

        facts = await client.get("/chats/trip/facts", headers=A)
        texts = [fact["text"] for fact in facts.json()["items"]]
        assert any("vegetarian" in text for text in texts), texts
        diet = next(fact for fact in facts.json()["items"] if "vegetarian" in fact["text"])
        assert diet["sequences"] == [1]  # the message that said it
        assert (await client.get("/chats/trip/facts", headers=B)).status_code == 404

        chat = (await client.get("/chats/trip", headers=A)).json()
        assert chat["summary_calls"] == model.calls >= 1
        assert chat["summary_input_tokens"] > 0 and chat["summary_output_tokens"] > 0
        assert (chat["summary_failures"], chat["retry_at"]) == (0, None)
        assert chat["title_source"] in ("generated", None)

        context = (
            await client.post("/chats/trip/context", json={"query": "Ana?"}, headers=A)
        ).json()
        kinds = [part["kind"] for part in context["parts"]]
        assert kinds == ["facts", "user", "summary", "verbatim"], kinds
        assert [fact["text"] for fact in context["user_facts"]] == ["Prefers trains"]
        shown = context["parts"][0]["text"].count("\n- ")
        assert shown >= 1 and shown + context["dropped_facts"] == len(texts)  # the cut is told
