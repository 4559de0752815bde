"""Planted secrets never reach any output or log line.

Every credential a configuration can hold is planted (the PostgreSQL password in
``storage.url``, a Qdrant server's in ``vectors.url``, the summary model's ``user:password@``
and key, the service's API key), then representative commands run as real processes and a
real server takes requests while its model and vector store fail (the errors that quote
URLs). Everything they print, stdout and stderr, is searched for the secrets.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest
import yaml
from sqlalchemy import make_url

from longtalk.testing import free_port

SECRETS = {
    "storage": "PGSECRET7f3a",
    "vectors": "VECSECRET91bc",
    "llm": "LLMSECRET55de",
    "llm_query": "QSECRET0c1d",
    "llm_key": "sk-KEYSECRET77aa",
    "api_key": "svc-APISECRET31",
    "typo": "TYPOSECRET42",
}
API = {"Authorization": f"Bearer {SECRETS['api_key']}"}


async def _create_database(dsn: str, name: str) -> None:
    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()


@pytest.fixture
def config(tmp_path: Path, postgres_dsn: str) -> Iterator[Path]:
    database = f"secrets_{uuid.uuid4().hex[:10]}"
    asyncio.run(_create_database(postgres_dsn, database))
    url = make_url(postgres_dsn).set(database=database, password=SECRETS["storage"])
    closed = free_port()  # nothing listens: the model and the vector store fail
    settings = {
        "supervisor": {
            "memory": {
                "summary_model": "openai:m",
                "summary_trigger_tokens": 20,
                "summary_recent_turns": 1,
            }
        },
        "storage": {"url": url.render_as_string(hide_password=False)},
        "vectors": {
            "url": f"qdrant:http://qdrant:{SECRETS['vectors']}@127.0.0.1:{closed}",
            "embedder": "hashing",
        },
        "llm": {
            "base_url": f"http://model:{SECRETS['llm']}@127.0.0.1:{closed}/v1"
            f"?api_key={SECRETS['llm_query']}",
            "api_key_env": "PLANTED_LLM_KEY",
            "timeout_seconds": 2,
            "max_retries": 0,
        },
        "service": {"api_keys": {SECRETS["api_key"]: "acme"}, "summary_retry_seconds": 0.2},
    }
    path = tmp_path / "agents.yaml"
    path.write_text(yaml.safe_dump(settings), encoding="utf-8")
    yield path


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LONGTALK_", "MEMSTRATA_"))}
    env["PLANTED_LLM_KEY"] = SECRETS["llm_key"]
    return env


def longtalk(*args: str | Path) -> str:
    command = [sys.executable, "-m", "longtalk.cli", *map(str, args)]
    done = subprocess.run(
        command, capture_output=True, text=True, env=environment(), timeout=180, check=False
    )
    return f"$ longtalk {' '.join(map(str, args))} -> {done.returncode}\n{done.stdout}{done.stderr}"


def serve(config: Path, tmp_path: Path) -> str:
    port = free_port()
    command = [sys.executable, "-m", "longtalk.cli", "serve", "-c", str(config)]
    command += ["--port", str(port), "--log-level", "info"]
    log = tmp_path / "serve.log"
    with log.open("w") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=sink, env=environment())
        try:
            exercise(f"http://127.0.0.1:{port}", process)
        finally:
            process.terminate()
            process.wait(timeout=30)
    return log.read_text()


def exercise(base: str, process: subprocess.Popen[bytes]) -> None:
    with httpx.Client(base_url=base, headers=API, timeout=30) as client:
        for _ in range(600):
            assert process.poll() is None, "the server stopped"
            try:
                client.get("/healthz")
                break
            except httpx.TransportError:
                time.sleep(0.05)
        assert client.post("/chats", json={"id": "c"}).status_code == 201
        for number in range(3):
            body = {"role": "user", "content": f"Message {number} about the trip to Lisbon."}
            assert client.post("/chats/c/messages", json=body).status_code == 201
        client.post("/chats/c/summarize")
        client.post("/chats/c/context", json={"query": "Lisbon"})
        health = client.get("/healthz").json()
        assert health["checks"]["llm"]["status"] == "down"
        client.get("/metrics")
        client.get("/chats", params={"api_key": SECRETS["api_key"]})  # refused, and logged
        time.sleep(1.0)  # a retried summary job logs its failure again


def test_no_command_or_server_prints_a_planted_secret(config: Path, tmp_path: Path) -> None:
    talk = tmp_path / "talk.jsonl"
    talk.write_text(
        '{"role": "user", "content": "We fly to Lisbon on Friday and stay in Alfama."}\n'
        '{"role": "assistant", "content": "Noted: Friday, Alfama."}\n',
        encoding="utf-8",
    )
    typo = tmp_path / "typo.yaml"
    typo.write_text(
        f"storage:\n  url: postgress://user:{SECRETS['typo']}@127.0.0.1/db\n", encoding="utf-8"
    )
    outputs = [
        longtalk("config", "check", config),
        longtalk("migrate", "--check", "-c", config),
        longtalk("ingest", talk, "-c", config, "--chat", "talk"),
        longtalk("context", "talk", "-q", "Where do we stay?", "-c", config),
        longtalk("summaries", "talk", "-c", config),
        longtalk("config", "check", typo),
        longtalk("list", "-c", typo),
        serve(config, tmp_path),
    ]
    everything = "\n".join(outputs)
    assert "summar" in everything and "Web view" in everything  # the runs ran
    assert "unreachable" in everything  # ...and failed where they quote URLs
    leaked = {name: secret for name, secret in SECRETS.items() if secret in everything}
    assert leaked == {}, everything
    assert "***" in everything
