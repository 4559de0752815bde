"""A BERT encoder forward pass in numpy (float32), enough for sentence-transformers models.

No torch: the weights come from a ``model.safetensors`` file, and the numpy stages'
matrix products go to numpy's BLAS. Q, K and V are fused into one product per layer and
the weights are stored pre-transposed and contiguous, so each layer is four GEMMs plus the
two batched attention products.

The sequences of a batch are *packed*: their tokens are the rows of one matrix with no
padding, so every GEMM and element-wise pass touches real tokens only. Only attention
needs sequences side by side: it runs per group of sequences of (nearly) equal length,
a plain reshape when the lengths are equal, a small gather with a key mask otherwise.

Everything but attention is a :class:`Dense` stage: the encoder runs its own numpy
stages, or another implementation of the same products (``longtalk.embed._onnx``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]

# The feed-forward runs in blocks of rows so its (rows, 1536) activations stay in cache.
_FFN_ROWS = 256
# An attention group may pad its sequences by this fraction of its real tokens.
_PAD_SLACK = 0.125
# Softmax row sums outside this range send a group to the max-subtracting softmax.
_SUM_MIN, _SUM_MAX = np.float32(1e-30), np.float32(1e30)

# GELU's tanh form: x * sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)). Its error against the
# erf form is < 5e-4 per activation; the pooled vectors keep cosine > 0.99999 with the
# erf model on real text, at a third of the element-wise passes.
_G1 = np.float32(-2.0 * np.sqrt(2.0 / np.pi))
_G3 = np.float32(-2.0 * np.sqrt(2.0 / np.pi) * 0.044715)


def gelu2_(x: F32) -> F32:
    """Twice GELU (tanh form) in place on ``x``: ``2x / (1 + exp(-2 sqrt(2/pi)(x + c x^3)))``.

    The caller halves the next weight matrix instead. Overflow of ``exp`` for very
    negative ``x`` gives ``x / inf = -0``, the right limit.
    """
    t = np.multiply(x, x)
    t *= _G3
    t += _G1
    t *= x
    np.exp(t, out=t)
    t += 1.0
    x += x
    x /= t
    return x


def layer_norm_(x: F32, weight: F32, bias: F32, eps: float) -> F32:
    """Layer normalisation over the last axis, in place on ``x``."""
    x -= x.mean(axis=-1, keepdims=True)
    var = np.einsum("ij,ij->i", x, x)[:, None]
    var *= np.float32(1.0 / x.shape[-1])
    var += np.float32(eps)
    np.sqrt(var, out=var)
    np.reciprocal(var, out=var)
    x *= var
    x *= weight
    x += bias
    return x


@dataclass(frozen=True, slots=True)
class _Layer:
    qkv_w: F32  # (hidden, 3*hidden)
    qkv_b: F32
    out_w: F32
    out_b: F32
    ln1_w: F32
    ln1_b: F32
    ffn_in_w: F32
    ffn_in_b: F32
    ffn_out_w: F32  # pre-scaled by 1/2 (GELU's factor)
    ffn_out_b: F32
    ln2_w: F32
    ln2_b: F32


@dataclass(frozen=True, slots=True)
class _Group:
    """Sequences that attend side by side: packed rows ``start:stop``, ``count`` x ``length``.

    ``gather`` (padded row -> packed row), ``keep`` (padded rows that are real) and ``mask``
    (additive key mask) are set only when the lengths differ.
    """

    start: int
    stop: int
    count: int
    length: int
    gather: I64 | None = None
    keep: I64 | None = None
    mask: F32 | None = None


class Dense(Protocol):
    """The token-wise stages of the forward pass, between the attention steps."""

    def first(self, x: F32) -> tuple[F32, F32]:
        """Embedding layer norm of the summed embeddings ``x``: (states, layer 0's QKV)."""
        ...

    def after(self, index: int, ctx: F32, x: F32) -> tuple[F32, F32 | None]:
        """Rest of layer ``index`` from its attention ``ctx`` and input ``x``.

        Returns the layer's output and the next layer's QKV (None after the last layer).
        """
        ...


class BertEncoder:
    """The BERT encoder of a sentence-transformers checkpoint, returning pooled states.

    It is also the numpy :class:`Dense` implementation.
    """

    def __init__(self, weights: dict[str, Any], config: dict[str, Any]) -> None:
        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.head_dim = self.hidden // self.heads
        self.word = _f32(weights["embeddings.word_embeddings.weight"])
        self.position = _f32(weights["embeddings.position_embeddings.weight"])
        # Single-segment input: the token-type-0 row is folded into the position table.
        self.position = self.position + _f32(weights["embeddings.token_type_embeddings.weight"])[0]
        self.emb_ln_w = _f32(weights["embeddings.LayerNorm.weight"])
        self.emb_ln_b = _f32(weights["embeddings.LayerNorm.bias"])
        count = int(config["num_hidden_layers"])
        self.layers = [self._layer(weights, f"encoder.layer.{i}.") for i in range(count)]

    def _layer(self, w: dict[str, Any], p: str) -> _Layer:
        scale = np.float32(1.0 / np.sqrt(self.head_dim))
        att = p + "attention.self."
        # The 1/sqrt(d) attention scale is folded into the query projection.
        q_w, q_b = w[att + "query.weight"] * scale, w[att + "query.bias"] * scale
        qkv_w = np.concatenate([q_w, w[att + "key.weight"], w[att + "value.weight"]], axis=0)
        qkv_b = np.concatenate([q_b, w[att + "key.bias"], w[att + "value.bias"]])
        return _Layer(
            qkv_w=_f32(qkv_w.T),
            qkv_b=_f32(qkv_b),
            out_w=_f32(w[p + "attention.output.dense.weight"].T),
            out_b=_f32(w[p + "attention.output.dense.bias"]),
            ln1_w=_f32(w[p + "attention.output.LayerNorm.weight"]),
            ln1_b=_f32(w[p + "attention.output.LayerNorm.bias"]),
            ffn_in_w=_f32(w[p + "intermediate.dense.weight"].T),
            ffn_in_b=_f32(w[p + "intermediate.dense.bias"]),
            ffn_out_w=_f32(w[p + "output.dense.weight"].T * np.float32(0.5)),
            ffn_out_b=_f32(w[p + "output.dense.bias"]),
            ln2_w=_f32(w[p + "output.LayerNorm.weight"]),
            ln2_b=_f32(w[p + "output.LayerNorm.bias"]),
        )

    @classmethod
    def from_safetensors(cls, path: Path, config: dict[str, Any]) -> BertEncoder:
        """Load the weights of ``path`` (a ``model.safetensors`` file)."""
        from safetensors.numpy import load_file

        return cls(load_file(str(path)), config)

    def mean_pooled(self, rows: list[I64], dense: Dense | None = None) -> F32:
        """Mean of the final token states of each sequence: (len(rows), hidden).

        ``rows`` are token ids with special tokens, each non-empty; sorting them by length
        lets attention run on fewer, larger groups. ``dense`` runs the stages between the
        attention steps (default: this encoder's numpy ones).
        """
        stages = self if dense is None else dense
        lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
        starts = np.zeros(len(rows), dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        x = self.word[np.concatenate(rows)]
        x += self.position[np.concatenate([np.arange(n) for n in lengths])]
        groups = _groups(lengths, starts)
        qkv: F32 | None
        with np.errstate(over="ignore", invalid="ignore"):  # exp overflow is handled
            x, qkv = stages.first(x)
            index = 0
            while qkv is not None:
                ctx = np.empty_like(x)
                for group in groups:
                    self._attend(qkv, group, ctx)
                x, qkv = stages.after(index, ctx, x)
                index += 1
        pooled: F32 = np.add.reduceat(x, starts, axis=0)
        pooled /= lengths[:, None].astype(np.float32)
        return pooled

    def first(self, x: F32) -> tuple[F32, F32]:
        """Numpy :meth:`Dense.first` (normalises ``x`` in place)."""
        layer_norm_(x, self.emb_ln_w, self.emb_ln_b, self.eps)
        return x, self._qkv(x, self.layers[0])

    def after(self, index: int, ctx: F32, x: F32) -> tuple[F32, F32 | None]:
        """Numpy :meth:`Dense.after`."""
        ly = self.layers[index]
        att = ctx @ ly.out_w
        att += ly.out_b
        att += x
        h = layer_norm_(att, ly.ln1_w, ly.ln1_b, self.eps)
        out = np.empty_like(h)
        for start in range(0, h.shape[0], _FFN_ROWS):
            rows = slice(start, start + _FFN_ROWS)
            inner = h[rows] @ ly.ffn_in_w
            inner += ly.ffn_in_b
            np.matmul(gelu2_(inner), ly.ffn_out_w, out=out[rows])
        out += ly.ffn_out_b
        out += h
        x = layer_norm_(out, ly.ln2_w, ly.ln2_b, self.eps)
        following = index + 1 < len(self.layers)
        return x, self._qkv(x, self.layers[index + 1]) if following else None

    @staticmethod
    def _qkv(x: F32, ly: _Layer) -> F32:
        qkv = x @ ly.qkv_w
        qkv += ly.qkv_b
        return qkv

    def _attend(self, qkv: F32, g: _Group, ctx: F32) -> None:
        """Self-attention of one group, written to its packed rows of ``ctx``.

        The softmax skips the usual max subtraction and gets its row sums from the value
        product (a column of ones is appended to V), so the (heads, L, L) scores take one
        pass. Should a row's sum leave [1e-30, 1e30] (logits near float32's exp range),
        the group is redone the textbook way.
        """
        part = qkv[g.start : g.stop] if g.gather is None else qkv[g.gather]
        shape = (g.count, g.length, 3, self.heads, self.head_dim)
        q, k, v = part.reshape(shape).transpose(2, 0, 3, 1, 4)
        v1 = np.empty((*v.shape[:3], self.head_dim + 1), dtype=np.float32)
        v1[..., :-1] = v
        v1[..., -1] = 1.0
        scores = _scores(q, k, g.mask)
        weighted = np.exp(scores, out=scores) @ v1
        sums = weighted[..., -1:]
        if not np.all((sums > _SUM_MIN) & (sums < _SUM_MAX)):
            scores = _scores(q, k, g.mask)
            scores -= scores.max(axis=-1, keepdims=True)
            weighted = np.exp(scores, out=scores) @ v1
            sums = weighted[..., -1:]
        heads = weighted[..., :-1]
        heads /= sums
        rows = heads.transpose(0, 2, 1, 3).reshape(g.count * g.length, self.hidden)
        ctx[g.start : g.stop] = rows if g.keep is None else rows[g.keep]


def _scores(q: F32, k: F32, mask: F32 | None) -> F32:
    scores: F32 = q @ k.transpose(0, 1, 3, 2)
    if mask is not None:
        scores += mask
    return scores


def _groups(lengths: I64, starts: I64) -> list[_Group]:
    """Runs of consecutive sequences whose padding to the run's longest stays small."""
    groups: list[_Group] = []
    first, n = 0, len(lengths)
    while first < n:
        last, longest, real = first + 1, int(lengths[first]), int(lengths[first])
        while last < n:
            grown = max(longest, int(lengths[last]))
            if grown * (last - first + 1) > (real + int(lengths[last])) * (1.0 + _PAD_SLACK):
                break
            longest, real, last = grown, real + int(lengths[last]), last + 1
        groups.append(_group(lengths[first:last], starts[first:last], longest))
        first = last
    return groups


def _group(lengths: I64, starts: I64, longest: int) -> _Group:
    count, start = len(lengths), int(starts[0])
    stop = start + int(lengths.sum())
    if int(lengths.min()) == longest:
        return _Group(start, stop, count, longest)
    offsets = np.arange(longest)
    real = offsets[None, :] < lengths[:, None]  # (count, longest)
    # Padded positions read the sequence's first row; the key mask hides them.
    gather = np.where(real, starts[:, None] + offsets[None, :], starts[:, None])
    mask = np.where(real, np.float32(0.0), np.float32(-1e9)).astype(np.float32)
    return _Group(
        start,
        stop,
        count,
        longest,
        gather=gather.reshape(-1),
        keep=np.flatnonzero(real.reshape(-1)),
        mask=mask[:, None, None, :],
    )


def _f32(a: Any) -> F32:
    return np.ascontiguousarray(a, dtype=np.float32)
