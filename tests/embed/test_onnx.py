import gc
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from longtalk.embed import _onnx
from longtalk.embed.minilm import BACKEND_ENV, MiniLMEmbedder
from longtalk.errors import UnknownBackendError
from longtalk.tools.datasets.locomo import load_locomo

LOCOMO = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "locomo_dev.json"

# Varied on purpose: one word to past the 256-piece limit, equal and unequal lengths (the
# attention groups), punctuation, digits, accents, CJK, emoji, code, an empty string.
TEXTS = [
    "",
    "ok",
    "Same here.",
    "Sure thing, see you!",
    "Sure, see you then!",
    "I adopted a puppy from the shelter last weekend and named her Biscuit.",
    "We went camping by the lake; the kids painted the sunset while I played the cello.",
    "Caroline said the support group helped her a lot after the move, and she wants to "
    "volunteer there next year, maybe as a counsellor once she has finished her degree.",
    "Meeting moved to 14:30 on 2024-03-07 (room B-12), budget €1,250.",
    "Crème brûlée à la façon de ma grand-mère, très sucrée.",
    "東京で寿司を食べました。とても美味しかったです！",
    "🎉🎉 congrats!!! 🥳",
    "def embed(texts):\n    return model.encode(texts, normalize_embeddings=True)",
    "What did Melanie paint after the camping trip in July?",
    " ".join(f"token{i} about hiking, painting and the garden" for i in range(120)),
]


@pytest.fixture(scope="module")
def backends() -> tuple[MiniLMEmbedder, MiniLMEmbedder]:
    onnx, numpy = MiniLMEmbedder(backend="onnx"), MiniLMEmbedder(backend="numpy")
    assert (onnx.backend, numpy.backend) == ("onnx", "numpy")
    return onnx, numpy


def locomo_turns(count: int) -> list[str]:
    if not LOCOMO.exists():
        return []
    turns = [t.text for conv in load_locomo(LOCOMO, captions=False) for t in conv.turns]
    return list(dict.fromkeys(turns))[:count]


def test_onnx_runtime_is_importable() -> None:
    assert _onnx.available()  # a core dependency: the fast path must be the default
    assert MiniLMEmbedder().backend == "onnx"


def test_onnx_stages_give_the_numpy_vectors(
    backends: tuple[MiniLMEmbedder, MiniLMEmbedder],
) -> None:
    onnx, numpy = backends
    texts = TEXTS + locomo_turns(300)
    a, b = onnx.embed(texts), numpy.embed(texts)
    cosines = (a * b).sum(axis=1)
    assert cosines.min() >= 0.99999
    assert np.abs(a - b).max() < 1e-4
    one_by_one = np.stack([onnx.embed([t])[0] for t in TEXTS])  # query-sized calls too
    assert (one_by_one * b[: len(TEXTS)]).sum(axis=1).min() >= 0.99999
    assert onnx.model_id == numpy.model_id


def test_each_onnx_stage_matches_its_numpy_stage(
    backends: tuple[MiniLMEmbedder, MiniLMEmbedder],
) -> None:
    encoder = backends[0]._model.encoder
    dense = _onnx.OnnxDense(encoder)
    gc.collect()  # the sessions read weight arrays they do not own: they must stay alive
    clutter = [np.full((384, 1536), np.nan, dtype=np.float32) for _ in range(20)]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((37, encoder.hidden)).astype(np.float32)
    ctx = rng.standard_normal((37, encoder.hidden)).astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        for got, want in zip(dense.first(x.copy()), encoder.first(x.copy()), strict=True):
            assert np.abs(got - want).max() < 1e-4
        last = len(encoder.layers) - 1
        for index in (0, last):
            got_x, got_qkv = dense.after(index, ctx, x)
            want_x, want_qkv = encoder.after(index, ctx, x)
            assert np.abs(got_x - want_x).max() < 1e-4
            if index == last:
                assert got_qkv is None and want_qkv is None
            else:
                assert got_qkv is not None and want_qkv is not None
                assert np.abs(got_qkv - want_qkv).max() < 1e-4
    assert len(clutter) == 20


def test_backend_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BACKEND_ENV, "numpy")
    assert MiniLMEmbedder().backend == "numpy"
    assert MiniLMEmbedder(backend="onnx").backend == "onnx"  # the argument wins
    monkeypatch.setenv(BACKEND_ENV, "tensorflow")
    with pytest.raises(UnknownBackendError, match="numpy"):
        MiniLMEmbedder()


def run_without_onnxruntime(backend: str) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys; sys.modules['onnxruntime'] = None\n"
        "from longtalk.embed.minilm import MiniLMEmbedder\n"
        "from longtalk.errors import EmbeddingError\n"
        "e = MiniLMEmbedder()\n"
        "try:\n    v = e.embed(['no onnx runtime here'])\n"
        "except EmbeddingError as exc:\n    print('error:', exc)\n"
        "else:\n    print(e.backend, v.shape)\n"
    )
    env = {**os.environ, BACKEND_ENV: backend}
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )


def test_falls_back_to_numpy_without_onnxruntime() -> None:
    done = run_without_onnxruntime("auto")
    assert done.stdout.strip() == "numpy (1, 384)"
    assert "MiniLM runs in numpy: onnxruntime or onnx cannot be imported" in done.stderr
    forced = run_without_onnxruntime("onnx")
    assert forced.stdout.startswith("error: the onnx backend was asked for, but onnxruntime")
