"""``longtalk serve`` as a real process on 127.0.0.1."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx

from longtalk.testing import free_port


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
        for _ in range(300):
            assert process.poll() is None, process.communicate()
            try:
                if httpx.get(f"{base}/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        created = httpx.post(f"{base}/chats", json={"id": "served"})
        assert created.status_code == 201 and created.json()["tenant"] == "default"
        assert httpx.get(f"{base}/ui/").status_code == 200
    finally:
        process.terminate()
        out, err = process.communicate(timeout=30)
    assert process.returncode in (0, -15), err  # uvicorn re-raises SIGTERM after shutdown
    assert f"http://127.0.0.1:{port}/ui/" in out
    assert "bound to 127.0.0.1 only" in err
