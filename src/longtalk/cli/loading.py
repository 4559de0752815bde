"""Commands that move conversations in and out: ``ingest`` and ``export`` (which round-trip)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from longtalk.cli.base import (
    ChatArgument,
    ConfigOption,
    DataDirOption,
    TenantOption,
    app,
    chat_of,
    err,
    fail,
    memory_run,
    out,
    run,
    settings_of,
    summarize_all,
    valid_chat_id,
)
from longtalk.cli.display import chat_json
from longtalk.engine import MemoryEngine
from longtalk.recall.outbox import IndexRun
from longtalk.tools.ingest import ChatFile, batch_size, check_chats, ingest_chats, read_chats
from longtalk.wire import SummaryOut

EXAMPLE_JSONL = (
    '{"chat_id": "trip", "role": "user", "content": "Hi!", "timestamp": "2026-03-02T18:10Z"}\n'
    '{"chat_id": "trip", "role": "assistant", "content": "Hello! Where to?", "name": "Ana"}\n'
)
EXAMPLE_EXPORT = (
    '{"chat": {"id": "trip", "title": "Portugal", "user": "maya"},\n'
    ' "messages": [{"role": "user", "content": "Hi, I am Maya."},\n'
    '              {"role": "assistant", "content": "Hello Maya!"}]}\n'
)
EXAMPLE_LOCOMO = (
    '[{"sample_id": "s1", "conversation": {"speaker_a": "Caroline", "speaker_b": "Melanie",\n'
    '   "session_1_date_time": "1:56 pm on 8 May, 2023",\n'
    '   "session_1": [{"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel!"},\n'
    '                 {"speaker": "Melanie", "dia_id": "D1:2", "text": "Hi Caroline!"}]}}]\n'
)


def _indented(example: str) -> str:
    return "".join(f"  {line}\n" for line in example.splitlines())


INGEST_HELP = f"""Load conversations from FILE; resumable, and re-running it adds nothing twice.

Prints the id of every chat it wrote to, with progress while it stores, embeds and
summarizes. A bad entry is refused before anything is stored, with its line and field.
Three formats are read (a .jsonl file is always JSON lines):

\b
JSON lines: one message per line. role (user, assistant, system or tool) and
content are required; name, timestamp (ISO 8601), id, type (text or tool),
tool_call_ids and metadata are optional. chat_id picks the chat (else --chat,
else the file's name):
{_indented(EXAMPLE_JSONL)}
\b
An export: the JSON object 'longtalk export' writes. The chat's id (else --chat),
title and user, and its messages, are read; summaries are made again:
{_indented(EXAMPLE_EXPORT)}
\b
LoCoMo: a JSON list of samples, one chat each (locomo-<sample_id>); speaker A
is the user, speaker B the assistant, each session's date the timestamp:
{_indented(EXAMPLE_LOCOMO)}"""


@app.command(help=INGEST_HELP)
def ingest(
    file: Annotated[
        Path,
        typer.Argument(help="JSON lines, a longtalk export or a LoCoMo JSON file.", metavar="FILE"),
    ],
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
    chat: Annotated[
        str | None,
        typer.Option(
            help="Chat id for JSON lines without one, or for an export.", callback=valid_chat_id
        ),
    ] = None,
    tenant: TenantOption = "default",
    batch: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Messages per transaction (default: 100, or the configured max_batch_size "
            "when smaller).",
        ),
    ] = None,
    summarize: Annotated[bool, typer.Option(help="Summarize the chats afterwards.")] = True,
) -> None:
    """Load conversations from a file (its help, with the formats: ``INGEST_HELP``)."""
    chats = run(_read(file, chat))
    total = sum(len(item.messages) for item in chats)

    async def work(memory: MemoryEngine) -> None:
        size = batch_size(memory.limits, batch)
        check_chats(chats, memory.limits, batch=size)  # the gate, before anything is read
        existing = {c.chat_id for c in chats if await memory.storage.get_chat(c.chat_id)}
        with _progress() as progress:
            task = progress.add_task("storing", total=total)
            report = await ingest_chats(
                memory,
                chats,
                tenant=tenant,
                batch=size,
                progress=lambda n: progress.advance(task, n),
                index=False,
            )
            indexed = await _embed(memory, [item.chat_id for item in chats], progress)
            passes = await _summarize_chats(memory, chats, progress) if summarize else 0
        for item in chats:
            state = "existing" if item.chat_id in existing else "new"
            out.print(
                f"{state} chat {item.chat_id}: {len(item.messages)} messages",
                highlight=False,
                markup=False,
            )
        out.print(
            f"{report.chats} chats ({report.created} new): {report.added} messages added, "
            f"{report.skipped} already stored, {indexed.turns} embedded for recall, "
            f"{passes} summary passes."
        )
        if indexed.error:
            fail(f"embedding stopped: {indexed.error}; run it again", 1)

    run(memory_run(settings_of(config), work))


def _progress() -> Progress:
    columns = (TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn())
    return Progress(*columns, console=err, transient=True)


async def _embed(memory: MemoryEngine, chat_ids: list[str], progress: Progress) -> IndexRun:
    """Index the chats' turns for recall batch by batch, advancing an embedding bar."""
    if not memory.indexes:
        return IndexRun()
    lagging = [await memory.storage.get_chat(chat_id) for chat_id in chat_ids]
    task = progress.add_task("embedding", total=sum(c.index_lag for c in lagging if c))
    total = IndexRun()
    while (done := await memory.index_pending(chat_ids=chat_ids)).turns:
        total = total + done
        progress.advance(task, done.turns)
    return total + done


async def _summarize_chats(memory: MemoryEngine, chats: list[ChatFile], progress: Progress) -> int:
    """Summarize each chat until nothing is due, advancing a bar per chat."""
    task = progress.add_task("summarizing", total=len(chats))
    passes = 0
    for item in chats:
        progress.update(task, description=f"summarizing {item.chat_id}")
        passes += await summarize_all(memory, item.chat_id)
        progress.advance(task)
    return passes


async def _read(file: Path, chat: str | None) -> list[ChatFile]:
    return read_chats(file, chat_id=chat)


@app.command()
def export(
    chat_id: ChatArgument,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="File (else stdout).")
    ] = None,
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
    tenant: TenantOption = "default",
) -> None:
    """Export a chat with its messages and summary chain as JSON ('longtalk ingest' reads it)."""

    async def work(memory: MemoryEngine) -> dict[str, Any]:
        record = await chat_of(memory, chat_id, tenant)
        messages = await memory.storage.list_messages(chat_id)
        rows = await memory.storage.list_summaries(chat_id)
        return {
            "chat": chat_json(record),
            "messages": [
                {"sequence": m.sequence, **m.message.model_dump(mode="json")} for m in messages
            ],
            "summaries": [SummaryOut.of(row).model_dump(mode="json") for row in rows],
        }

    if output is not None and not output.parent.is_dir():
        fail(f"cannot write {output}: {output.parent} is not a directory")
    data = run(memory_run(settings_of(config), work))
    text = json.dumps(data, ensure_ascii=False, indent=2, default=str)
    if output is None:
        out.out(text, highlight=False)
    else:
        output.write_text(text + "\n", encoding="utf-8")
        err.print(f"wrote {output}", markup=False, highlight=False)
