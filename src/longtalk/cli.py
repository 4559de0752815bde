"""The ``longtalk`` command line (Typer + rich).

Errors map to exit codes in one place (:func:`exit_code`), as one line on stderr and never a
traceback: a usage or configuration error exits 2 (as do Typer's own usage errors), an
unknown chat 4, a failing backend or any other runtime failure 1, an interrupt 130.
:func:`main` is the console script; it catches what escapes a command.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Annotated, Any, TypeVar, cast

import typer
from rich.console import Console
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table
from rich.text import Text

from longtalk import legacy
from longtalk.config import Settings, load_settings, redacted
from longtalk.core.messages import Message
from longtalk.engine import MemoryEngine
from longtalk.errors import LongtalkError, NotFoundError, UsageError
from longtalk.indexer import IndexRun
from longtalk.llm.base import LLM, ChatMessage, ChatRole, LLMRequest
from longtalk.memory.async_memory import AsyncChat
from longtalk.service.schemas import ContextOut, StrategyName, SummaryOut
from longtalk.storage.base import ChatRecord
from longtalk.tools.demo import demo_report
from longtalk.tools.ingest import DEMO_CHAT_ID, ChatFile, demo_path, ingest_chats, read_chats

T = TypeVar("T")

app = typer.Typer(
    name="longtalk",
    help="Conversation memory: running summaries, recall and a bounded context.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,  # locals can hold keys and passwords
)


def _print_version(value: bool) -> None:
    if value:
        from longtalk._version import __version__

        out.print(f"longtalk {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Conversation memory: running summaries, recall and a bounded context."""


config_app = typer.Typer(help="Check configuration files.", no_args_is_help=True)
app.add_typer(config_app, name="config")

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)
DEBUG_ENV = "LONGTALK_DEBUG"
"""Set to show the traceback of an unexpected error."""

ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", "-c", help="agents.yaml to read (LONGTALK_* env applies too)."),
]
TenantOption = Annotated[str, typer.Option(help="Tenant the chats belong to.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
MAX_SUMMARY_PASSES = 50


def _run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine``; longtalk errors become a message and an exit code."""
    try:
        return asyncio.run(coroutine)
    except LongtalkError as exc:
        _error(exc)
        raise typer.Exit(exit_code(exc)) from None


def exit_code(exc: BaseException) -> int:
    """The exit code of an error: 2 usage, 4 unknown chat, 130 interrupted, else 1."""
    if isinstance(exc, NotFoundError):
        return 4
    if isinstance(exc, UsageError):
        return 2
    if isinstance(exc, KeyboardInterrupt):
        return 130
    return 1


def _error(exc: BaseException) -> None:
    """One line on stderr (``LONGTALK_DEBUG=1`` adds the traceback)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if not isinstance(exc, LongtalkError | OSError | KeyboardInterrupt):
        text = f"{type(exc).__name__}: {text} (set {DEBUG_ENV}=1 for the traceback)"
    err.print(Text.assemble(("Error: ", "bold red"), text), highlight=False)


def main() -> None:
    """The console script: the app, with whatever escapes a command as one line."""
    try:
        app()
    except (Exception, KeyboardInterrupt) as exc:
        if legacy.getenv(DEBUG_ENV):
            raise
        _error(exc)
        sys.exit(exit_code(exc))


def _settings(config: Path | None) -> Settings:
    try:
        return load_settings(config)
    except LongtalkError as exc:
        _error(exc)
        raise typer.Exit(2) from None


async def _memory_run(settings: Settings, work: Any) -> Any:
    from longtalk.factory import open_memory

    async with open_memory(settings) as memory:
        return await work(memory)


async def summarize_all(memory: MemoryEngine, chat_id: str, *, force: bool = False) -> int:
    """Summarize ``chat_id`` until nothing is due; returns the number of passes that changed."""
    changed = 0
    for _ in range(MAX_SUMMARY_PASSES):
        outcome = await memory.summarize(chat_id, force=force)
        if outcome.plan.error is not None:
            raise outcome.plan.error
        if not outcome.changed:
            break
        changed += 1
    return changed


# -- serve ------------------------------------------------------------------------------------


@app.command()
def serve(
    config: ConfigOption = None,
    host: Annotated[str | None, typer.Option(help="Host (127.0.0.1 without API keys).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default: service.port).")] = None,
    demo: Annotated[bool, typer.Option(help="Ingest the bundled demo chat first.")] = False,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
    migrate: Annotated[
        bool,
        typer.Option(
            help="Apply pending schema migrations at start; --no-migrate refuses a database "
            "that needs them (replicas: run 'longtalk migrate' once instead)."
        ),
    ] = True,
) -> None:
    """Run the HTTP service and web view on the configured (or embedded) stack."""
    import uvicorn

    from longtalk.service import bind_host, create_app

    settings = _settings(config)
    if not migrate:
        _run(_schema_current(settings))
    bound = bind_host(settings.service, host)
    if not settings.service.api_keys:
        err.print("No API keys configured: single tenant 'default', bound to 127.0.0.1 only.")
    port = settings.service.port if port is None else port
    page = f"http://{bound}:{port}/ui/"
    # open the stack once before serving: a storage or vector store that cannot work (a
    # read-only path, an unreachable database) is a one-line error, not a startup traceback
    _run(_memory_run(settings, _load_demo if demo else _preflight))
    if demo:
        page += f"#/chats/{DEMO_CHAT_ID}"
    out.print(f"Web view: [link={page}]{page}[/link]  ·  API docs: http://{bound}:{port}/docs")
    uvicorn.run(
        create_app(settings),
        host=bound,
        port=port,
        log_level=log_level,
        timeout_graceful_shutdown=2,
    )


async def _schema_current(settings: Settings) -> None:
    from longtalk.factory import chat_storage
    from longtalk.storage.migrate import require_current

    storage = chat_storage(settings)
    try:
        await require_current(storage)
    finally:
        await storage.close()


@app.command(name="migrate")
def migrate_schema(
    config: ConfigOption = None,
    check: Annotated[
        bool, typer.Option("--check", help="Change nothing; exit 3 when migrations are pending.")
    ] = False,
) -> None:
    """Apply pending schema migrations once (run before starting several replicas)."""
    from longtalk.factory import chat_storage
    from longtalk.storage.migrate import SchemaStatus, migrate, status

    async def work() -> tuple[SchemaStatus, SchemaStatus]:
        storage = chat_storage(_settings(config))
        try:
            if check:
                found = await status(storage)
                return found, found
            return await migrate(storage)
        finally:
            await storage.close()

    before, after = _run(work())
    if check:
        pending = ", ".join(map(str, after.pending)) or "none"
        out.print(f"{after.location}: schema version {after.version}; pending: {pending}")
        if after.pending:
            raise typer.Exit(3)
        return
    applied = [v for v in before.pending if v not in after.pending]
    if applied:
        done = ", ".join(map(str, applied))
        out.print(f"{after.location}: applied migrations {done}; schema version {after.version}")
    else:
        out.print(f"{after.location}: schema version {after.version} is current; nothing to do")


async def _preflight(memory: MemoryEngine) -> None:
    """Reach storage once (opening the memory set it up and ran its migrations)."""
    await memory.storage.list_chats(limit=1)


async def _load_demo(memory: MemoryEngine) -> None:
    """Ingest the demo chat session by session, summarizing after each as a service would.

    Sessions already stored (a second run, or one that was interrupted) are skipped.
    """
    (whole,) = read_chats(demo_path(), chat_id=DEMO_CHAT_ID)
    record = await memory.storage.get_chat(DEMO_CHAT_ID)
    stored = 0 if record is None else record.message_count
    added = passes = 0
    for end in _session_ends(whole.messages):
        if end <= stored:
            continue
        prefix = ChatFile(whole.chat_id, whole.messages[:end], "Trip to Portugal")
        added += (await ingest_chats(memory, [prefix])).added
        passes += await summarize_all(memory, DEMO_CHAT_ID, force=True)
    out.print(f"Demo chat {DEMO_CHAT_ID!r}: {added} messages added, {passes} summary passes.")
    out.print(await demo_report(memory, DEMO_CHAT_ID), markup=False, highlight=False)


def _session_ends(messages: list[Message]) -> list[int]:
    """Where each session (a gap of over an hour) ends."""
    ends = []
    for index in range(1, len(messages)):
        before, after = messages[index - 1].timestamp, messages[index].timestamp
        if before and after and (after - before).total_seconds() > 3600:
            ends.append(index)
    return [*ends, len(messages)]


@app.command()
def demo(
    config: ConfigOption = None,
    port: Annotated[int | None, typer.Option(help="Port (default: service.port).")] = None,
) -> None:
    """Same as serve --demo: the service with the demo chat ingested."""
    serve(config=config, host=None, port=port, demo=True, log_level="info")


# -- ingest ------------------------------------------------------------------------------------


@app.command()
def ingest(
    file: Annotated[Path, typer.Argument(help="JSONL messages or a LoCoMo JSON file.")],
    config: ConfigOption = None,
    chat: Annotated[str | None, typer.Option(help="Chat id for JSONL lines without one.")] = None,
    tenant: TenantOption = "default",
    batch: Annotated[int, typer.Option(min=1, help="Messages per transaction.")] = 100,
    summarize: Annotated[bool, typer.Option(help="Summarize the chats afterwards.")] = True,
) -> None:
    """Load conversations; resumable, and re-running it adds nothing twice.

    Prints the id of every chat it wrote to, with progress while it stores, embeds and
    summarizes.
    """
    chats = _run(_read(file, chat))
    total = sum(len(item.messages) for item in chats)

    async def work(memory: MemoryEngine) -> None:
        existing = {c.chat_id for c in chats if await memory.storage.get_chat(c.chat_id)}
        with _progress() as progress:
            task = progress.add_task("storing", total=total)
            report = await ingest_chats(
                memory,
                chats,
                tenant=tenant,
                batch=batch,
                progress=lambda n: progress.advance(task, n),
                index=False,
            )
            indexed = await _embed(memory, [item.chat_id for item in chats], progress)
            passes = await _summarize_chats(memory, chats, progress) if summarize else 0
        for item in chats:
            state = "existing" if item.chat_id in existing else "new"
            out.print(
                f"{state} chat {item.chat_id}: {len(item.messages)} messages", highlight=False
            )
        out.print(
            f"{report.chats} chats ({report.created} new): {report.added} messages added, "
            f"{report.skipped} already stored, {indexed.turns} embedded for recall, "
            f"{passes} summary passes."
        )
        if indexed.error:
            err.print(f"[bold red]Error:[/] embedding stopped: {indexed.error}; run it again")
            raise typer.Exit(1)

    _run(_memory_run(_settings(config), work))


def _progress() -> Progress:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    return Progress(*columns, console=err, transient=True)


async def _embed(memory: MemoryEngine, chat_ids: list[str], progress: Progress) -> IndexRun:
    """Index the chats' turns for recall batch by batch, advancing an embedding bar."""
    if not memory.indexes:
        return IndexRun()
    lagging = [await memory.storage.get_chat(chat_id) for chat_id in chat_ids]
    task = progress.add_task("embedding", total=sum(c.index_lag for c in lagging if c))
    total = IndexRun()
    while (run := await memory.index_pending(chat_ids=chat_ids)).turns:
        total = total + run
        progress.advance(task, run.turns)
    return total + run


async def _summarize_chats(memory: MemoryEngine, chats: list[ChatFile], progress: Progress) -> int:
    """Summarize each chat until nothing is due, advancing a bar per chat."""
    task = progress.add_task("summarizing", total=len(chats))
    passes = 0
    for item in chats:
        progress.update(task, description=f"summarizing {item.chat_id}")
        passes += await summarize_all(memory, item.chat_id)
        progress.advance(task)
    return passes


async def _read(file: Path, chat: str | None) -> Any:
    return read_chats(file, chat_id=chat)


# -- chat ----------------------------------------------------------------------------------------


@app.command()
def chat(
    chat_id: Annotated[str, typer.Argument(help="Chat to continue or create.")] = "cli",
    config: ConfigOption = None,
    tenant: TenantOption = "default",
) -> None:
    """Chat in the terminal with memory; offline it still records, summarizes and recalls."""
    settings = _settings(config)

    async def work(engine: MemoryEngine) -> None:
        from longtalk.factory import summary_llm
        from longtalk.memory import AsyncMemory

        llm = summary_llm(settings)
        async with AsyncMemory(engine=engine, tenant=tenant) as memory:
            chat = await memory.chat(chat_id)
            mode = "offline" if llm is None else "model"
            out.print(f"Chat {chat_id!r} ({mode}); empty line ends.", highlight=False)
            while True:
                try:
                    text = input("you> ").strip()
                except EOFError:
                    break
                if not text or text in ("/quit", "/exit"):
                    break
                await _turn(chat, llm, text)

    _run(_memory_run(settings, work))


async def _turn(chat: AsyncChat, llm: LLM | None, text: str) -> None:
    await chat.append("user", text)
    context = await chat.context(text)
    if llm is None:
        reply = "(offline: no model configured; recorded)"
        preamble = context.preamble()
        if preamble:
            reply += "\n" + preamble
    else:
        messages = [ChatMessage(cast(ChatRole, m["role"]), m["content"]) for m in context.messages]
        if not messages or messages[0].role != "system":
            messages.insert(0, ChatMessage("system", "You are a helpful assistant."))
        reply = (await llm.complete(LLMRequest(messages=messages))).text
    await chat.append("assistant", reply)
    out.print(Text.assemble(("assistant> ", "bold"), reply))
    kinds = ", ".join(f"{part.kind} {part.tokens}t" for part in context.parts)
    out.print(Text(f"context: {kinds or 'empty'}", style="dim"))


# -- reading ----------------------------------------------------------------------------------


@app.command()
def context(
    chat_id: Annotated[str, typer.Argument(help="Chat id.")],
    query: Annotated[str | None, typer.Option("--query", "-q", help="What to recall for.")] = None,
    budget: Annotated[int | None, typer.Option(min=1, help="Token budget.")] = None,
    strategy: Annotated[str | None, typer.Option(help="none|running_summary|rag_augmented")] = None,
    recent_turns: Annotated[
        int | None, typer.Option(min=0, help="Exchanges of the recent window.")
    ] = None,
    summary_max_tokens: Annotated[
        int | None, typer.Option(min=0, help="Cap of the summary part.")
    ] = None,
    config: ConfigOption = None,
    tenant: TenantOption = "default",
    as_json: JsonOption = False,
) -> None:
    """Assemble the context for a query under a token budget, with provenance."""
    if strategy not in (None, "none", "running_summary", "rag_augmented"):
        err.print(f"[bold red]Error:[/] unknown strategy {strategy!r}")
        raise typer.Exit(2)
    settings = _settings(config)

    async def work(memory: MemoryEngine) -> ContextOut:
        from longtalk.service.state import Service

        service = Service(memory, settings.service)
        record = await service.chat(chat_id, tenant)
        chosen: StrategyName | None = strategy  # type: ignore[assignment]
        return await service.context(
            record,
            query,
            budget,
            chosen,
            recent_turns=recent_turns,
            summary_max_tokens=summary_max_tokens,
        )

    result: ContextOut = _run(_memory_run(settings, work))
    if as_json:
        out.print_json(result.model_dump_json())
        return
    for part in result.parts:
        where = _provenance(part.sequences, part.episode_ranges, part.scores)
        out.print(Panel(part.text, title=f"{part.kind} · {part.tokens} tokens", subtitle=where))
    out.print(f"{result.tokens_used}/{result.budget_tokens} tokens ({result.strategy})")
    if not result.window_intact:
        out.print(f"{result.dropped_verbatim} messages of the recent window did not fit")


def _provenance(
    sequences: list[int | None], ranges: list[tuple[int, int]], scores: list[float]
) -> str:
    if ranges:
        return "episodes " + ", ".join(f"{a}-{b}" for a, b in ranges)
    shown = [str(s) for s in sequences if s is not None]
    text = f"messages {', '.join(shown)}" if shown else ""
    return text + (f" · scores {', '.join(f'{s:.2f}' for s in scores)}" if scores else "")


@app.command()
def summaries(
    chat_id: Annotated[str, typer.Argument(help="Chat id.")],
    config: ConfigOption = None,
    tenant: TenantOption = "default",
    as_json: JsonOption = False,
) -> None:
    """Show a chat's summary chain (one row per episode range)."""
    rows: list[SummaryOut] = _run(_memory_run(_settings(config), _chain(chat_id, tenant)))
    if as_json:
        out.print_json(json.dumps([row.model_dump(mode="json") for row in rows]))
        return
    table = Table("id", "episodes", "tokens", "version", "summary")
    for row in rows:
        text = row.structured.get("narrative", "") if row.structured else row.summary_text
        table.add_row(str(row.id), row.episode_range, str(row.token_count), str(row.version), text)
    out.print(table if rows else "No summary yet.")


@app.command()
def reindex(
    chat_id: Annotated[
        str | None, typer.Option("--chat", help="Rebuild this chat's recall index.")
    ] = None,
    every: Annotated[bool, typer.Option("--all", help="Rebuild every chat's index.")] = False,
    config: ConfigOption = None,
) -> None:
    """Rebuild the recall index from storage (one chat with --chat, or --all)."""
    if (chat_id is None) == (not every):
        err.print("[bold red]Error:[/] give exactly one of --chat ID or --all")
        raise typer.Exit(2)
    settings = _settings(config)

    async def work(memory: MemoryEngine) -> IndexRun:
        if not memory.indexes:
            raise UsageError("recall is off (strategy is not rag_augmented): nothing to index")
        if chat_id is not None and await memory.storage.get_chat(chat_id) is None:
            raise NotFoundError(f"no chat {chat_id!r}")
        return await memory.reindex(chat_id)

    run: IndexRun = _run(_memory_run(settings, work))
    out.print(f"indexed {run.turns} messages of {run.chats} chats")
    if run.error:
        err.print(f"[bold red]Error:[/] the rebuild stopped: {run.error}; run it again")
        raise typer.Exit(1)


def _chain(chat_id: str, tenant: str) -> Any:
    async def work(memory: MemoryEngine) -> list[SummaryOut]:
        await _chat_of(memory, chat_id, tenant)
        return [SummaryOut.of(row) for row in await memory.storage.list_summaries(chat_id)]

    return work


async def _chat_of(memory: MemoryEngine, chat_id: str, tenant: str) -> Any:
    record = await memory.storage.get_chat(chat_id, tenant=tenant)
    if record is None:
        raise NotFoundError(f"no chat {chat_id!r} for tenant {tenant!r}")
    return record


@app.command()
def export(
    chat_id: Annotated[str, typer.Argument(help="Chat id.")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="File (else stdout).")
    ] = None,
    config: ConfigOption = None,
    tenant: TenantOption = "default",
) -> None:
    """Export a chat with its messages and summary chain as JSON."""

    async def work(memory: MemoryEngine) -> dict[str, Any]:
        record = await _chat_of(memory, chat_id, tenant)
        messages = await memory.storage.list_messages(chat_id)
        rows = await memory.storage.list_summaries(chat_id)
        return {
            "chat": {
                "id": record.id,
                "tenant": record.tenant,
                "user": record.user,
                "title": record.title,
                "message_count": record.message_count,
                "last_summarized_sequence": record.last_summarized_sequence,
            },
            "messages": [
                {"sequence": m.sequence, **m.message.model_dump(mode="json")} for m in messages
            ],
            "summaries": [SummaryOut.of(row).model_dump(mode="json") for row in rows],
        }

    if output is not None and not output.parent.is_dir():
        _error(UsageError(f"cannot write {output}: {output.parent} is not a directory"))
        raise typer.Exit(2)
    data = _run(_memory_run(_settings(config), work))
    text = json.dumps(data, ensure_ascii=False, indent=2, default=str)
    if output is None:
        out.out(text, highlight=False)
    else:
        output.write_text(text + "\n", encoding="utf-8")
        err.print(f"wrote {output}")


# -- chats: list, show, delete ------------------------------------------------------------------


@app.command("list")
def list_chats(
    config: ConfigOption = None,
    tenant: TenantOption = "default",
    limit: Annotated[int, typer.Option(min=1, help="Chats to show.")] = 50,
    offset: Annotated[int, typer.Option(min=0, help="Chats to skip.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """List the tenant's chats, most recently updated first."""

    async def work(memory: MemoryEngine) -> list[ChatRecord]:
        return await memory.storage.list_chats(tenant=tenant, limit=limit, offset=offset)

    records: list[ChatRecord] = _run(_memory_run(_settings(config), work))
    if as_json:
        out.print_json(json.dumps([_chat_json(record) for record in records]))
        return
    if not records:
        out.print("No chats.")
        return
    table = Table("id", "user", "title", "messages", "summarized up to", "updated")
    for record in records:
        updated = f"{record.updated_at:%Y-%m-%d %H:%M}" if record.updated_at else ""
        table.add_row(
            record.id,
            record.user or "",
            record.title or "",
            str(record.message_count),
            str(record.last_summarized_sequence),
            updated,
        )
    out.print(table)


@app.command()
def show(
    chat_id: Annotated[str, typer.Argument(help="Chat id.")],
    config: ConfigOption = None,
    tenant: TenantOption = "default",
    last: Annotated[int, typer.Option(min=0, help="Newest messages to print (0: all).")] = 20,
    as_json: JsonOption = False,
) -> None:
    """Show a chat: its record, summary chain and newest messages."""

    async def work(memory: MemoryEngine) -> tuple[ChatRecord, list[SummaryOut], list[Any]]:
        record = await _chat_of(memory, chat_id, tenant)
        after = 0 if last == 0 else max(0, record.message_count - last)
        messages = await memory.storage.list_messages(chat_id, after_sequence=after)
        rows = [SummaryOut.of(row) for row in await memory.storage.list_summaries(chat_id)]
        return record, rows, messages

    record, rows, messages = _run(_memory_run(_settings(config), work))
    if as_json:
        data = {
            "chat": _chat_json(record),
            "summaries": [row.model_dump(mode="json") for row in rows],
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
    out.print(Panel(body, title=title), highlight=False)
    for item in messages:
        message = item.message
        out.print(f"[dim]{item.sequence:>5}[/] [bold]{message.speaker()}:[/] ", end="")
        out.print(message.content, markup=False, highlight=False)


@app.command()
def delete(
    chat_id: Annotated[str, typer.Argument(help="Chat id.")],
    config: ConfigOption = None,
    tenant: TenantOption = "default",
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete a chat with its messages, summaries and recall vectors."""
    if not yes and not typer.confirm(f"Delete chat {chat_id!r} and everything stored for it?"):
        err.print("Nothing deleted.")
        raise typer.Exit(1)

    async def work(memory: MemoryEngine) -> None:
        await _chat_of(memory, chat_id, tenant)
        await memory.delete_chat(chat_id, tenant=tenant)

    _run(_memory_run(_settings(config), work))
    out.print(f"Deleted chat {chat_id!r}.", highlight=False)


def _chat_json(record: ChatRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "tenant": record.tenant,
        "user": record.user,
        "title": record.title,
        "message_count": record.message_count,
        "last_summarized_sequence": record.last_summarized_sequence,
        "indexed_sequence": record.indexed_sequence,
        "created_at": record.created_at.isoformat() if record.created_at else None,
        "updated_at": record.updated_at.isoformat() if record.updated_at else None,
    }


@app.command("mcp")
def mcp_server(config: ConfigOption = None) -> None:
    """Serve the memory tools to an MCP client over stdio (needs longtalk[mcp])."""
    settings = _settings(config)
    try:
        from longtalk.mcp import run_stdio
    except ModuleNotFoundError as exc:
        err.print(f"[bold red]Error:[/] {exc}", highlight=False)
        raise typer.Exit(2) from None
    run_stdio(settings)


# -- config -------------------------------------------------------------------------------------


@config_app.command("check")
def config_check(
    file: Annotated[Path, typer.Argument(help="agents.yaml to validate.")],
) -> None:
    """Validate a configuration file and print the effective settings."""
    settings = _settings(file)
    effective = redacted(settings)
    effective["memory (effective)"] = settings.memory.model_dump(mode="json")
    out.print_json(json.dumps(effective))
    err.print(f"[green]{file}: valid[/]")


if __name__ == "__main__":  # pragma: no cover
    main()
