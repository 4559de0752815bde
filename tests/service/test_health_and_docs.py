"""With API keys, ``/healthz`` tells strangers only that it lives; the API docs load nothing
from elsewhere, and are off where a key may be kept."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from service_harness import KEYS, SummaryModel, make_settings, running

A = {"Authorization": "Bearer key-a"}


async def test_healthz_without_a_key_is_only_the_liveness_bit(
    tmp_path: Path, model: SummaryModel
) -> None:
    async with running(make_settings(tmp_path, keys=KEYS), model) as api:
        stranger = await api.client.get("/healthz")
        assert stranger.status_code == 200 and stranger.json() == {"status": "alive"}
        wrong = await api.client.get("/healthz", headers={"Authorization": "Bearer nope"})
        assert wrong.json() == {"status": "alive"}
        keyed = await api.client.get("/healthz", headers=A)
        assert keyed.status_code == 200 and set(keyed.json()["checks"]) >= {"storage", "jobs"}


async def test_concurrent_probes_share_one_run(tmp_path: Path, model: SummaryModel) -> None:
    async with running(make_settings(tmp_path, keys=KEYS), model) as api:
        answers = await asyncio.gather(*(api.client.get("/healthz", headers=A) for _ in range(8)))
        bodies = [answer.json() for answer in answers]
        assert all(body == bodies[0] for body in bodies)
        assert api.service.health_probe is not None and api.service.health_probe.done()


async def test_docs_are_offline_and_off_with_keys(tmp_path: Path, model: SummaryModel) -> None:
    async with running(make_settings(tmp_path), model) as api:
        for path in ("/docs", "/redoc"):
            page = await api.client.get(path)
            assert page.status_code == 200
            sources = re.findall(r'(?:src|href)="([^"]+)"', page.text)
            assert sources and all(source.startswith("/") for source in sources), sources
        script = await api.client.get("/ui/docs.js")
        assert script.status_code == 200 and "/openapi.json" in script.text
    async with running(make_settings(tmp_path / "keyed", keys=KEYS), model) as api:
        for path in ("/docs", "/redoc"):
            assert (await api.client.get(path, headers=A)).status_code == 404
