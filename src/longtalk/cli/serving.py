"""Commands that serve the memory: ``serve``, ``demo``, ``migrate`` and ``mcp``."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote, urlencode

import typer

from longtalk.cli.base import (
    ConfigOption,
    DataDirOption,
    app,
    err,
    fail,
    memory_run,
    out,
    run,
    settings_of,
    summarize_all,
)
from longtalk.config import Settings
from longtalk.core.messages import Message
from longtalk.engine import MemoryEngine
from longtalk.errors import MissingExtraError
from longtalk.tools.demo import DEMO_BUDGET, DEMO_QUERY, demo_report
from longtalk.tools.ingest import DEMO_CHAT_ID, ChatFile, demo_path, ingest_chats, read_chats

SERVER_PACKAGES = frozenset({"fastapi", "starlette", "uvicorn", "prometheus_client"})
"""What ``longtalk[server]`` installs: a missing one is named with the extra, not a traceback."""


@app.command()
def serve(
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
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
    """Run the HTTP service and web view (longtalk[server]) on the configured stack."""
    try:
        import uvicorn

        from longtalk.service import bind_host, create_app
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] not in SERVER_PACKAGES:
            raise
        raise MissingExtraError(exc.name or "fastapi", "server") from exc
    settings = settings_of(config)
    if not migrate:
        run(_schema_current(settings))
    bound = bind_host(settings.service, host)
    if not settings.service.api_keys:
        err.print("No API keys configured: single tenant 'default', bound to 127.0.0.1 only.")
    port = settings.service.port if port is None else port
    page = f"http://{bound}:{port}/ui/"
    # open the stack once before serving: a storage or vector store that cannot work (a
    # read-only path, an unreachable database) is a one-line error, not a startup traceback
    run(memory_run(settings, load_demo if demo else _preflight))
    if demo:
        page += demo_view()
    docs = "" if settings.service.api_keys else f"  ·  API docs: http://{bound}:{port}/docs"
    out.print(f"Web view: [link={page}]{page}[/link]{docs}")
    uvicorn.run(
        create_app(settings),
        host=bound,
        port=port,
        log_level=log_level,
        timeout_graceful_shutdown=2,
        timeout_keep_alive=settings.service.keep_alive_seconds,
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
    data_dir: DataDirOption = None,
    check: Annotated[
        bool, typer.Option("--check", help="Change nothing; exit 3 when migrations are pending.")
    ] = False,
) -> None:
    """Apply pending schema migrations once (run before starting several replicas)."""
    from longtalk.factory import chat_storage
    from longtalk.storage.migrate import SchemaStatus, migrate, status

    async def work() -> tuple[SchemaStatus, SchemaStatus]:
        storage = chat_storage(settings_of(config))
        try:
            if check:
                found = await status(storage)
                return found, found
            return await migrate(storage)
        finally:
            await storage.close()

    before, after = run(work())
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


def demo_view() -> str:
    """The web view's route to the demo chat, on the terminal report's question and budget.

    The chat does not fit that budget, so every layer shows.
    """
    view = urlencode({"query": DEMO_QUERY, "budget": DEMO_BUDGET}, quote_via=quote)
    return f"#/chats/{DEMO_CHAT_ID}?{view}"


async def load_demo(memory: MemoryEngine) -> None:
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
    data_dir: DataDirOption = None,
    port: Annotated[int | None, typer.Option(help="Port (default: service.port).")] = None,
) -> None:
    """Same as serve --demo: the service with the demo chat ingested."""
    serve(config=config, data_dir=data_dir, host=None, port=port, demo=True, log_level="info")


MCP_HELP = """Serve the memory tools to an MCP client over stdio (needs longtalk[mcp]).

MCP clients start the server with a bare environment (LONGTALK_* variables are not passed
on), so give the data directory and settings as arguments:

\b
  longtalk mcp --data-dir ~/memory --config ~/memory/agents.yaml
"""


@app.command("mcp", help=MCP_HELP)
def mcp_server(config: ConfigOption = None, data_dir: DataDirOption = None) -> None:
    """Serve the memory tools over stdio (its help: ``MCP_HELP``)."""
    settings = settings_of(config)
    try:
        from longtalk.mcp import run_stdio
    except ModuleNotFoundError as exc:
        fail(str(exc))
    run_stdio(settings)
