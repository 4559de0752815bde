"""The dense stages of :class:`~longtalk.embed._bert.BertEncoder` in ONNX Runtime.

ONNX Runtime's own GEMM kernels (MLAS) pick the CPU's best instruction set at run time,
whatever numpy's BLAS is limited to. Each stage between two attention steps is one small
ONNX graph built in memory from the encoder's numpy weights (the ``onnx`` package; no
export step, no torch, no file): the embedding layer norm and layer 0's QKV product, then
per layer its output projection, residual and layer norm, the feed-forward with GELU
(tanh form, as in numpy), residual and layer norm, and the next layer's QKV product.
Attention and pooling stay in numpy on the packed rows. The stages are token-wise, so
they run in blocks of rows written straight into the output arrays: the activations stay
small and in cache, as in the numpy pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from longtalk.embed._bert import F32, BertEncoder, _Layer

# Rows per session run: as fast as whole chunks, and the (rows, 1536) activations stay
# in cache; whole 2,000-row chunks left the heap ~300 MB larger after bulk calls.
_ROWS = 256
_OPSET = 20  # Gelu (with approximate="tanh") is an ONNX operator since opset 20
_IR_VERSION = 10  # what ONNX Runtime 1.18 reads; newer ``onnx`` would write a newer IR


def available() -> bool:
    """Whether ``onnxruntime`` and ``onnx`` can be imported."""
    try:
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class _Stage:
    session: Any
    # The weights' OrtValues, each holding its numpy array: ONNX Runtime does not take
    # ownership of user-provided initializers, so they live as long as the session.
    weights: list[Any]


class _Graph:
    """An ONNX graph under construction whose weights stay in numpy arrays.

    The graph only declares its weights (as external data) and the session takes them
    from the arrays: no weights are serialised and parsed (70 ms, not 120, to build).
    """

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self.weights: dict[str, F32] = {}

    def weight(self, name: str, value: F32) -> str:
        from onnx import TensorProto

        self.weights[name] = np.ascontiguousarray(value, dtype=np.float32)
        declared = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=value.shape)
        declared.data_location = TensorProto.EXTERNAL
        for key, text in (("location", name), ("offset", "0"), ("length", str(value.nbytes))):
            declared.external_data.add(key=key, value=text)
        self.initializers.append(declared)
        return name

    def node(self, op: str, inputs: list[str], output: str, **attributes: Any) -> str:
        from onnx import helper

        self.nodes.append(helper.make_node(op, inputs, [output], **attributes))
        return output

    def dense(self, x: str, weight: F32, bias: F32, name: str) -> str:
        """``x @ weight + bias`` (ONNX Runtime fuses the pair into one Gemm)."""
        product = self.node("MatMul", [x, self.weight(name + "_w", weight)], name + "_mm")
        return self.node("Add", [product, self.weight(name + "_b", bias)], name)

    def layer_norm(self, x: str, weight: F32, bias: F32, eps: float, name: str) -> str:
        scale, shift = self.weight(name + "_w", weight), self.weight(name + "_b", bias)
        return self.node("LayerNormalization", [x, scale, shift], name, axis=-1, epsilon=eps)

    def stage(self, inputs: dict[str, int], outputs: dict[str, int]) -> _Stage:
        """The graph's session; inputs and outputs are (rows, width) float32 matrices.

        The session runs its kernels in the calling thread (one intra-op thread, no
        spinning).
        """
        import onnxruntime as ort
        from onnx import TensorProto, helper

        def matrices(widths: dict[str, int]) -> list[Any]:
            return [
                helper.make_tensor_value_info(name, TensorProto.FLOAT, ["rows", width])
                for name, width in widths.items()
            ]

        graph = helper.make_graph(
            self.nodes, "stage", matrices(inputs), matrices(outputs), self.initializers
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", _OPSET)])
        model.ir_version = _IR_VERSION
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # Row counts vary from call to call: no per-session arena holding on to its largest
        # activations, and no memory pattern per shape.
        options.enable_cpu_mem_arena = False
        options.enable_mem_pattern = False
        options.log_severity_level = 3  # errors only
        values = [ort.OrtValue.ortvalue_from_numpy(w) for w in self.weights.values()]
        options.add_external_initializers(list(self.weights), values)
        session = ort.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
        return _Stage(session, values)


class OnnxDense:
    """ONNX Runtime sessions for the :class:`~longtalk.embed._bert.Dense` stages.

    The embedder parallelises over chunks itself, as with numpy; sessions are thread-safe
    and release the GIL, so chunks run in parallel.
    """

    def __init__(self, encoder: BertEncoder) -> None:
        layers = encoder.layers
        self._first = _first_stage(encoder)
        self._after = [
            _after_stage(ly, layers[i + 1] if i + 1 < len(layers) else None, encoder.eps)
            for i, ly in enumerate(layers)
        ]

    def first(self, x: F32) -> tuple[F32, F32]:
        """:meth:`Dense.first <longtalk.embed._bert.Dense.first>` in ONNX Runtime."""
        states, qkv = _run(self._first, {"x": x})
        return states, qkv

    def after(self, index: int, ctx: F32, x: F32) -> tuple[F32, F32 | None]:
        """:meth:`Dense.after <longtalk.embed._bert.Dense.after>` in ONNX Runtime."""
        outputs = _run(self._after[index], {"ctx": ctx, "x": x})
        return outputs[0], outputs[1] if len(outputs) > 1 else None


def _first_stage(encoder: BertEncoder) -> _Stage:
    g = _Graph()
    states = g.layer_norm("x", encoder.emb_ln_w, encoder.emb_ln_b, encoder.eps, "states")
    ly = encoder.layers[0]
    g.dense(states, ly.qkv_w, ly.qkv_b, "qkv")
    return g.stage({"x": encoder.hidden}, {"states": encoder.hidden, "qkv": len(ly.qkv_b)})


def _after_stage(ly: _Layer, following: _Layer | None, eps: float) -> _Stage:
    g = _Graph()
    projected = g.dense("ctx", ly.out_w, ly.out_b, "att")
    h = g.layer_norm(g.node("Add", [projected, "x"], "att_res"), ly.ln1_w, ly.ln1_b, eps, "h")
    inner = g.dense(h, ly.ffn_in_w, ly.ffn_in_b, "inner")
    gelu = g.node("Gelu", [inner], "gelu", approximate="tanh")
    # numpy's ffn_out_w holds GELU's factor 1/2; Gelu applies it itself (x2 is exact).
    out = g.dense(gelu, ly.ffn_out_w * np.float32(2.0), ly.ffn_out_b, "ffn")
    states = g.layer_norm(g.node("Add", [out, h], "ffn_res"), ly.ln2_w, ly.ln2_b, eps, "states")
    hidden = len(ly.out_b)
    outputs = {"states": hidden}
    if following is not None:
        g.dense(states, following.qkv_w, following.qkv_b, "qkv")
        outputs["qkv"] = len(following.qkv_b)
    return g.stage({"ctx": hidden, "x": hidden}, outputs)


def _run(stage: _Stage, inputs: dict[str, F32]) -> list[F32]:
    """Run ``stage`` on blocks of ``_ROWS`` rows, writing into fresh output arrays."""
    session, rows = stage.session, len(next(iter(inputs.values())))
    outputs = {
        o.name: np.empty((rows, int(o.shape[1])), dtype=np.float32) for o in session.get_outputs()
    }
    for start in range(0, rows, _ROWS):
        block = slice(start, start + _ROWS)
        binding = session.io_binding()
        for name, value in inputs.items():
            binding.bind_cpu_input(name, np.ascontiguousarray(value[block]))
        for name, value in outputs.items():
            part = value[block]
            binding.bind_output(name, "cpu", 0, np.float32, part.shape, part.ctypes.data)
        session.run_with_iobinding(binding)
    return list(outputs.values())
