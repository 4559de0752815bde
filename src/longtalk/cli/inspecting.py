"""Commands that show what the memory holds: ``context``, ``summaries``, ``list``, ``show``."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from longtalk.cli.base import (
    ChatArgument,
    ConfigOption,
    DataDirOption,
    JsonOption,
    TenantOption,
    app,
    chat_of,
    fail,
    memory_run,
    out,
    run,
    settings_of,
    valid_text,
)
from longtalk.cli.display import chat_json, context_panel, summary_json, summary_panel
from longtalk.engine import MemoryEngine
from longtalk.engine.reading import MIN_BUDGET_TOKENS
from longtalk.storage.base import ChatRecord
from longtalk.wire import ContextOut, SummaryOut, describe_context

STRATEGIES = ("none", "running_summary", "rag_augmented")


@app.command()
def context(
    chat_id: ChatArgument,
    query: Annotated[
        str | None, typer.Option("--query", "-q", help="What to recall for.", callback=valid_text)
    ] = None,
    budget: Annotated[
        int | None,
        typer.Option(
            min=MIN_BUDGET_TOKENS,
            help=f"Token budget (at least {MIN_BUDGET_TOKENS}; default context_max_tokens).",
        ),
    ] = None,
    strategy: Annotated[str | None, typer.Option(help="none|running_summary|rag_augmented")] = None,
    recent_turns: Annotated[
        int | None, typer.Option(min=0, help="Exchanges of the recent window.")
    ] = None,
    summary_max_tokens: Annotated[
        int | None, typer.Option(min=0, help="Cap of the summary part.")
    ] = None,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
    tenant: TenantOption = "default",
    as_json: JsonOption = False,
) -> None:
    """Assemble the context for a query under a token budget, with provenance."""
    if strategy not in (None, *STRATEGIES):
        fail(f"unknown strategy {strategy!r}; use one of {', '.join(STRATEGIES)}")
    settings = settings_of(config)

    async def work(memory: MemoryEngine) -> ContextOut:
        await chat_of(memory, chat_id, tenant)  # the one unknown-chat message of every command
        if strategy is not None:
            memory = memory.with_config(memory.config.model_copy(update={"strategy": strategy}))
        return await describe_context(
            memory,
            chat_id,
            tenant,
            query,
            budget,
            recent_turns=recent_turns,
            summary_max_tokens=summary_max_tokens,
        )

    result: ContextOut = run(memory_run(settings, work))
    if as_json:
        out.print_json(result.model_dump_json())
        return
    for part in result.parts:
        out.print(context_panel(part), soft_wrap=False)  # wrap long lines, never crop them
    out.print(f"{result.tokens_used}/{result.budget_tokens} tokens ({result.strategy})")
    if not result.window_intact:
        out.print(f"{result.dropped_verbatim} messages of the recent window did not fit")


@app.command()
def summaries(
    chat_id: ChatArgument,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
    tenant: TenantOption = "default",
    as_json: JsonOption = False,
) -> None:
    """Show a chat's summary chain, each row's narrative and structured fields.

    Structured rows show their topics, entities with details, decisions, open questions and
    preferences; --json gives them as JSON objects.
    """

    async def work(memory: MemoryEngine) -> list[SummaryOut]:
        await chat_of(memory, chat_id, tenant)
        return [SummaryOut.of(row) for row in await memory.storage.list_summaries(chat_id)]

    rows: list[SummaryOut] = run(memory_run(settings_of(config), work))
    if as_json:
        out.print_json(json.dumps([summary_json(row) for row in rows]))
        return
    if not rows:
        out.print("No summary yet.")
    for row in rows:
        out.print(summary_panel(row), soft_wrap=False)


@app.command("list")
def list_chats(
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
    tenant: TenantOption = "default",
    limit: Annotated[int, typer.Option(min=1, help="Chats to show.")] = 50,
    offset: Annotated[int, typer.Option(min=0, help="Chats to skip.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """List the tenant's chats, most recently updated first."""

    async def work(memory: MemoryEngine) -> list[ChatRecord]:
        return await memory.storage.list_chats(tenant=tenant, limit=limit, offset=offset)

    records: list[ChatRecord] = run(memory_run(settings_of(config), work))
    if as_json:
        out.print_json(json.dumps([chat_json(record) for record in records]))
        return
    if not records:
        out.print("No chats.")
        return
    table = Table("id", "user", "title", "messages", "summarized up to", "updated")
    for record in records:
        updated = f"{record.updated_at:%Y-%m-%d %H:%M}" if record.updated_at else ""
        table.add_row(
            Text(record.id),
            Text(record.user or ""),
            Text(record.title or ""),
            str(record.message_count),
            str(record.last_summarized_sequence),
            updated,
        )
    out.print(table, soft_wrap=False)


@app.command()
def show(
    chat_id: ChatArgument,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
    tenant: TenantOption = "default",
    last: Annotated[int, typer.Option(min=0, help="Newest messages to print (0: all).")] = 20,
    as_json: JsonOption = False,
) -> None:
    """Show a chat: its record, summary chain and newest messages."""

    async def work(memory: MemoryEngine) -> tuple[ChatRecord, list[SummaryOut], list[Any]]:
        record = await chat_of(memory, chat_id, tenant)
        after = 0 if last == 0 else max(0, record.message_count - last)
        messages = await memory.storage.list_messages(chat_id, after_sequence=after)
        rows = [SummaryOut.of(row) for row in await memory.storage.list_summaries(chat_id)]
        return record, rows, messages

    record, rows, messages = run(memory_run(settings_of(config), work))
    if as_json:
        data = {
            "chat": chat_json(record),
            "summaries": [summary_json(row) for row in rows],
            "messages": [
                {"sequence": m.sequence, **m.message.model_dump(mode="json")} for m in messages
            ],
        }
        out.print_json(json.dumps(data, default=str))
        return
    title = f"{record.id} · {record.title or 'untitled'} · user {record.user or '-'}"
    ranges = ", ".join(row.episode_range for row in rows if row.kind != "archived") or "none"
    body = (
        f"{record.message_count} messages, summarized up to {record.last_summarized_sequence}, "
        f"indexed up to {record.indexed_sequence}\nsummary rows (episodes): {ranges}"
    )
    out.print(Panel(Text(body), title=Text(title)), soft_wrap=False)
    for item in messages:
        message = item.message
        line = Text.assemble((f"{item.sequence:>5} ", "dim"), (f"{message.speaker()}: ", "bold"))
        out.print(line.append(message.content), highlight=False)
