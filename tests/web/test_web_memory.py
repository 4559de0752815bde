"""The memory made visible, in real Chromium against the real service (recall with MiniLM).

The context panel lists each recalled turn (sequence, date, score) and marks it in the
message list; a stacked bar shows the layers against the budget; the durable facts, the
user's memory and the summary costs are shown; messages come newest first, a page at a
time; the chat list shows each chat's id and user; all of it usable 390 px wide.
Screenshots are written next to the test's temp files (``--basetemp`` to keep them).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, Page, Route, async_playwright
from service_harness import uvicorn_server

from longtalk.cli.serving import demo_view, load_demo
from longtalk.config import Settings
from longtalk.factory import open_memory
from longtalk.service import Service, create_app
from longtalk.storage.user_memory import UserFact, user_memory_for
from longtalk.tools.demo import DEMO_BUDGET

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-sync"]
TIMEOUT_MS = 15_000
PAGE = 50
EXCHANGES = 60  # 120 messages: more than two pages
QUERY = "Which food allergy does Tom have?"
START = datetime(2026, 3, 2, 18, 10, tzinfo=UTC)


def settings(tmp_path: Path) -> Settings:
    return Settings.model_validate(
        {
            "storage": {"sqlite_path": str(tmp_path / "longtalk.db")},
            "vectors": {"url": f"qdrant-edge:{tmp_path / 'vectors'}", "embedder": "minilm"},
            "supervisor": {
                "memory": {
                    "strategy": "rag_augmented",
                    "summary_recent_turns": 2,
                    "summary_trigger_tokens": 300,
                    "context_max_tokens": 1200,
                }
            },
        }
    )


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=FLAGS
        )
        yield browser
        await browser.close()


def talk(number: int) -> list[dict[str, Any]]:
    """One exchange; the third says the allergy recall should find."""
    said = (START + timedelta(hours=7 * number)).isoformat()
    question = f"Day {number}: what should we see in Lisbon, maybe tram {number}?"
    answer = f"On day {number} take tram 28 to Alfama and walk down to the river."
    if number == 2:
        question = "By the way, Tom is allergic to peanuts, so no satay sauces please."
        answer = "Noted: a peanut allergy for Tom. I will flag satay and peanut sauces."
    return [
        {"role": "user", "content": question, "name": "Maya", "timestamp": said},
        {"role": "assistant", "content": answer, "timestamp": said},
    ]


@asynccontextmanager
async def served(tmp_path: Path) -> AsyncIterator[tuple[str, httpx.AsyncClient, Service]]:
    config = settings(tmp_path)
    async with open_memory(config) as engine:
        app = create_app(config, engine=engine)
        async with (
            uvicorn_server(app) as base_url,
            httpx.AsyncClient(base_url=base_url, timeout=30) as client,
        ):
            await seed(client, app.state.service)
            yield base_url, client, app.state.service


async def seed(client: httpx.AsyncClient, service: Service) -> None:
    await client.post("/chats", json={"id": "trip", "user": "maya", "title": "Portugal"})
    await client.post("/chats", json={"id": "other", "title": "Another chat"})
    for first in range(0, EXCHANGES, 10):
        batch = [m for n in range(first, first + 10) for m in talk(n)]
        response = await client.post("/chats/trip/messages", json={"messages": batch})
        assert response.status_code == 201, response.text
    await service.settle()
    users = user_memory_for(service.engine.storage)
    await users.add("default", "maya", [UserFact("profile", "Maya lives in Berlin.")])
    derived = UserFact("preference", "prefers quiet streets", "derived", "trip", (1, 4))
    await users.replace_derived("default", "maya", "trip", [derived])


async def new_page(browser: Browser, width: int) -> Page:
    page = await browser.new_page(viewport={"width": width, "height": 844})
    page.set_default_timeout(TIMEOUT_MS)
    return page


async def overflow_px(page: Page) -> int:
    script = "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    return int(await page.evaluate(script))


async def sequences(page: Page) -> list[int]:
    shown: list[int] = await page.locator("#messages .message").evaluate_all(
        "items => items.map(item => Number(item.dataset.sequence))"
    )
    return shown


async def ask(page: Page, query: str) -> None:
    await page.fill("#context-query", query)
    await page.click("#context-form button")
    await page.locator("#recalled-list li").first.wait_for()


def recalled_part(context: dict[str, Any]) -> dict[str, Any]:
    return next(part for part in context["parts"] if part["kind"] == "recalled")


async def test_recalled_turns_are_listed_marked_and_revealed(
    tmp_path: Path, browser: Browser
) -> None:
    async with served(tmp_path) as (base_url, client, _):
        context = (await client.post("/chats/trip/context", json={"query": QUERY})).json()
        recalled = recalled_part(context)
        page = await new_page(browser, 1280)
        await page.goto(f"{base_url}/ui/#/chats/trip")
        await page.wait_for_selector("body[data-events='open']")

        assert await sequences(page) == list(range(2 * EXCHANGES, 2 * EXCHANGES - PAGE, -1))
        assert await page.locator("#message-count").inner_text() == f"({2 * EXCHANGES})"
        assert "71–120 of 120" in await page.locator("#message-range").inner_text()
        facts = (await client.get("/chats/trip/facts")).json()["items"]
        await page.locator("#facts-panel").wait_for(state="visible")  # the route answers
        assert await page.locator("#facts li.fact").count() == len(facts)
        if not facts:
            assert "No durable facts yet." in await page.locator("#facts").inner_text()
        chat = (await client.get("/chats/trip")).json()
        await page.locator("#cost-panel").wait_for(state="visible")  # GET /chats/{id} reports it
        calls = page.locator("#summary-cost [data-field='summary_calls']")
        assert await calls.inner_text() == str(chat["summary_calls"])
        header = await page.locator("#chat-meta").inner_text()
        assert "trip" in header and "user maya" in header

        await ask(page, QUERY)
        entries = page.locator("#recalled-list .recalled-turn")
        listed = await entries.evaluate_all("links => links.map(link => link.dataset.sequence)")
        by_score = sorted(zip(recalled["scores"], recalled["sequences"], strict=True), reverse=True)
        assert [int(s) for s in listed] == [sequence for _, sequence in by_score]
        score, top = by_score[0]
        first = entries.first
        assert await first.locator(".seq").inner_text() == f"#{top}"
        assert await first.locator(".score").inner_text() == f"score {score:.2f}"
        assert "2026" in await first.locator(".date").inner_text()
        assert top in (5, 6)  # the allergy, on the third page: not loaded yet
        assert await page.locator(f"#messages [data-sequence='{top}']").count() == 0

        await first.click()
        message = page.locator(f"#messages .message[data-sequence='{top}']")
        await message.wait_for()
        assert "peanut" in await message.inner_text()
        assert await message.evaluate("node => node.classList.contains('recalled')")
        assert await message.locator(".badge.recall").inner_text() == f"recalled · {score:.2f}"
        assert await message.is_visible()
        window = [s for p in context["parts"] if p["kind"] == "verbatim" for s in p["sequences"]]
        newest = page.locator(f"#messages .message[data-sequence='{window[-1]}']")
        assert await newest.evaluate("node => node.classList.contains('in-window')")
        await page.screenshot(path=str(tmp_path / "recalled-desktop.png"))  # what one sees
        await page.close()


async def test_the_layers_against_the_budget(tmp_path: Path, browser: Browser) -> None:
    async with served(tmp_path) as (base_url, client, _):
        context = (await client.post("/chats/trip/context", json={"query": QUERY})).json()
        page = await new_page(browser, 1280)
        await page.goto(f"{base_url}/ui/#/chats/trip")
        await page.wait_for_selector("body[data-events='open']")
        await ask(page, QUERY)

        kinds = await page.locator("#context-bar .segment").evaluate_all(
            "segments => segments.map(segment => segment.dataset.kind)"
        )
        assert kinds == [part["kind"] for part in context["parts"] if part["tokens"] > 0]
        assert {"recalled", "summary", "verbatim"} <= set(kinds)
        bar = await page.locator("#context-bar").bounding_box()
        assert bar is not None
        for part in context["parts"]:
            box = await page.locator(
                f"#context-bar .segment[data-kind='{part['kind']}']"
            ).bounding_box()
            assert box is not None
            expected = bar["width"] * part["tokens"] / context["budget_tokens"]
            assert abs(box["width"] - max(expected, 2)) <= 2, part["kind"]
        legend = await page.locator("#context-legend").inner_text()
        free = context["budget_tokens"] - context["tokens_used"]
        assert "Recalled turns" in legend and f"Unused {free:,}" in legend
        total = await page.locator("#context-total").inner_text()
        assert f"{context['tokens_used']} / {context['budget_tokens']} tokens" in total
        await page.close()


async def test_paging_older_messages(tmp_path: Path, browser: Browser) -> None:
    async with served(tmp_path) as (base_url, client, _):
        page = await new_page(browser, 1280)
        await page.goto(f"{base_url}/ui/#/chats/trip")
        await page.wait_for_selector("body[data-events='open']")
        older = page.locator("#older-messages")
        assert await older.inner_text() == "Older messages (70 more)"
        await older.click()
        await page.locator("#messages [data-sequence='21']").wait_for()
        assert await sequences(page) == list(range(120, 20, -1))
        await older.click()
        await page.locator("#messages [data-sequence='1']").wait_for()
        assert await sequences(page) == list(range(120, 0, -1))
        assert await older.is_hidden()

        later = [m for n in (90, 91) for m in talk(n)]
        response = await client.post("/chats/trip/messages", json={"messages": later})
        assert response.status_code == 201
        await page.locator("#messages .message[data-sequence='124']").wait_for()
        assert (await sequences(page))[:5] == [124, 123, 122, 121, 120]  # live, on top
        assert await page.locator("#message-count").inner_text() == "(124)"
        await page.close()


async def fulfill_with(route: Route, extra: dict[str, Any] | list[Any]) -> None:
    """The real answer with ``extra`` fields, or ``extra`` itself for a missing route."""
    response = await route.fetch()
    if isinstance(extra, dict) and response.status == 200:
        body = {**await response.json(), **extra}
    else:
        body = extra
    await route.fulfill(status=200, content_type="application/json", body=json.dumps(body))


FACTS = {
    "chat_id": "trip",
    "items": [
        {
            "kind": "constraint",
            "subject": "allergy",
            "holder": "Tom",
            "text": "Tom is allergic to peanuts.",
            "source": "offline",
            "sequences": [5],
            "said_at": "2026-03-02T18:10:00+00:00",
        },
        {
            "kind": "preference",
            "subject": "streets",
            "holder": "Maya",
            "text": "Maya prefers quiet streets.",
            "source": "summary",
            "sequences": [9, 11],
        },
    ],
}
COSTS = {
    "summary_calls": 12,
    "summary_input_tokens": 34500,
    "summary_output_tokens": 2100,
    "summary_failures": 1,
    "retry_at": "2026-11-25T10:00:00Z",
}


@pytest.mark.parametrize("width", [390, 1280])
async def test_facts_user_memory_and_costs(tmp_path: Path, browser: Browser, width: int) -> None:
    async with served(tmp_path) as (base_url, _, _):
        page = await new_page(browser, width)
        # what the server answers once it has these: durable facts and summary costs
        await page.route("**/chats/trip/facts", lambda route: fulfill_with(route, FACTS))
        await page.route("**/chats/trip", lambda route: fulfill_with(route, COSTS))
        await page.goto(f"{base_url}/ui/#/")
        row = page.locator("tr[data-chat-id='trip']")
        await row.wait_for()
        cells = await row.inner_text()
        assert "trip" in cells and "maya" in cells
        assert await row.locator(".chat-id").inner_text() == "trip"
        assert await overflow_px(page) <= 0
        await page.screenshot(path=str(tmp_path / f"list-{width}.png"), full_page=True)

        await page.goto(f"{base_url}/ui/#/chats/trip")
        await page.wait_for_selector("body[data-events='open']")
        facts = page.locator("#facts .fact")
        await facts.first.wait_for()
        assert await facts.count() == 2
        first = await facts.first.inner_text()
        assert "Tom is allergic to peanuts." in first and "constraint" in first and "#5" in first
        await facts.first.locator("a.source").click()  # the message it was said in
        await page.locator("#messages .message[data-sequence='5']").wait_for()

        memory = await page.locator("#user-panel").inner_text()
        assert "Known about maya" in memory
        assert "Profile" in memory and "Maya lives in Berlin." in memory
        assert "stored by the application" in memory
        assert "prefers quiet streets" in memory and "from this chat, messages 1–4" in memory

        cost = page.locator("#summary-cost")
        assert await cost.locator("[data-field='summary_calls']").inner_text() == "12"
        assert await cost.locator("[data-field='summary_input_tokens']").inner_text() == "34,500"
        assert await cost.locator("[data-field='summary_failures']").inner_text() == "1"
        assert "2026" in await cost.locator("[data-field='retry_at']").inner_text()

        await ask(page, QUERY)
        assert await overflow_px(page) <= 0
        await page.screenshot(path=str(tmp_path / f"chat-{width}.png"), full_page=True)
        await page.locator("#context-panel").screenshot(path=str(tmp_path / f"context-{width}.png"))
        await page.locator(".memory").screenshot(path=str(tmp_path / f"memory-{width}.png"))
        await page.close()


OFFLINE_COSTS = {**COSTS, "summary_calls": 7, "summary_input_tokens": 0, "summary_output_tokens": 0}


async def test_offline_summary_calls_say_so_instead_of_zero_tokens(
    tmp_path: Path, browser: Browser
) -> None:
    async with served(tmp_path) as (base_url, _, _):
        page = await new_page(browser, 1280)
        await page.route("**/chats/trip", lambda route: fulfill_with(route, OFFLINE_COSTS))
        await page.goto(f"{base_url}/ui/#/chats/trip")
        await page.locator("#cost-panel").wait_for(state="visible")
        cost = page.locator("#summary-cost")
        assert await cost.locator("[data-field='summary_calls']").inner_text() == "7"
        for field in ("summary_input_tokens", "summary_output_tokens"):
            text = await cost.locator(f"[data-field='{field}']").inner_text()
            assert text == "offline (no model)", field
        await page.close()


LAYER_KINDS = ("facts", "recalled", "summary", "verbatim")


async def test_the_demo_opens_on_every_layer_and_the_budget_control_reassembles(
    tmp_path: Path, browser: Browser
) -> None:
    config = Settings.model_validate(
        {
            "storage": {"sqlite_path": str(tmp_path / "longtalk.db")},
            "vectors": {"url": f"qdrant-edge:{tmp_path / 'vectors'}"},
        }
    )
    async with open_memory(config) as engine:
        await load_demo(engine)  # as `longtalk demo` does, then the link it prints
        app = create_app(config, engine=engine)
        async with uvicorn_server(app) as base_url:
            page = await new_page(browser, 1280)
            await page.goto(f"{base_url}/ui/{demo_view()}")
            await page.locator("#recalled-list li").first.wait_for()
            assert await page.locator("#context-budget").input_value() == str(DEMO_BUDGET)
            total = page.locator("#context-total")
            assert f"/ {DEMO_BUDGET} tokens" in await total.inner_text()
            bar = await page.locator("#context-bar").bounding_box()
            assert bar is not None
            for kind in LAYER_KINDS:  # each layer's bar is drawn
                segment = page.locator(f"#context-bar .segment[data-kind='{kind}']")
                box = await segment.bounding_box()
                assert box is not None and box["width"] >= 2 and box["height"] > 0, kind
                tokens = int(await segment.get_attribute("data-tokens") or 0)
                assert abs(box["width"] - max(bar["width"] * tokens / DEMO_BUDGET, 2)) <= 2, kind
            await page.screenshot(path=str(tmp_path / "demo-layers.png"))

            await page.fill("#context-budget", "4000")
            await page.locator("#context-budget").dispatch_event("change")
            await page.locator("#context-total", has_text="/ 4000 tokens").wait_for()
            await page.close()
