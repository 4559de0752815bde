"""What the service exposes: hosts it answers for, cross-site writes, metrics, headers."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest
from service_harness import KEYS, Harness, SummaryModel, exchange, make_settings, running

from longtalk.service.edge import filter_tenant_series, is_loopback_host
from longtalk.service.logs import RedactKeys

A = {"X-API-Key": "key-a"}
B = {"Authorization": "Bearer key-b"}


@pytest.mark.parametrize(
    ("host", "served"),
    [
        ("localhost", True),
        ("localhost:8765", True),
        ("app.localhost", True),
        ("127.0.0.1:8765", True),
        ("127.5.6.7", True),
        ("[::1]:8765", True),
        ("rebind.attacker.example", False),
        ("rebind.attacker.example:8765", False),
        ("10.0.0.5", False),
        ("localhost.attacker.example", False),
    ],
)
async def test_keyless_mode_answers_only_loopback_hosts(
    tmp_path: Path, model: SummaryModel, host: str, served: bool
) -> None:
    async with running(make_settings(tmp_path), model) as api:
        response = await api.client.get("/chats", headers={"Host": host})
        if served:
            assert response.status_code == 200
        else:
            assert response.status_code == 400 and response.json()["error"] == "bad_host"
            assert "nosniff" == response.headers["x-content-type-options"]


async def test_allowed_hosts_extend_the_loopback_names(tmp_path: Path, model: SummaryModel) -> None:
    settings = make_settings(tmp_path, allowed_hosts=["memory.lan"])
    async with running(settings, model) as api:
        assert (await api.client.get("/chats", headers={"Host": "memory.lan"})).status_code == 200
        assert (await api.client.get("/chats", headers={"Host": "other.lan"})).status_code == 400


async def test_with_keys_any_host_is_served_unless_hosts_are_listed(
    tmp_path: Path, model: SummaryModel
) -> None:
    async with running(make_settings(tmp_path, keys=KEYS), model) as api:
        headers = {"Host": "memory.example.com", **A}
        assert (await api.client.get("/chats", headers=headers)).status_code == 200


def test_loopback_names() -> None:
    assert is_loopback_host("LOCALHOST.") and is_loopback_host("::1")
    assert not is_loopback_host("127.0.0.1.nip.io") and not is_loopback_host("0.0.0.0")


async def test_cross_site_writes_are_refused_and_store_nothing(
    tmp_path: Path, model: SummaryModel
) -> None:
    async with running(make_settings(tmp_path), model) as api:
        chat = (await api.client.post("/chats", json={"id": "c"})).json()["id"]
        form = await api.client.post(
            f"/chats/{chat}/messages",
            content=b'{"role": "user", "content": "planted"}',
            headers={"Content-Type": "text/plain"},
        )
        assert form.status_code == 415 and "application/json" in form.json()["detail"]
        for headers in (
            {"Origin": "http://attacker.example"},
            {"Origin": "null"},
            {"Origin": "http://localhost:9999"},  # another local port is another origin
            {"Sec-Fetch-Site": "cross-site"},
            {"Sec-Fetch-Site": "same-site"},
        ):
            posted = await api.client.post(
                f"/chats/{chat}/messages", json={"role": "user", "content": "x"}, headers=headers
            )
            assert posted.status_code == 403, headers
            assert posted.json()["error"] == "cross_site"
        refused_summarize = await api.client.post(
            f"/chats/{chat}/summarize", headers={"Origin": "http://attacker.example"}
        )
        assert refused_summarize.status_code == 403
        deleted = await api.client.delete(
            f"/chats/{chat}", headers={"Sec-Fetch-Site": "cross-site"}
        )
        assert deleted.status_code == 403
        assert await api.service.engine.storage.list_messages(chat) == []
        same = await api.client.post(
            f"/chats/{chat}/messages",
            json={"role": "user", "content": "mine"},
            headers={"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"},
        )
        assert same.status_code == 201
        read = await api.client.get("/chats", headers={"Sec-Fetch-Site": "cross-site"})
        assert read.status_code == 200  # reading is the same-origin policy's job


async def test_metrics_need_a_key_and_show_only_the_callers_tenant(
    tmp_path: Path, model: SummaryModel
) -> None:
    async with running(make_settings(tmp_path, keys=KEYS), model) as api:
        for headers in (A, B):
            chat = (await api.client.post("/chats", json={}, headers=headers)).json()["id"]
            body = {"messages": exchange(1) + exchange(2)}
            await api.client.post(f"/chats/{chat}/messages", json=body, headers=headers)
            await api.client.post(f"/chats/{chat}/summarize", headers=headers)
        await api.settle()
        anonymous = await api.client.get("/metrics")
        assert anonymous.status_code == 401
        assert "tenant" not in anonymous.text
        as_a = await api.client.get("/metrics", headers=A)
        assert as_a.status_code == 200
        assert 'tenant="tenant-a"' in as_a.text and "tenant-b" not in as_a.text
        assert "longtalk_http_requests_total" in as_a.text
        assert int(as_a.headers["content-length"]) == len(as_a.content)
        as_b = (await api.client.get("/metrics", headers=B)).text
        assert 'tenant="tenant-b"' in as_b and "tenant-a" not in as_b


def test_tenant_series_filter_reads_escaped_labels() -> None:
    text = (
        "# HELP t tokens\n"
        't_total{direction="input",tenant="a\\"b"} 1.0\n'
        't_total{direction="input",tenant="c"} 2.0\n'
        "other_total 3.0\n"
    )
    assert filter_tenant_series(text, 'a"b').splitlines() == [
        "# HELP t tokens",
        't_total{direction="input",tenant="a\\"b"} 1.0',
        "other_total 3.0",
    ]


async def test_security_headers_on_every_answer(api_keyless: Harness) -> None:
    client = api_keyless.client
    for path in ("/ui/", "/ui/app.js", "/chats", "/chats/missing", "/openapi.json"):
        response = await client.get(path)
        assert response.headers["x-content-type-options"] == "nosniff", path
        csp = response.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp, path
        assert response.headers["x-frame-options"] == "DENY"
    docs = await client.get("/docs")  # the package's own page: the strict policy holds
    assert docs.status_code == 200
    assert "script-src 'self'" in docs.headers["content-security-policy"]


@pytest.fixture
async def api_keyless(tmp_path: Path, model: SummaryModel):  # type: ignore[no-untyped-def]
    async with running(make_settings(tmp_path), model) as harness:
        yield harness


async def test_keys_in_the_url_are_refused_and_never_logged(
    tmp_path: Path, model: SummaryModel, capfd: pytest.CaptureFixture[str]
) -> None:
    async with running(make_settings(tmp_path, keys=KEYS), model, transport="uvicorn") as api:
        logging.getLogger("uvicorn.access").setLevel(logging.INFO)
        response = await api.client.get("/chats", params={"api_key": "key-a"})
        events = await api.client.get("/chats/x/events?api_key=key-a&x=1")
        assert response.status_code == 401 and events.status_code == 401
        assert "header" in response.json()["detail"]
    logged = capfd.readouterr().out
    assert "/chats?api_key=***" in logged and "key-a" not in logged


def test_the_access_log_filter_redacts_key_parameters() -> None:
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        "",
        0,
        '%s - "%s %s"',
        ("1.2.3.4", "GET", "/x?a=1&token=s3"),
        None,
    )
    RedactKeys().filter(record)
    assert record.getMessage() == '1.2.3.4 - "GET /x?a=1&token=***"'


async def test_keyed_service_over_real_http(tmp_path: Path, model: SummaryModel) -> None:
    async with running(make_settings(tmp_path, keys=KEYS), model, transport="uvicorn") as api:
        async with httpx.AsyncClient(base_url=api.base_url) as client:
            assert (await client.get("/chats", headers=A)).status_code == 200
