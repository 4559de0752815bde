"""The report ``make run`` prints for the demo chat: context, summary chain, token figures."""

from __future__ import annotations

from longtalk.core.messages import format_transcript
from longtalk.engine import MemoryEngine

DEMO_QUERY = "What food restrictions do we have, and what did we decide about the Douro valley?"
DEMO_BUDGET = 1000
"""The demo's budget: small enough that the chat does not fit, so every layer shows."""


async def demo_report(
    memory: MemoryEngine, chat_id: str, *, query: str = DEMO_QUERY, budget_tokens: int = DEMO_BUDGET
) -> str:
    """What the memory holds for a chat, and what it would send for ``query``."""
    context = await memory.get_context(chat_id, query, budget_tokens=budget_tokens)
    summaries = await memory.storage.list_summaries(chat_id)
    messages = [item.message for item in await memory.storage.list_messages(chat_id)]
    transcript_tokens = memory.counter.count(format_transcript(messages))
    parts = ", ".join(f"{part.kind} {part.tokens}" for part in context.parts)
    return "\n".join(
        [
            f"Query: {query}",
            "",
            f"=== Assembled context (strategy {memory.config.strategy}) ===",
            context.render(),
            "",
            "=== Summary chain ===",
            *(
                f"episodes {row.episode_range} ({row.token_count} tokens, {row.format})"
                for row in summaries
            ),
            "",
            "=== Token figures ===",
            f"whole chat:        {len(messages)} messages, {transcript_tokens} tokens",
            f"assembled context: {context.tokens_used} tokens within a budget of {budget_tokens}"
            f" ({parts})",
        ]
    )
