"""``longtalk serve`` as a real process on 127.0.0.1."""

from __future__ import annotations

import http.client
import subprocess
import sys
import time
from pathlib import Path

import httpx

from longtalk.testing import free_port


def wait_until_healthy(process: subprocess.Popen[str], base: str) -> None:
    """Wait (up to ~15 s) until the served ``/healthz`` answers 200; fail if the server exits."""
    for _ in range(300):
        assert process.poll() is None, process.communicate()
        try:
            if httpx.get(f"{base}/healthz").status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.05)


def test_serve_without_keys_binds_localhost(tmp_path: Path) -> None:
    config = tmp_path / "agents.yaml"
    config.write_text(f"storage:\n  sqlite_path: {tmp_path / 'serve.db'}\n", encoding="utf-8")
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "longtalk.cli",
        "serve",
        "--config",
        str(config),
        "--host",
        "0.0.0.0",
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(process, base)
        created = httpx.post(f"{base}/chats", json={"id": "served"})
        assert created.status_code == 201 and created.json()["tenant"] == "default"
        assert httpx.get(f"{base}/ui/").status_code == 200
    finally:
        process.terminate()
        out, err = process.communicate(timeout=30)
    assert process.returncode in (0, -15), err  # uvicorn re-raises SIGTERM after shutdown
    assert f"http://127.0.0.1:{port}/ui/" in out
    assert "bound to 127.0.0.1 only" in err


def get_on(connection: http.client.HTTPConnection) -> int:
    """One GET /healthz on ``connection``'s open socket: its status, the body read whole."""
    connection.request("GET", "/healthz")
    answer = connection.getresponse()
    answer.read()
    return answer.status


def test_an_idle_connection_outlives_the_clients_own_keep_alive(tmp_path: Path) -> None:
    """A server that drops idle connections first makes clients send into closing sockets."""
    config = tmp_path / "agents.yaml"
    config.write_text(f"storage:\n  sqlite_path: {tmp_path / 'serve.db'}\n", encoding="utf-8")
    port = free_port()
    command = [sys.executable, "-m", "longtalk.cli", "serve", "-c", str(config)]
    command += ["--port", str(port), "--log-level", "warning"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until_healthy(process, f"http://127.0.0.1:{port}")
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            assert get_on(connection) == 200
            opened = connection.sock
            time.sleep(6)  # longer than httpx keeps an idle connection (5 s)
            assert get_on(connection) == 200  # a closed socket: RemoteDisconnected
            assert connection.sock is opened  # the same connection, not a new one
        finally:
            connection.close()
    finally:
        process.terminate()
        process.communicate(timeout=30)
