"""The demo behind ``make run``: a long sample chat through the memory pipeline.

Runs on the embedded defaults (SQLite in a temporary directory, the offline summarizer,
recall on the bundled embedding model) with no server, no API key and no network, then
prints the assembled context, the summary chain and the token figures.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from importlib import resources
from pathlib import Path

from memstrata.config import MemoryConfig, Settings, SupervisorConfig, VectorsConfig
from memstrata.core.messages import Message, format_transcript
from memstrata.factory import open_memory
from memstrata.storage.config import StorageConfig

DEMO_QUERY = "What did we decide about the JR Pass, and what is Sam allergic to?"


def demo_messages() -> list[Message]:
    """The bundled sample conversation (a trip being planned over 36 exchanges)."""
    text = resources.files("memstrata.data").joinpath("demo_conversation.jsonl").read_text("utf-8")
    return [Message.model_validate(json.loads(line)) for line in text.splitlines() if line]


def demo_settings(directory: Path) -> Settings:
    """Embedded defaults, kept inside ``directory``.

    The sample chat is short (about 1,800 tokens), so the window and the trigger are scaled
    down from the defaults (10 exchanges, 2,000 pending tokens) to show several extensions.
    """
    memory = MemoryConfig(summary_recent_turns=4, summary_trigger_tokens=300)
    return Settings(
        supervisor=SupervisorConfig(memory=memory),
        storage=StorageConfig(sqlite_path=directory / "memstrata.db"),
        vectors=VectorsConfig(url=f"qdrant-edge:{directory / 'vectors'}"),
    )


async def run_demo(directory: Path, *, budget_tokens: int = 1000) -> str:
    """Feed the sample chat turn by turn; return the printed report."""
    messages = demo_messages()
    async with open_memory(demo_settings(directory)) as memory:
        chat = await memory.create_chat("demo", title="Trip to Japan")
        summarizer_calls = 0
        for index in range(0, len(messages), 2):
            result = await memory.run_turn(chat.id, messages[index : index + 2])
            summarizer_calls += result.summary.plan.extensions
        context = await memory.get_context(chat.id, DEMO_QUERY, budget_tokens=budget_tokens)
        summaries = await memory.storage.list_summaries(chat.id)
        record = await memory.storage.get_chat(chat.id)
        transcript_tokens = memory.counter.count(format_transcript(messages))
    lines = [
        f"Chat: {record.title if record else chat.id} — {len(messages)} messages",
        f"Query: {DEMO_QUERY}",
        "",
        "=== Assembled context ===",
        context.render(),
        "",
        "=== Summary chain ===",
        *(
            f"[episodes {row.episode_range}, {row.token_count} tokens] {row.summary_text}"
            for row in summaries
        ),
        "",
        "=== Token figures ===",
        f"full transcript:   {transcript_tokens} tokens",
        f"assembled context: {context.tokens_used} tokens (budget {budget_tokens})",
        "parts: " + ", ".join(f"{p.kind} {p.tokens}" for p in context.parts),
        f"summary extensions: {summarizer_calls}",
    ]
    return "\n".join(lines)


def main() -> None:
    """Run the demo in a temporary directory and print the report."""
    with tempfile.TemporaryDirectory(prefix="memstrata-demo-") as directory:
        print(asyncio.run(run_demo(Path(directory))))


if __name__ == "__main__":
    main()
