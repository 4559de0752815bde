"""``longtalk forget``: forget messages of a chat everywhere, and print the receipt."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from longtalk.cli.base import (
    ChatArgument,
    ConfigOption,
    DataDirOption,
    JsonOption,
    TenantOption,
    app,
    chat_of,
    err,
    memory_run,
    out,
    run,
    settings_of,
)
from longtalk.engine import ForgetReceipt, MemoryEngine


@app.command()
def forget(
    chat_id: ChatArgument,
    sequences: Annotated[
        list[int], typer.Argument(help="Sequences of the messages to forget.", min=1)
    ],
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
    tenant: TenantOption = "default",
    as_json: JsonOption = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Forget messages everywhere: them, and the summaries, facts and vectors drawn from them."""
    listed = ", ".join(str(s) for s in sequences)
    if not yes and not typer.confirm(f"Forget messages {listed} of chat {chat_id!r} everywhere?"):
        err.print("Nothing forgotten.")
        raise typer.Exit(1)

    async def work(memory: MemoryEngine) -> ForgetReceipt:
        await chat_of(memory, chat_id, tenant)
        return await memory.forget(chat_id, sequences, tenant=tenant)

    receipt = run(memory_run(settings_of(config), work))
    if as_json:
        out.print_json(json.dumps(receipt.to_dict()))
        return
    out.print(f"Forgot messages {listed} of chat {chat_id!r}:", highlight=False, markup=False)
    for line in receipt.lines():
        out.print(f"  {line}", highlight=False, markup=False)
