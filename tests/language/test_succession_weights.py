"""The shipped succession weights are what bench/fit_succession.py makes of its data."""

from __future__ import annotations

import importlib.util
import json
import sys
from importlib import resources
from pathlib import Path

import pytest

from longtalk.language.succession import DIMENSION, WEIGHTS_FILE

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "fit_succession.py"
DATA = Path("/work/shared/data/locomo/locomo_dev.json")


def shipped() -> dict[str, object]:
    text = resources.files("longtalk.data").joinpath(WEIGHTS_FILE).read_text("utf-8")
    loaded: dict[str, object] = json.loads(text)
    return loaded


def test_the_shipped_weights_fit_the_model() -> None:
    model = shipped()
    assert model["dimension"] == DIMENSION
    assert len(model["weights"]) == DIMENSION  # type: ignore[arg-type]
    assert 0.3 <= float(model["threshold"]) <= 0.95  # type: ignore[arg-type]


@pytest.mark.timeout(900)
def test_the_script_reproduces_the_shipped_weights() -> None:
    if not DATA.exists():
        pytest.fail(f"the LoCoMo dev file is missing: {DATA}")
    spec = importlib.util.spec_from_file_location("fit_succession_bench", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    assert module.fit(DATA) == shipped()
