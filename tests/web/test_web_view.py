"""The web view in a real headless Chromium (Debian's), driven by Playwright.

Messages are posted through the API; the "Summarising…" indicator must follow the real
event stream (on while the job runs, off when it ends, an error state when it fails) and
the summary cards must show the right episode ranges.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Browser, Page, async_playwright
from service_harness import Harness, SummaryModel, exchange, make_settings, running

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 10_000


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=FLAGS
        )
        yield browser
        await browser.close()


async def post(client: httpx.AsyncClient, chat: str, *numbers: int) -> None:
    messages = [message for number in numbers for message in exchange(number)]
    response = await client.post(f"/chats/{chat}/messages", json={"messages": messages})
    assert response.status_code == 201


async def open_chat(browser: Browser, api: Harness, chat: str) -> Page:
    page = await browser.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    await page.goto(f"{api.base_url}/ui/#/chats/{chat}")
    await page.wait_for_selector("body[data-events='open']")
    return page


async def test_indicator_follows_the_event_stream(
    tmp_path: Path, model: SummaryModel, browser: Browser
) -> None:
    settings = make_settings(tmp_path, summary_retry_seconds=60, summary_retry_max_seconds=60)
    async with running(settings, model, transport="uvicorn") as api:
        await api.client.post("/chats", json={"id": "web", "title": "Lisbon trip"})
        await post(api.client, "web", 0)
        page = await open_chat(browser, api, "web")
        assert await page.locator(".message").count() == 2
        assert await page.locator("#chat-title").inner_text() == "Lisbon trip"
        assert await page.locator("#summarising").is_hidden()
        assert "No summary yet" in await page.locator("#summary-cards").inner_text()

        model.hold()
        await post(api.client, "web", 1, 2)  # one write: episodes 1-2 leave the window
        await page.wait_for_selector("#summarising", state="visible")
        assert await page.get_attribute("body", "data-summary-state") == "summarizing"
        await page.wait_for_selector(".message[data-sequence='6']")  # live, before the summary
        assert await page.locator("#message-count").inner_text() == "(6)"

        model.release()
        await page.wait_for_selector("#summarising", state="hidden")
        card = page.locator(".summary-card")
        await card.first.wait_for()
        assert await card.count() == 1
        assert await card.first.get_attribute("data-range") == "1-2"
        assert await card.first.locator("h3").inner_text() == "Episodes 1–2"
        structured = await page.locator("#structured").inner_text()
        for expected in (
            "Topics",
            "trip planning",
            "Entities",
            "Lisbon",
            "Decisions",
            "Open questions",
            "Preferences",
            "quiet neighbourhoods",
        ):
            assert expected in structured
        assert await page.locator(".message").count() == 6

        model.failures = 1
        await post(api.client, "web", 3)
        error = page.locator("#summary-error")
        await error.wait_for(state="visible")
        assert "model is down" in await error.inner_text()
        assert await page.locator("#summarising").is_hidden()
        shot = tmp_path / "web-view.png"
        await page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000

        await page.goto(f"{api.base_url}/ui/#/")
        row = page.locator("tr[data-chat-id='web']")
        await row.wait_for()
        assert "failed" in await row.inner_text()
        await page.close()


async def test_the_page_asks_for_a_key(
    tmp_path: Path, model: SummaryModel, browser: Browser
) -> None:
    settings = make_settings(tmp_path, keys={"key-a": "tenant-a"})
    async with running(settings, model, transport="uvicorn") as api:
        headers = {"X-API-Key": "key-a"}
        await api.client.post("/chats", json={"id": "keyed", "title": "Keyed"}, headers=headers)
        page = await browser.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        await page.goto(f"{api.base_url}/ui/#/chats/keyed")
        await page.wait_for_selector("#key-form", state="visible")
        await page.fill("#api-key", "key-a")
        await page.click("#key-form button")
        await page.wait_for_selector("body[data-events='open']")
        assert await page.locator("#chat-title").inner_text() == "Keyed"
        await page.close()
