"""Every code block of the README and of docs/ runs, or is checked, as written.

A block's fence names its kind, and every block has one:

- ``python`` runs. A page's blocks run in order in one namespace, as a reader pastes them
  into one session, in a fresh data directory (``LONGTALK_DATA_DIR``) with every proxy
  pointed at a closed port, so nothing comes from a network; ``openai:`` models are answered
  by ``ChatCompletionsServer``, the OpenAI-wire double, through ``OPENAI_BASE_URL``. A
  ``text output`` block right after one is what it prints, compared line by line.
- ``bash`` / ``sh`` run their ``longtalk`` commands through the CLI, in a directory holding
  the ``chats.jsonl`` the commands read. ``bash no-run`` is for what cannot run here by
  nature (a server that does not return, Docker, an install from an index, a benchmark).
- ``yaml`` is a valid ``agents.yaml``; ``json`` parses; ``text`` is a diagram or output.

integrations.md and compat.md need servers (MCP over stdio, the HTTP service, a scripted
OpenAI Responses server): their own tests run every one of their blocks and check that none
is left out.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re
import shlex
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from typer.testing import CliRunner

from longtalk.cli import app
from longtalk.config import parse_settings
from longtalk.testing.wire import ChatCompletionsServer

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
KINDS = {"python", "bash", "sh", "yaml", "json", "text"}
SHELL = {"bash", "sh"}
OWN_TESTS = {
    "integrations.md": ROOT / "tests" / "integrations" / "test_integrations_doc.py",
    "compat.md": ROOT / "tests" / "compat" / "test_compat_docs.py",
}
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "NO_PROXY": "127.0.0.1,localhost",
}
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```$", re.M | re.S)


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its kind and flags, its text."""

    page: Path
    line: int
    kind: str
    flags: tuple[str, ...]
    code: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        kind, *flags = match.group(1).split() or [""]
        line = text.count("\n", 0, match.start()) + 1
        found.append(Block(page, line, kind, tuple(flags), match.group(2)))
    return found


ALL = [block for page in PAGES for block in blocks(page)]


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def test_every_block_names_a_kind_and_only_shell_blocks_are_skipped() -> None:
    assert len(ALL) >= 30  # the fence pattern still finds the blocks
    assert [b.where for b in ALL if b.kind not in KINDS] == []
    skipped = [b for b in ALL if "no-run" in b.flags]
    assert [b.where for b in skipped if b.kind not in SHELL] == []
    assert {flag for b in ALL for flag in b.flags} <= {"no-run", "output"}
    assert [b.where for b in ALL if "output" in b.flags and b.kind != "text"] == []


@pytest.mark.parametrize("page", list(OWN_TESTS))
def test_pages_with_their_own_tests_have_them(page: str) -> None:
    source = OWN_TESTS[page].read_text(encoding="utf-8")
    assert page in source
    assert any(b.kind == "python" for b in blocks(ROOT / "docs" / page))


@pytest.fixture(scope="module")
def openai_wire() -> Iterator[ChatCompletionsServer]:
    """Where blocks that call ``openai:`` models get their answers: a real HTTP server."""
    server = ChatCompletionsServer().start()
    yield server
    server.stop()


@pytest.fixture
def sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openai_wire: ChatCompletionsServer
) -> Path:
    monkeypatch.setenv("LONGTALK_DATA_DIR", str(tmp_path / "data"))
    for name, value in OFFLINE.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{openai_wire.url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-docs")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def python_pages() -> list[Path]:
    return [
        page
        for page in PAGES
        if page.name not in OWN_TESTS and any(b.kind == "python" for b in blocks(page))
    ]


@pytest.mark.parametrize("page", python_pages(), ids=page_id)
def test_the_python_blocks_run(page: Path, sandbox: Path) -> None:
    namespace: dict[str, Any] = {"__name__": f"docs_{page.stem.replace('-', '_')}"}
    found = blocks(page)
    for index, block in enumerate(found):
        if block.kind != "python":
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block.code, block.where, "exec"), namespace)  # noqa: S102
        shown = found[index + 1] if index + 1 < len(found) else None
        if shown is not None and shown.flags == ("output",):
            assert lines(out.getvalue()) == lines(shown.code), f"{block.where} prints otherwise"


def lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip().splitlines()]


SHELL_BLOCKS = [b for b in ALL if b.kind in SHELL and "no-run" not in b.flags]


def commands(block: Block) -> list[list[str]]:
    found = []
    for line in block.code.splitlines():
        words = shlex.split(line, comments=True)
        if words:
            found.append(words)
    return found


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=lambda b: b.where)
def test_the_shell_blocks_run(block: Block, sandbox: Path) -> None:
    chats = [
        {"chat_id": "trip-to-japan", "role": "user", "content": "Sam is allergic to shellfish."},
        {"chat_id": "trip-to-japan", "role": "assistant", "content": "Noted: no shellfish."},
        {"chat_id": "trip-to-japan", "role": "user", "content": "What can Sam not eat?"},
    ]
    (sandbox / "chats.jsonl").write_text(
        "".join(json.dumps(chat) + "\n" for chat in chats), encoding="utf-8"
    )
    runner = CliRunner()
    for words in commands(block):
        assert words[0] == "longtalk", f"{block.where}: only longtalk commands run here"
        done = runner.invoke(app, words[1:], input="y\n")
        assert done.exit_code == 0, f"{block.where}: {shlex.join(words)}\n{done.output}"


@pytest.mark.parametrize("block", [b for b in ALL if b.kind == "yaml"], ids=lambda b: b.where)
def test_the_yaml_blocks_are_valid_settings(block: Block) -> None:
    parse_settings(yaml.safe_load(block.code))


@pytest.mark.parametrize("block", [b for b in ALL if b.kind == "json"], ids=lambda b: b.where)
def test_the_json_blocks_parse(block: Block) -> None:
    json.loads(block.code)


INTEGRATIONS = ROOT / "docs" / "integrations.md"
EXTRA_OF = {  # what a block imports -> the extra its page tells the reader to install
    "longtalk.integrations.otel": "otel",
    "longtalk.integrations.langchain": "langchain",
    "longtalk.integrations.langgraph": "langgraph",
    "longtalk.integrations.openai_agents": "openai-agents",
    "mcp": "mcp",
}


def imported(code: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def installed_by(requirements: list[str]) -> set[str]:
    """The distributions these requirements install, their dependencies included."""
    seen: set[str] = set()
    todo = [Requirement(text) for text in requirements]
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        if name in seen:
            continue
        seen.add(name)
        for text in metadata.requires(requirement.name) or []:
            needed = Requirement(text)
            if needed.marker is None or needed.marker.evaluate({"extra": ""}):
                todo.append(needed)
    return seen


@pytest.mark.parametrize(
    "block", [b for b in blocks(INTEGRATIONS) if b.kind == "python"], ids=lambda b: b.where
)
def test_each_integration_extra_installs_what_its_example_imports(block: Block) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = imported(block.code)
    extras = {extra for module, extra in EXTRA_OF.items() if module in names}
    requirements = [*project["dependencies"]]
    for extra in extras:
        requirements += project["optional-dependencies"][extra]
    available = installed_by(requirements)
    distributions = metadata.packages_distributions()
    third_party = {
        canonicalize_name(dist)
        for name in names
        if name.split(".")[0] not in sys.stdlib_module_names | {"longtalk"}
        for dist in distributions.get(name.split(".")[0], [name.split(".")[0]])
    }
    assert third_party - available == set(), f"{block.where} with {sorted(extras)}"
