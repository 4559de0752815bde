"""The library loads nothing of the server: checked in a subprocess, in seconds.

The install-route tests check the same in a fresh base install (where the server's packages
are not even there); this one runs in the development environment, where they are, so an
import that would pull them in fails here first.
"""

from __future__ import annotations

import json
import subprocess
import sys

SERVER = ("fastapi", "starlette", "uvicorn", "prometheus_client")
COMMAND_LINE = ("typer", "rich")
PROBE = """
import json, sys
{imports}
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & set({names!r}))))
"""


def loaded_by(imports: str, names: tuple[str, ...]) -> list[str]:
    probe = PROBE.format(imports=imports, names=names)
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    loaded: list[str] = json.loads(done.stdout)
    return loaded


def test_import_longtalk_loads_no_server_and_no_command_line() -> None:
    assert loaded_by("import longtalk", SERVER + COMMAND_LINE) == []


def test_the_library_door_and_its_settings_load_no_server() -> None:
    imports = (
        "from longtalk import AsyncMemory, Memory, Settings, load_settings\n"
        "import longtalk.engine, longtalk.memory.api, longtalk.wire\n"
        "load_settings(environ={'LONGTALK_STORAGE__URL': 'memory:'})"
    )
    assert loaded_by(imports, SERVER) == []


def test_the_command_line_loads_no_server_until_serve() -> None:
    assert loaded_by("import longtalk.cli", SERVER) == []
