"""One gate for every field at every door: the same bad value is refused the same way.

The chat id, the user name, the title and a user-memory item's text, each with values the
gate refuses (a slash, markup, a space, a NUL, a lone surrogate, one character over its
limit), go through every door: the library (``AsyncMemory`` and ``Memory``), HTTP (in
process), the HTTP client, the CLI (``ingest``) and MCP (in process). Every door refuses
with an error naming the field and the rule it broke, never a 5xx or a raw
``UnicodeEncodeError``; and afterwards nothing is stored: no chat, no user-memory item.
Run on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import asyncpg
import httpx
import pytest
import yaml
from mcp import Client as McpClient
from sqlalchemy import make_url
from typer.testing import CliRunner

from longtalk import AsyncMemory, Memory
from longtalk.cli import app as cli_app
from longtalk.client import AsyncClient
from longtalk.config import Settings
from longtalk.errors import InputError, UsageError
from longtalk.mcp import create_server
from longtalk.service import create_app


@dataclass(frozen=True)
class Bad:
    """A value the gate refuses, and what every refusal must say."""

    label: str
    value: str
    says: str


SLASH = Bad("slash", "a/b", "may hold only")
MARKUP = Bad("markup", "<script>x</script>", "may hold only")
SPACE = Bad("space", "sp ace", "may hold only")
NUL = Bad("nul", "ab\x00cd", "NUL")
SURROGATE = Bad("surrogate", "ab\ud800cd", "lone surrogate")
IDENTIFIERS = [SLASH, MARKUP, SPACE, NUL, SURROGATE, Bad("long", "x" * 201, "the limit is 200")]
TITLES = [NUL, SURROGATE, Bad("long", "t" * 501, "the limit is 500")]
TEXTS = [NUL, SURROGATE]
CASES = (
    [("chat_id", bad) for bad in IDENTIFIERS]
    + [("user", bad) for bad in IDENTIFIERS]
    + [("title", bad) for bad in TITLES]
    + [("text", bad) for bad in TEXTS]
)
FIELD_NAMES = {"chat_id": ("chat_id", "id"), "user": ("user", "user_id"), "title": ("title",)}


@pytest.fixture(params=["sqlite", "postgresql"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    storage: dict[str, Any] = {"sqlite_path": str(tmp_path / "gate.db")}
    if request.param == "postgresql":
        dsn = request.getfixturevalue("postgres_dsn")
        database = f"gate_{uuid.uuid4().hex[:10]}"
        asyncio.run(_create_database(dsn, database))
        storage = {"url": make_url(dsn).set(database=database).render_as_string(False)}
    yield Settings.model_validate(
        {
            "storage": storage,
            "vectors": {"url": f"qdrant-edge:{tmp_path / 'vectors'}", "embedder": "hashing"},
        }
    )


async def _create_database(dsn: str, name: str) -> None:
    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()


def chat_args(field: str, bad: Bad) -> dict[str, str]:
    """A chat's id, user and title, with ``field`` bad."""
    args = {"chat_id": "ok-chat", "user": "ok-user", "title": "A trip"}
    args[field] = bad.value
    return args


def assert_refused(message: str, field: str, bad: Bad) -> None:
    assert bad.says in message, message
    assert any(name in message for name in FIELD_NAMES.get(field, (field,))), message
    assert "Traceback" not in message and "UnicodeEncodeError" not in message, message


# -- the doors ------------------------------------------------------------------------------


async def through_async_library(settings: Settings, field: str, bad: Bad) -> str:
    async with AsyncMemory(settings, summarize="off") as memory:
        with pytest.raises(InputError) as refused:
            if field == "text":
                await memory.remember("ok-user", bad.value)
            else:
                args = chat_args(field, bad)
                chat_id = args.pop("chat_id")
                await memory.chat(chat_id, **args)
        if field in ("chat_id", "user"):  # reading and forgetting check the same field
            with pytest.raises(InputError):
                if field == "chat_id":
                    await memory.get(bad.value)
                else:
                    await memory.user_memory(bad.value)
        return str(refused.value)


def through_sync_library(settings: Settings, field: str, bad: Bad) -> str:
    with Memory(settings, summarize="off") as memory, pytest.raises(InputError) as refused:
        if field == "text":
            memory.remember("ok-user", bad.value)
        else:
            args = chat_args(field, bad)
            memory.chat(args.pop("chat_id"), **args)
    return str(refused.value)


@asynccontextmanager
async def in_process(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            yield client


def _json(value: Any) -> str:
    return json.dumps(value)  # escapes a lone surrogate as \\ud800, as any JSON client does


async def through_http(settings: Settings, field: str, bad: Bad) -> str:
    headers = {"content-type": "application/json"}
    async with in_process(settings) as client:
        if field == "text":
            body = _json({"text": bad.value})
            answer = await client.post("/users/ok-user/memory", content=body, headers=headers)
        else:
            args = chat_args(field, bad)
            body = _json({"id": args["chat_id"], "user": args["user"], "title": args["title"]})
            answer = await client.post("/chats", content=body, headers=headers)
        assert answer.status_code in (413, 422), answer.text
        if field in ("chat_id", "user") and "/" not in bad.value:  # the same rule in paths
            segment = "/" + quote(bad.value, safe="", errors="surrogatepass")
            path = f"/chats{segment}/messages" if field == "chat_id" else f"/users{segment}/memory"
            message = _json(
                {"role": "user", "content": "hi"} if field == "chat_id" else {"text": "hi"}
            )
            in_path = await client.post(path, content=message, headers=headers)
            assert in_path.status_code in (413, 422), (path, in_path.text)
            # a path cannot hold a lone surrogate: its UTF-8 bytes arrive as U+FFFD
            assert_refused(in_path.text, field, SPACE if bad is SURROGATE else bad)
        return answer.text


async def through_client(settings: Settings, field: str, bad: Bad) -> str:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app))
        async with AsyncClient("http://localhost", http=http) as memory:
            with pytest.raises(UsageError) as refused:
                if field == "text":
                    await memory.remember("ok-user", bad.value)
                else:
                    args = chat_args(field, bad)
                    await memory.chat(args.pop("chat_id"), **args)
        await http.aclose()
    return str(refused.value)


def through_cli(settings: Settings, field: str, bad: Bad, folder: Path) -> str:
    config = folder / "agents.yaml"
    config.write_text(yaml.safe_dump(settings.model_dump(mode="json")), encoding="utf-8")
    args = chat_args(field, bad)
    export = {
        "chat": {"id": args["chat_id"], "user": args["user"], "title": args["title"]},
        "messages": [{"role": "user", "content": bad.value if field == "text" else "hi"}],
    }
    path = folder / "export.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    done = CliRunner().invoke(cli_app, ["ingest", str(path), "-c", str(config)])
    assert done.exit_code == 2, done.output
    return done.output


async def through_mcp(settings: Settings, field: str, bad: Bad) -> str:
    async with McpClient(create_server(settings)) as client:
        if field == "text":
            arguments = {"user": "ok-user", "text": bad.value}
            result = await client.call_tool("remember", arguments)
        else:
            args = chat_args(field, bad)
            arguments = {**args, "role": "user", "content": "hi"}
            result = await client.call_tool("append_message", arguments)
        assert result.is_error, result
        return " ".join(getattr(part, "text", "") for part in result.content)


async def stored(settings: Settings) -> tuple[int, int]:
    """How many chats and user-memory items are stored (of the default tenant)."""
    async with AsyncMemory(settings, summarize="off") as memory:
        chats = await memory.chats()
        items = await memory.user_memory("ok-user")
        return len(chats), len(items)


@pytest.mark.parametrize(("field", "bad"), CASES, ids=[f"{f}-{b.label}" for f, b in CASES])
def test_every_door_refuses_the_same_and_stores_nothing(
    settings: Settings, field: str, bad: Bad, tmp_path: Path
) -> None:
    refusals = {
        "library": asyncio.run(through_async_library(settings, field, bad)),
        "sync library": through_sync_library(settings, field, bad),
        "http": asyncio.run(through_http(settings, field, bad)),
        "client": asyncio.run(through_client(settings, field, bad)),
        "mcp": asyncio.run(through_mcp(settings, field, bad)),
    }
    if field != "text":  # the CLI keeps no user memory
        refusals["cli"] = through_cli(settings, field, bad, tmp_path)
    for door, message in refusals.items():
        field_named = "text" if field == "text" else field
        assert_refused(message, field_named, bad), door
    assert asyncio.run(stored(settings)) == (0, 0)


def test_the_documented_budget_minimum_is_the_engines() -> None:
    from longtalk.engine import MIN_BUDGET_TOKENS
    from longtalk.wire.fields import MIN_BUDGET

    assert MIN_BUDGET == MIN_BUDGET_TOKENS  # the schema states what the engine refuses
