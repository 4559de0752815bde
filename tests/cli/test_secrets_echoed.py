"""A model server that echoes the credentials it got never makes the CLI print them.

A real HTTP server on 127.0.0.1 answers every request with a 500 whose body repeats the
request's credentials in every shape an error body may hold them: the headers as JSON, as
header lines (``Authorization: Basic …``, ``Proxy-Authorization``, ``x-api-key``,
``api-key``, ``token``) and the key alone in a sentence. Every command that can reach the
model runs as a real process, once with the key sent as a bearer token and once with the
credentials of the model's URL (which httpx sends as ``Basic``); everything printed, stdout
and stderr, is searched for the key, the URL password and their base64.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from longtalk.testing import free_port

KEY = "plainKEYSECRET77aa"  # no sk- prefix: only its configured value can mask it
URL_PASSWORD = "URLPASS5309x"
SERVICE_KEY = "svc-SERVICESECRET42"
BASIC = base64.b64encode(f"model:{URL_PASSWORD}".encode()).decode()
SECRETS = (KEY, URL_PASSWORD, BASIC, SERVICE_KEY)


class EchoCredentials(BaseHTTPRequestHandler):
    """Answers 500 with the request's credentials repeated in every shape."""

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        auth = self.headers.get("authorization", "")
        secret = auth.split(" ", 1)[-1]
        lines = [
            json.dumps({"error": {"message": "upstream failed", "headers": dict(self.headers)}}),
            f"Authorization: {auth}",
            f"Proxy-Authorization: Basic {BASIC}",
            f"x-api-key: {secret}",
            f"api-key: {secret}",
            f"token: {secret}",
            f'{{"api-key": "{KEY}", "token": "{KEY}"}}',
            f"the key {KEY} is not valid for this model",
        ]
        body = "\n".join(lines).encode()
        self.send_response(500)
        self.send_header("content-type", "text/plain")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, *args: object) -> None:
        """Quiet."""


@pytest.fixture(scope="module")
def echo_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), EchoCredentials)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def write_config(folder: Path, base_url: str) -> Path:
    settings = {
        "supervisor": {
            "memory": {
                "summary_model": "openai:m",
                "summary_trigger_tokens": 20,
                "summary_recent_turns": 1,
            }
        },
        "storage": {"sqlite_path": str(folder / "echo.db")},
        "vectors": {"url": f"qdrant-edge:{folder / 'vectors'}", "embedder": "hashing"},
        "llm": {
            "base_url": base_url,
            "api_key_env": "ECHO_MODEL_KEY",
            "timeout_seconds": 5,
            "max_retries": 0,
        },
        "service": {"api_keys": {SERVICE_KEY: "acme"}, "summary_retry_seconds": 0.2},
    }
    path = folder / "agents.yaml"
    path.write_text(yaml.safe_dump(settings), encoding="utf-8")
    return path


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LONGTALK_", "MEMSTRATA_"))}
    env["ECHO_MODEL_KEY"] = KEY
    return env


def longtalk(*args: str | Path, stdin: str = "") -> str:
    command = [sys.executable, "-m", "longtalk.cli", *map(str, args)]
    done = subprocess.run(
        command,
        input=stdin,
        capture_output=True,
        text=True,
        env=environment(),
        timeout=180,
        check=False,
    )
    return f"$ longtalk {' '.join(map(str, args))} -> {done.returncode}\n{done.stdout}{done.stderr}"


def talk_file(folder: Path) -> Path:
    path = folder / "talk.jsonl"
    with path.open("w", encoding="utf-8") as sink:
        for number in range(24):
            role = "user" if number % 2 == 0 else "assistant"
            content = f"Message {number}: we fly to Lisbon on Friday and stay in Alfama."
            sink.write(json.dumps({"role": role, "content": content}) + "\n")
    return path


def serve(config: Path, folder: Path) -> str:
    """``longtalk serve`` taking turns while its model fails; its whole log."""
    port = free_port()
    command = [sys.executable, "-m", "longtalk.cli", "serve", "-c", str(config)]
    command += ["--port", str(port), "--log-level", "info"]
    log = folder / "serve.log"
    headers = {"Authorization": f"Bearer {SERVICE_KEY}"}
    with log.open("w") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=sink, env=environment())
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=headers) as client:
                for _ in range(600):
                    assert process.poll() is None, log.read_text()
                    try:
                        client.get("/healthz")
                        break
                    except httpx.TransportError:
                        threading.Event().wait(0.05)
                client.post("/chats", json={"id": "c"})
                for number in range(4):
                    body = {"role": "user", "content": f"Message {number} about Lisbon."}
                    client.post("/chats/c/messages", json=body)
                client.post("/chats/c/summarize")
                client.get("/healthz")
                threading.Event().wait(1.0)
        finally:
            process.terminate()
            process.wait(timeout=30)
    return log.read_text()


def mcp_session(config: Path) -> str:
    """``longtalk mcp`` asked to append and summarize over stdio; all it printed.

    Its input stays open until the last call is answered (a closed input ends the session).
    """
    calls: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2024-11-05",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    for number in range(6):
        arguments = {"chat_id": "m", "role": "user", "content": f"Message {number} on Lisbon."}
        calls.append(tool_call(10 + number, "append_message", arguments))
    calls.append(tool_call(99, "summarize_chat", {"chat_id": "m"}))
    command = [sys.executable, "-m", "longtalk.cli", "mcp", "-c", str(config)]
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(),
    )
    assert process.stdin is not None and process.stdout is not None
    answers = []
    try:
        for call in calls:
            process.stdin.write(json.dumps(call) + "\n")
            process.stdin.flush()
            if "id" in call:
                answers.append(process.stdout.readline())
    finally:
        out, err = process.communicate(timeout=60)
    assert all('"id"' in answer for answer in answers), answers
    return "".join(answers) + out + err


def tool_call(number: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": number,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


@pytest.mark.parametrize("credentials", ["bearer", "url"])
def test_no_command_prints_what_the_model_server_echoes(
    echo_server: str, credentials: str, tmp_path: Path
) -> None:
    userinfo = f"model:{URL_PASSWORD}@" if credentials == "url" else ""
    config = write_config(tmp_path, f"http://{userinfo}{echo_server}/v1")
    talk = talk_file(tmp_path)
    outputs = [
        longtalk("ingest", talk, "-c", config, "--chat", "talk"),
        longtalk("chat", "live", "-c", config, stdin="Where do we stay in Lisbon?\n\n"),
        longtalk("config", "check", config),
        mcp_session(config),
        serve(config, tmp_path),
    ]
    everything = "\n".join(outputs)
    assert "HTTP 500" in everything and "upstream failed" in everything  # the body was shown
    assert "Authorization: Basic ***" in everything or "Authorization: Bearer ***" in everything
    leaked = [secret for secret in SECRETS if secret in everything]
    assert leaked == [], everything
