"""The shipped salience weights are exactly what bench/fit_salience.py makes of the data."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from bench_loader import load_bench

from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.language.salience import SURFACE, load_model

DATA = Path("/work/shared/data/locomo/locomo_dev.json")
SHIPPED = Path(__file__).resolve().parents[2] / "src" / "longtalk" / "data" / "salience.json"


def test_the_script_reproduces_the_shipped_weights() -> None:
    if not DATA.exists():
        pytest.fail(f"the LoCoMo dev file is missing: {DATA}")
    fit = load_bench("fit_salience")
    embedder = MiniLMEmbedder()
    weights, bias = fit.fit(fit.labelled(DATA, fit.TRAIN, embedder))
    written = json.loads(fit.weights_document(weights, bias, embedder.model_id))
    shipped = json.loads(SHIPPED.read_text(encoding="utf-8"))
    assert written["surface"] == shipped["surface"] == list(SURFACE)
    assert written["embedding_model"] == shipped["embedding_model"]
    np.testing.assert_allclose(written["weights"], shipped["weights"], atol=1e-4)
    assert written["bias"] == pytest.approx(shipped["bias"], abs=1e-4)


def test_what_happened_outranks_small_talk() -> None:
    embedder = MiniLMEmbedder()
    happened = [
        "I lost my job at the bank last week and I'm looking for a new one.",
        "We adopted a puppy named Max on Saturday.",
        "I signed up for a pottery class that starts next month.",
    ]
    small_talk = ["Haha, that's so funny!", "How are you doing?", "Thanks, you too!"]
    scores = load_model().scores([*happened, *small_talk], None, embedder)
    assert scores[: len(happened)].min() > scores[len(happened) :].max()
