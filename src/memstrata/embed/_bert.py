"""A BERT encoder forward pass in numpy (float32), enough for sentence-transformers models.

No torch and no ONNX Runtime: the weights come from a ``model.safetensors`` file, the
matrix products go to numpy's BLAS. Q, K and V are fused into one product per layer and
the weights are stored pre-transposed and contiguous, so each layer is four GEMMs plus the
two batched attention products.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]

# The feed-forward runs in blocks of rows so its (rows, 1536) activations stay in cache.
_FFN_ROWS = 128

# Abramowitz & Stegun 7.1.26 for erf: |error| < 1.5e-7, below float32 resolution for GELU.
# The coefficients carry GELU's factor 1/2 so that the tail needs no extra pass.
_AS_P = np.float32(0.3275911 * 0.7071067811865476)
_AS_A = tuple(
    np.float32(a * 0.5) for a in (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
)


def gelu_(x: F32) -> F32:
    """Exact (erf) GELU in place on ``x``: ``x * (1 + erf(x / sqrt 2)) / 2``.

    With ``k = (1 - erf(|x| / sqrt 2)) / 2`` the result is ``max(x, 0) - |x| * k``, which
    needs no sign handling; ``k`` is the A&S polynomial times ``exp(-x^2 / 2)``.
    """
    a = np.abs(x)
    t = a * _AS_P
    t += 1.0
    np.reciprocal(t, out=t)
    k = t * _AS_A[4]
    for coef in (_AS_A[3], _AS_A[2], _AS_A[1], _AS_A[0]):
        k += coef
        k *= t
    t = np.multiply(a, a, out=t)
    t *= -0.5
    np.exp(t, out=t)
    k *= t
    k *= a
    np.maximum(x, 0.0, out=x)
    x -= k
    return x


def layer_norm_(x: F32, weight: F32, bias: F32, eps: float) -> F32:
    """Layer normalisation over the last axis, in place on ``x``."""
    x -= x.mean(axis=-1, keepdims=True)
    var = np.einsum("ij,ij->i", x, x)[:, None] / np.float32(x.shape[-1])
    x *= 1.0 / np.sqrt(var + np.float32(eps))
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
    ffn_out_w: F32
    ffn_out_b: F32
    ln2_w: F32
    ln2_b: F32


class BertEncoder:
    """The BERT encoder of a sentence-transformers checkpoint, returning token states."""

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
            ffn_out_w=_f32(w[p + "output.dense.weight"].T),
            ffn_out_b=_f32(w[p + "output.dense.bias"]),
            ln2_w=_f32(w[p + "output.LayerNorm.weight"]),
            ln2_b=_f32(w[p + "output.LayerNorm.bias"]),
        )

    @classmethod
    def from_safetensors(cls, path: Path, config: dict[str, Any]) -> BertEncoder:
        """Load the weights of ``path`` (a ``model.safetensors`` file)."""
        from safetensors.numpy import load_file

        return cls(load_file(str(path)), config)

    def forward(self, ids: npt.NDArray[np.int64], mask: F32) -> F32:
        """Token states (batch, seq, hidden) for padded ``ids`` and a 0/1 ``mask``."""
        batch, seq = ids.shape
        x = self.word[ids.reshape(-1)]
        x += np.tile(self.position[:seq], (batch, 1))
        layer_norm_(x, self.emb_ln_w, self.emb_ln_b, self.eps)
        bias = ((mask - 1.0) * np.float32(1e9))[:, None, None, :] if mask.min() == 0 else None
        for layer in self.layers:
            x = self._block(x, layer, batch, seq, bias)
        return x.reshape(batch, seq, self.hidden)

    def _block(self, x: F32, ly: _Layer, batch: int, seq: int, bias: F32 | None) -> F32:
        heads, hd = self.heads, self.head_dim
        qkv = x @ ly.qkv_w
        qkv += ly.qkv_b
        qkv = qkv.reshape(batch, seq, 3, heads, hd).transpose(2, 0, 3, 1, 4)
        scores = qkv[0] @ qkv[1].transpose(0, 1, 3, 2)
        if bias is not None:
            scores += bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        ctx = (scores @ qkv[2]).transpose(0, 2, 1, 3).reshape(batch * seq, self.hidden)
        att = ctx @ ly.out_w
        att += ly.out_b
        att += x
        h = layer_norm_(att, ly.ln1_w, ly.ln1_b, self.eps)
        out = np.empty_like(h)
        for start in range(0, h.shape[0], _FFN_ROWS):
            rows = slice(start, start + _FFN_ROWS)
            inner = h[rows] @ ly.ffn_in_w
            inner += ly.ffn_in_b
            np.matmul(gelu_(inner), ly.ffn_out_w, out=out[rows])
        out += ly.ffn_out_b
        out += h
        return layer_norm_(out, ly.ln2_w, ly.ln2_b, self.eps)


def _f32(a: Any) -> F32:
    return np.ascontiguousarray(a, dtype=np.float32)
