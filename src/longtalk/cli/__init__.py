"""The ``longtalk`` command line (Typer + rich), one module per group of commands.

``base`` holds the app, the consoles, the shared options and the one mapping of errors to
exit codes; ``serving`` (serve, demo, migrate, mcp), ``loading`` (ingest, export),
``inspecting`` (context, summaries, list, show), ``forgetting`` (forget) and ``chats`` (chat,
reindex, delete, config check) add their commands to it on import. ``main`` is the console script.
"""

from __future__ import annotations

from longtalk.cli import chats, forgetting, inspecting, loading, serving
from longtalk.cli.base import app, exit_code, main

__all__ = ["app", "chats", "exit_code", "forgetting", "inspecting", "loading", "main", "serving"]
