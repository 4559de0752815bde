"""Commands that act on chats and settings: ``chat``, ``reindex``, ``delete``, ``config check``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

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
    valid_text,
)
from longtalk.config import redacted
from longtalk.core.messages import assistant, user
from longtalk.engine import MemoryEngine
from longtalk.errors import NotFoundError, UsageError
from longtalk.indexer import IndexRun
from longtalk.llm.base import LLM, ChatMessage, LLMRequest


@app.command()
def chat(
    chat_id: Annotated[
        str, typer.Argument(help="Chat to continue or create.", callback=valid_text)
    ] = "cli",
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
    tenant: TenantOption = "default",
) -> None:
    """Chat in the terminal with memory; offline it still records, summarizes and recalls."""
    settings = settings_of(config)

    async def work(memory: MemoryEngine) -> None:
        from longtalk.factory import summary_llm

        if await memory.storage.get_chat(chat_id, tenant=tenant) is None:
            await memory.create_chat(chat_id, tenant=tenant)
        llm = summary_llm(settings)
        mode = "offline" if llm is None else "model"
        out.print(f"Chat {chat_id!r} ({mode}); empty line ends.", markup=False, highlight=False)
        while True:
            try:
                text = input("you> ").strip()
            except EOFError:
                break
            if not text or text in ("/quit", "/exit"):
                break
            await _turn(memory, llm, chat_id, text)

    run(memory_run(settings, work))


async def _turn(memory: MemoryEngine, llm: LLM | None, chat_id: str, text: str) -> None:
    result = await memory.run_turn(chat_id, [user(text)], query=text)
    context = result.context
    if llm is None:
        reply = "(offline: no model configured; recorded)"
        preamble = context.preamble()
        if preamble:
            reply += "\n" + preamble
    else:
        messages = [ChatMessage("system", context.preamble() or "You are a helpful assistant.")]
        messages += [
            ChatMessage("assistant" if m.role == "assistant" else "user", m.content)
            for m in context.verbatim
        ]
        reply = (await llm.complete(LLMRequest(messages=messages))).text
    await memory.add_messages(chat_id, [assistant(reply)])
    out.print(Text.assemble(("assistant> ", "bold"), reply), highlight=False)
    kinds = ", ".join(f"{part.kind} {part.tokens}t" for part in context.parts)
    out.print(Text(f"context: {kinds or 'empty'}", style="dim"))


@app.command()
def reindex(
    chat_id: Annotated[
        str | None,
        typer.Option("--chat", help="Rebuild this chat's recall index.", callback=valid_text),
    ] = None,
    every: Annotated[bool, typer.Option("--all", help="Rebuild every chat's index.")] = False,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
) -> None:
    """Rebuild the recall index from storage (one chat with --chat, or --all)."""
    if (chat_id is None) == (not every):
        fail("give exactly one of --chat ID or --all")
    settings = settings_of(config)

    async def work(memory: MemoryEngine) -> IndexRun:
        if not memory.indexes:
            raise UsageError("recall is off (strategy is not rag_augmented): nothing to index")
        if chat_id is not None and await memory.storage.get_chat(chat_id) is None:
            raise NotFoundError(f"no chat {chat_id!r}")
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
