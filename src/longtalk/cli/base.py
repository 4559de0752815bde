"""The ``longtalk`` app, its consoles and shared options, and where errors become exit codes.

Errors map to exit codes in one place (:func:`exit_code`), as one line on stderr and never a
traceback: a usage or configuration error exits 2 (as do Typer's own usage errors, and text
that is not valid Unicode), an unknown chat 4, a failing backend or any other runtime
failure 1, an interrupt 130. :func:`main` is the console script; it catches what escapes a
command. Help is plain text (no markup), so ``longtalk[mcp]`` prints as written.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.text import Text

from longtalk import legacy
from longtalk.config import Settings, load_settings
from longtalk.core.limits import DEFAULT_LIMITS
from longtalk.core.redact import add_secrets, redact, redact_logs
from longtalk.engine import MemoryEngine
from longtalk.errors import InputError, LongtalkError, NotFoundError, UsageError
from longtalk.paths import DATA_DIR_ENV
from longtalk.storage.base import ChatRecord

T = TypeVar("T")

HELP = "Conversation memory: running summaries, recall and a bounded context."
app = typer.Typer(
    name="longtalk",
    help=HELP,
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,  # plain help: brackets such as longtalk[mcp] are text, not markup
    pretty_exceptions_show_locals=False,  # locals can hold keys and passwords
)
config_app = typer.Typer(help="Check configuration files.", no_args_is_help=True)
app.add_typer(config_app, name="config")

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)
DEBUG_ENV = "LONGTALK_DEBUG"
"""Set to show the traceback of an unexpected error."""
MAX_SUMMARY_PASSES = 50


def _print_version(value: bool) -> None:
    if value:
        from longtalk._version import __version__

        out.print(f"longtalk {__version__}", highlight=False, markup=False)
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            callback=_print_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Conversation memory: running summaries, recall and a bounded context."""
    redact_logs()  # warnings a command logs are masked like its errors


def valid_text(value: str | None) -> str | None:
    """A text argument as given; text that is not valid Unicode is a usage error (exit 2).

    Arguments that are not UTF-8 reach Python as lone surrogates, which no storage can hold.
    """
    if value is not None:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise typer.BadParameter("not valid UTF-8 text") from None
    return value


def valid_chat_id(value: str | None) -> str | None:
    """A chat id argument, checked as every door checks one (a usage error, exit 2)."""
    valid_text(value)
    try:
        DEFAULT_LIMITS.chat_id(value)
    except InputError as exc:
        raise typer.BadParameter(str(exc)) from None
    return value


def _data_dir(value: Path | None) -> Path | None:
    """``--data-dir``: the same as ``LONGTALK_DATA_DIR`` for this process."""
    if value is not None:
        os.environ[DATA_DIR_ENV] = str(value.expanduser().resolve())
    return value


ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", "-c", help="agents.yaml to read (LONGTALK_* env applies too)."),
]
DataDirOption = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        callback=_data_dir,
        file_okay=False,
        help="Where the SQLite file and vectors live unless configured otherwise (the same "
        "as LONGTALK_DATA_DIR; default: the user's data directory).",
    ),
]
TenantOption = Annotated[str, typer.Option(help="Tenant the chats belong to.", callback=valid_text)]
ChatArgument = Annotated[
    str, typer.Argument(help="Chat id.", metavar="CHAT", callback=valid_chat_id)
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine``; longtalk errors become a message and an exit code."""
    try:
        return asyncio.run(coroutine)
    except LongtalkError as exc:
        error(exc)
        raise typer.Exit(exit_code(exc)) from None


def exit_code(exc: BaseException) -> int:
    """The exit code of an error: 2 usage, 4 unknown chat, 130 interrupted, else 1."""
    if isinstance(exc, NotFoundError):
        return 4
    if isinstance(exc, UsageError) or _is_invalid_text(exc):
        return 2
    if isinstance(exc, KeyboardInterrupt):
        return 130
    return 1


def _is_invalid_text(exc: BaseException) -> bool:
    """Input text holding a lone surrogate, found only when something encodes it."""
    return isinstance(exc, UnicodeEncodeError) and "surrogate" in exc.reason


def error(exc: BaseException) -> None:
    """One line on stderr (``LONGTALK_DEBUG=1`` adds the traceback)."""
    text = redact(" ".join(str(exc).split())) or type(exc).__name__
    if _is_invalid_text(exc):
        text = f"the input holds text that is not valid Unicode (a lone surrogate): {text}"
    elif not isinstance(exc, LongtalkError | OSError | KeyboardInterrupt):
        text = f"{type(exc).__name__}: {text} (set {DEBUG_ENV}=1 for the traceback)"
    err.print(Text.assemble(("Error: ", "bold red"), text), highlight=False)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``message`` (secrets masked) as the one error line and exit with ``code``."""
    err.print(Text.assemble(("Error: ", "bold red"), redact(message)), highlight=False)
    raise typer.Exit(code)


def main() -> None:
    """The console script: the app, with whatever escapes a command as one line."""
    try:
        app()
    except (Exception, KeyboardInterrupt) as exc:
        if legacy.getenv(DEBUG_ENV):
            raise
        error(exc)
        sys.exit(exit_code(exc))


def settings_of(config: Path | None) -> Settings:
    """The settings of ``--config`` and the environment; a bad file exits 2."""
    try:
        settings = load_settings(config)
    except LongtalkError as exc:
        error(exc)
        raise typer.Exit(2) from None
    add_secrets(settings.service.api_keys)
    return settings


async def memory_run(settings: Settings, work: Callable[[MemoryEngine], Awaitable[T]]) -> T:
    """Open the memory of ``settings``, run ``work`` on it, close it."""
    from longtalk.factory import open_memory

    async with open_memory(settings) as memory:
        return await work(memory)


async def chat_of(memory: MemoryEngine, chat_id: str, tenant: str) -> ChatRecord:
    """The tenant's chat, or a ``NotFoundError`` naming it (exit 4)."""
    record = await memory.storage.get_chat(chat_id, tenant=tenant)
    if record is None:
        raise NotFoundError(f"no chat {chat_id!r} for tenant {tenant!r}")
    return record


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
