"""Commands that act on chats and settings: ``chat``, ``reindex``, ``delete``, ``config check``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, cast

import typer
from rich.text import Text

from longtalk.cli.base import (
    ChatArgument,
    ConfigOption,
    DataDirOption,
    TenantOption,
    app,
    chat_of,
    config_app,
    err,
    fail,
    memory_run,
    out,
    run,
    settings_of,
    valid_chat_id,
)
from longtalk.config import redacted
from longtalk.engine import MemoryEngine
from longtalk.errors import UsageError
from longtalk.llm.base import LLM, ChatMessage, ChatRole, LLMRequest
from longtalk.memory.async_memory import AsyncChat
from longtalk.recall.outbox import IndexRun


@app.command()
def chat(
    chat_id: Annotated[
        str, typer.Argument(help="Chat to continue or create.", callback=valid_chat_id)
    ] = "cli",
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
    tenant: TenantOption = "default",
) -> None:
    """Chat in the terminal with memory; offline it still records, summarizes and recalls."""
    settings = settings_of(config)

    async def work(engine: MemoryEngine) -> None:
        from longtalk.factory import summary_llm
        from longtalk.memory import AsyncMemory

        llm = summary_llm(settings)
        async with AsyncMemory(engine=engine, tenant=tenant) as memory:
            chat = await memory.chat(chat_id)
            mode = "offline" if llm is None else "model"
            out.print(f"Chat {chat_id!r} ({mode}); empty line ends.", markup=False, highlight=False)
            while True:
                try:
                    text = input("you> ").strip()
                except EOFError:
                    break
                if not text or text in ("/quit", "/exit"):
                    break
                await _turn(chat, llm, text)

    run(memory_run(settings, work))


async def _turn(chat: AsyncChat, llm: LLM | None, text: str) -> None:
    """One exchange through the library's door: append, context, reply, append.

    Without a model there is no reply: the context is shown and nothing but what was typed
    is stored.
    """
    await chat.append("user", text)
    context = await chat.context(text)
    if llm is None:
        shown = OFFLINE_NOTE + (f"\n{context.preamble()}" if context.preamble() else "")
        out.print(Text.assemble(("memory> ", "bold"), shown), highlight=False)
    else:
        messages = [ChatMessage(cast(ChatRole, m["role"]), m["content"]) for m in context.messages]
        if not messages or messages[0].role != "system":
            messages.insert(0, ChatMessage("system", "You are a helpful assistant."))
        reply = (await llm.complete(LLMRequest(messages=messages))).text
        await chat.append("assistant", reply)
        out.print(Text.assemble(("assistant> ", "bold"), reply), highlight=False)
    kinds = ", ".join(f"{part.kind} {part.tokens}t" for part in context.parts)
    out.print(Text(f"context: {kinds or 'empty'}", style="dim"))


OFFLINE_NOTE = "(no model configured: your message is stored, no reply is; the memory holds:)"


@app.command()
def reindex(
    chat_id: Annotated[
        str | None,
        typer.Option("--chat", help="Rebuild this chat's recall index.", callback=valid_chat_id),
    ] = None,
    every: Annotated[bool, typer.Option("--all", help="Rebuild every chat's index.")] = False,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
    tenant: TenantOption = "default",
) -> None:
    """Rebuild the recall index from storage (one chat of the tenant with --chat, or --all)."""
    if (chat_id is None) == (not every):
        fail("give exactly one of --chat ID or --all")
    settings = settings_of(config)

    async def work(memory: MemoryEngine) -> IndexRun:
        if chat_id is not None:
            await chat_of(memory, chat_id, tenant)
        if not memory.indexes:
            raise UsageError("recall is off (strategy is not rag_augmented): nothing to index")
        return await memory.reindex(chat_id)

    done: IndexRun = run(memory_run(settings, work))
    out.print(f"indexed {done.turns} messages of {done.chats} chats")
    if done.error:
        fail(f"the rebuild stopped: {done.error}; run it again", 1)


@app.command()
def delete(
    chat_id: ChatArgument,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
    tenant: TenantOption = "default",
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete a chat with its messages, summaries and recall vectors."""
    if not yes and not typer.confirm(f"Delete chat {chat_id!r} and everything stored for it?"):
        err.print("Nothing deleted.")
        raise typer.Exit(1)

    async def work(memory: MemoryEngine) -> None:
        await chat_of(memory, chat_id, tenant)
        await memory.delete_chat(chat_id, tenant=tenant)

    run(memory_run(settings_of(config), work))
    out.print(f"Deleted chat {chat_id!r}.", highlight=False, markup=False)


@config_app.command("check")
def config_check(
    file: Annotated[Path, typer.Argument(help="agents.yaml to validate.")],
) -> None:
    """Validate a configuration file and print the effective settings."""
    settings = settings_of(file)
    effective = redacted(settings)
    effective["memory (effective)"] = settings.memory.model_dump(mode="json")
    out.print_json(json.dumps(effective))
    err.print(Text(f"{file}: valid", style="green"))
