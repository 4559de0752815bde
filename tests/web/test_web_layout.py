"""The web view's layout at phone (390 px) and desktop (1280 px) widths, in real Chromium.

Layout facts are asserted (no horizontal overflow, a bounded summary panel, archived rows
collapsed, hidden views not displayed, the context panel matching the API's context);
screenshots of each page at each width are written next to the test's temp files.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, async_playwright
from service_harness import Harness, SummaryModel, exchange, make_settings, running

from longtalk.storage.base import SummaryRow

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-sync"]
TIMEOUT_MS = 10_000
WIDTHS = {"phone": 390, "desktop": 1280}
SUMMARY_PANEL_MAX_PX = 700
LONG_TEXT = " ".join(
    f"Episode note {n}: the user compared hotels in Alfama and Belém, asked about trams, "
    "and settled on a budget for the coast."
    for n in range(8)
)


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=FLAGS
        )
        yield browser
        await browser.close()


async def seed_long_chat(api: Harness) -> None:
    """A chat with messages, 14 archived rows folded into a digest, and two live rows."""
    await api.client.post("/chats", json={"id": "long", "title": "A very long trip to Lisbon"})
    messages = [m for n in range(6) for m in exchange(n)]
    messages.append({"role": "user", "content": "x" * 300})  # one unbreakable word
    response = await api.client.post("/chats/long/messages", json={"messages": messages})
    assert response.status_code == 201
    await api.settle()
    storage = api.service.engine.storage
    for first in range(14):
        row = SummaryRow(
            "long",
            LONG_TEXT,
            episode_first=first,
            episode_last=first,
            token_count=120,
            kind="archived",
        )
        await storage.create_summary(row)
    await storage.create_summary(
        SummaryRow("long", "Digest: " + LONG_TEXT, episode_first=0, episode_last=13, kind="digest")
    )
    await storage.create_summary(SummaryRow("long", LONG_TEXT, episode_first=14, episode_last=14))


async def new_page(browser: Browser, width: int) -> Page:
    page = await browser.new_page(viewport={"width": width, "height": 844})
    page.set_default_timeout(TIMEOUT_MS)
    return page


async def overflow_px(page: Page) -> int:
    """How far the page is wider than the viewport (0: no horizontal scrolling)."""
    return int(
        await page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
    )


@pytest.mark.parametrize("device", WIDTHS)
async def test_layout_at_phone_and_desktop_widths(
    tmp_path: Path, model: SummaryModel, browser: Browser, device: str
) -> None:
    async with running(make_settings(tmp_path), model, transport="uvicorn") as api:
        await api.client.post("/chats", json={"id": "short", "title": "Short"})
        await seed_long_chat(api)
        page = await new_page(browser, WIDTHS[device])

        await page.goto(f"{api.base_url}/ui/#/")
        await page.locator("tr[data-chat-id='long']").wait_for()
        assert await page.locator("#chat-table tbody tr").count() == 2
        assert await page.locator("#chat-view").is_hidden()
        display = "getComputedStyle(document.querySelector('#chat-view')).display"
        assert await page.evaluate(display) == "none"
        assert await overflow_px(page) <= 0
        await page.screenshot(path=str(tmp_path / f"list-{device}.png"), full_page=True)

        await page.goto(f"{api.base_url}/ui/#/chats/long")
        await page.wait_for_selector("body[data-events='open']")
        await page.locator(".context-part").first.wait_for()
        assert await page.locator("#list-view").is_hidden()
        widths = await page.locator("#context-bar .segment").evaluate_all(
            "segments => segments.map(segment => segment.getBoundingClientRect().width)"
        )
        assert widths and all(width > 0 for width in widths)  # the layers are drawn

        chain = (await api.client.get("/chats/long/summaries")).json()["items"]
        live_rows = sum(row["kind"] != "archived" for row in chain)
        assert await page.locator(".summary-card").count() == len(chain)
        archived = page.locator(".summary-card[data-kind='archived']")
        assert await archived.count() == 14
        assert await archived.evaluate_all("cards => cards.every(card => !card.open)")
        live = page.locator(".summary-card:not([data-kind='archived'])")
        assert await live.evaluate_all("cards => cards.every(card => card.open)")
        assert await archived.first.locator(".badge").inner_text() == "archived"
        count = await page.locator("#summary-count").inner_text()
        assert count == f"({live_rows} live, 14 archived)"
        panel = await page.locator("#summary-cards").bounding_box()
        assert panel is not None and panel["height"] <= SUMMARY_PANEL_MAX_PX

        await archived.first.locator("summary").click()  # a row expands on demand
        assert await archived.first.evaluate("card => card.open")
        panel = await page.locator("#summary-cards").bounding_box()
        assert panel is not None and panel["height"] <= SUMMARY_PANEL_MAX_PX

        assert await overflow_px(page) <= 0
        await page.screenshot(path=str(tmp_path / f"chat-{device}.png"), full_page=True)
        await page.close()


async def test_context_panel_shows_the_assembled_parts(
    tmp_path: Path, model: SummaryModel, browser: Browser
) -> None:
    async with running(make_settings(tmp_path), model, transport="uvicorn") as api:
        await seed_long_chat(api)
        context = (await api.client.post("/chats/long/context", json={})).json()
        page = await new_page(browser, WIDTHS["desktop"])
        await page.goto(f"{api.base_url}/ui/#/chats/long")
        await page.locator(".context-part").first.wait_for()

        parts = page.locator(".context-part")
        kinds = await parts.evaluate_all("parts => parts.map(part => part.dataset.kind)")
        assert kinds == [part["kind"] for part in context["parts"]]
        assert "summary" in kinds and "verbatim" in kinds
        tokens = await parts.evaluate_all("parts => parts.map(part => Number(part.dataset.tokens))")
        assert tokens == [part["tokens"] for part in context["parts"]]
        total = await page.locator("#context-total").inner_text()
        assert f"{context['tokens_used']} / {context['budget_tokens']} tokens" in total
        summary = page.locator(".context-part[data-kind='summary']")
        await summary.locator("summary").click()
        shown = await summary.locator(".part-text").inner_text()
        expected = next(part["text"] for part in context["parts"] if part["kind"] == "summary")
        assert shown.strip() == expected.strip()
        assert "Episode note" in shown

        await api.client.post("/chats/long/messages", json=exchange(99)[0])
        # a locator wait, not wait_for_function: the page's CSP forbids the eval that needs.
        # The new message, not the token count: a full budget can hold as many tokens again
        verbatim = page.locator(".context-part[data-kind='verbatim'] .part-text")
        await verbatim.filter(has_text="Question 99").wait_for(state="attached")
        await page.close()


async def test_favicon(tmp_path: Path, model: SummaryModel, browser: Browser) -> None:
    async with running(make_settings(tmp_path), model, transport="uvicorn") as api:
        for path in ("/ui/favicon.svg", "/favicon.ico"):
            response = await api.client.get(path)
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("image/svg+xml")
            assert response.text.lstrip().startswith("<svg")
        page = await new_page(browser, WIDTHS["desktop"])
        await page.goto(f"{api.base_url}/ui/")
        href = await page.locator("link[rel='icon']").get_attribute("href")
        assert href == "favicon.svg"
        await page.close()
