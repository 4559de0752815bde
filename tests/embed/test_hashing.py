import subprocess
import sys

import numpy as np
import pytest

from longtalk.embed.base import Embedder
from longtalk.embed.hashing import HashingEmbedder


def test_deterministic_across_processes() -> None:
    vector = HashingEmbedder().embed(["The same text, every time."])[0]
    code = (
        "from longtalk.embed.hashing import HashingEmbedder\n"
        "print(list(HashingEmbedder().embed(['The same text, every time.'])[0][:8]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    other = np.array(eval(done.stdout), dtype=np.float32)  # noqa: S307 - our own output
    assert np.array_equal(vector[:8], other)


def test_normalised_and_lexically_meaningful() -> None:
    embedder = HashingEmbedder()
    assert isinstance(embedder, Embedder)
    a, b, c, empty = embedder.embed(
        ["camping trip to the lake", "a camping trip near the lake", "quarterly tax report", ""]
    )
    assert np.isclose(np.linalg.norm(a), 1.0, atol=1e-6)
    assert float(a @ b) > 0.6 > float(a @ c)
    assert not empty.any()


def test_dimension_and_model_id() -> None:
    embedder = HashingEmbedder(64)
    assert embedder.embed(["x"]).shape == (1, 64)
    assert embedder.model_id == "longtalk/hashing-v1-64"
    with pytest.raises(ValueError):
        HashingEmbedder(4)
