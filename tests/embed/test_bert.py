import math

import numpy as np
import pytest

from longtalk.embed import _bert
from longtalk.embed.minilm import MiniLMEmbedder, _chunks

TEXTS = [
    "ok",
    "Sure, see you then!",
    "Same here.",
    "Sure thing, see you!",  # equal lengths form groups that need no padding
    "I adopted a puppy from the shelter last weekend and named her Biscuit.",
    "We went camping by the lake; the kids painted the sunset while I played the cello.",
    "Caroline said the support group helped her a lot after the move, and she wants to "
    "volunteer there next year, maybe as a counsellor once she has finished her degree.",
]


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def reference_embedding(embedder: MiniLMEmbedder, text: str) -> np.ndarray:
    """One unpadded sequence through the textbook BERT in float64, exact erf GELU."""
    model = embedder._model
    enc, ids = model.encoder, np.asarray(model.tokenizer.encode(text).ids)
    erf = np.vectorize(math.erf)

    def norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
        x = x - x.mean(-1, keepdims=True)
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + enc.eps) * w + b

    x = norm(enc.word[ids] + enc.position[: len(ids)], enc.emb_ln_w, enc.emb_ln_b)
    for ly in enc.layers:
        q, k, v = np.split(x @ ly.qkv_w + ly.qkv_b, 3, axis=1)  # q is pre-scaled
        heads = []
        for h in range(enc.heads):
            cols = slice(h * enc.head_dim, (h + 1) * enc.head_dim)
            s = q[:, cols] @ k[:, cols].T
            p = np.exp(s - s.max(-1, keepdims=True))
            heads.append((p / p.sum(-1, keepdims=True)) @ v[:, cols])
        h1 = norm(np.hstack(heads) @ ly.out_w + ly.out_b + x, ly.ln1_w, ly.ln1_b)
        inner = h1 @ ly.ffn_in_w + ly.ffn_in_b
        gelu2 = inner * (1.0 + erf(inner / math.sqrt(2.0)))  # ffn_out_w holds the 1/2
        x = norm(gelu2 @ ly.ffn_out_w + ly.ffn_out_b + h1, ly.ln2_w, ly.ln2_b)
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled)


@pytest.mark.parametrize("backend", ["onnx", "numpy"])
def test_packed_forward_matches_a_float64_reference(embedder: MiniLMEmbedder, backend: str) -> None:
    vectors = MiniLMEmbedder(backend=backend).embed(TEXTS)
    reference = np.stack([reference_embedding(embedder, t) for t in TEXTS])
    cosines = (vectors * reference).sum(axis=1)
    assert cosines.min() > 0.99999
    assert np.abs(vectors - reference).max() < 2e-3


def test_groups_cover_every_sequence_with_little_padding() -> None:
    lengths = np.array([3, 3, 3, 5, 6, 6, 7, 20, 21, 40, 120, 256], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    groups = _bert._groups(lengths, starts)
    assert groups[0].start == 0 and groups[-1].stop == lengths.sum()
    assert all(a.stop == b.start for a, b in zip(groups, groups[1:], strict=False))
    assert sum(g.count for g in groups) == len(lengths)
    for g in groups:
        real = g.stop - g.start
        assert g.count * g.length <= real * (1 + _bert._PAD_SLACK)
        if g.count * g.length == real:
            assert g.gather is None and g.mask is None  # equal lengths: a plain reshape
        else:
            assert g.gather is not None and g.keep is not None and len(g.keep) == real


def test_attention_matches_softmax_even_with_huge_logits(embedder: MiniLMEmbedder) -> None:
    enc = embedder._model.encoder
    lengths = np.array([4, 5, 5, 9], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    rng = np.random.default_rng(0)
    for scale in (1.0, 40.0):  # 40: logits in the thousands, far past exp's range
        qkv = (rng.standard_normal((int(lengths.sum()), 3 * enc.hidden)) * scale).astype(np.float32)
        ctx = np.full((len(qkv), enc.hidden), np.nan, dtype=np.float32)
        with np.errstate(over="ignore", invalid="ignore"):
            for group in _bert._groups(lengths, starts):
                enc._attend(qkv, group, ctx)
        expected = np.empty_like(ctx, dtype=np.float64)
        q, k, v = np.split(qkv.astype(np.float64), 3, axis=1)
        for start, n in zip(starts, lengths, strict=True):
            rows = slice(start, start + n)
            for h in range(enc.heads):
                cols = slice(h * enc.head_dim, (h + 1) * enc.head_dim)
                s = q[rows, cols] @ k[rows, cols].T
                p = np.exp(s - s.max(-1, keepdims=True))
                expected[rows, cols] = (p / p.sum(-1, keepdims=True)) @ v[rows, cols]
        assert np.isfinite(ctx).all()
        assert np.abs(ctx - expected).max() < 1e-4 * scale


def test_the_max_subtracting_softmax_gives_the_same_vectors(
    embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = embedder.embed(TEXTS)
    monkeypatch.setattr(_bert, "_SUM_MAX", np.float32(0.0))  # every group takes the fallback
    assert np.abs(embedder.embed(TEXTS) - fast).max() < 1e-5


def test_gelu_is_close_to_the_erf_form_and_safe_at_the_extremes() -> None:
    x = np.linspace(-12, 12, 20001).astype(np.float32)
    exact = np.array([v * (1 + math.erf(v / math.sqrt(2))) / 2 for v in x.tolist()])
    with np.errstate(over="ignore"):  # as in the forward pass: exp overflows for x << 0
        assert np.abs(_bert.gelu2_(x.copy()) / 2 - exact).max() < 5e-4
        extremes = _bert.gelu2_(np.array([-1e4, -60.0, 0.0, 60.0, 1e4], dtype=np.float32)) / 2
    assert extremes.tolist() == [0.0, 0.0, 0.0, 60.0, 1e4]  # the right limits, no NaN


def test_chunks_split_tokens_evenly_over_the_threads() -> None:
    lengths = sorted(np.random.default_rng(1).integers(3, 120, size=64).tolist())
    for threads, budget in ((1, 2048), (2, 2048), (2, 256), (4, 512)):
        ranges = _chunks(lengths, threads, budget)
        assert ranges[0][0] == 0 and ranges[-1][1] == len(lengths)
        assert all(a[1] == b[0] and a[0] < a[1] for a, b in zip(ranges, ranges[1:], strict=False))
        assert len(ranges) % threads == 0
        sizes = [sum(lengths[lo:hi]) for lo, hi in ranges]
        assert max(sizes) <= max(budget, sum(lengths) / len(ranges)) + max(lengths)
        assert max(sizes) - min(sizes) <= 2 * max(lengths)
    assert _chunks([5], 2, 2048) == [(0, 1)]
    assert _chunks([3, 4, 5, 100], 2, 2048) == [(0, 3), (3, 4)]  # as even as it gets
