"""``import longtalk.client`` stays light: no server, no database driver, no engine."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("fastapi", "sqlalchemy", "numpy", "prometheus_client")
PROBE = (
    "import sys\n"
    "{imports}\n"
    f"heavy = {HEAVY!r}\n"
    "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy"
    " or m.startswith('longtalk.engine')))"
)


def loaded_by(imports: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(imports=imports)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout.strip()


def test_the_client_loads_neither_the_server_nor_the_engine() -> None:
    assert loaded_by("import longtalk.client") == "[]"
    assert loaded_by("from longtalk.client import Client; import longtalk.wire") == "[]"


def test_the_library_still_loads_what_it_names() -> None:
    loaded = loaded_by("from longtalk import Memory")
    assert "longtalk.engine" in loaded  # the names are there, loaded on first use


def test_the_client_speaks_to_the_servers_port() -> None:
    from longtalk.client import DEFAULT_URL
    from longtalk.config import ServiceConfig

    assert DEFAULT_URL.endswith(f":{ServiceConfig().port}")
