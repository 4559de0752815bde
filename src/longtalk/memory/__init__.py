"""The front door: ``AsyncMemory`` and ``Memory``, its thin synchronous wrapper.

::

    with Memory() as memory:                      # embedded defaults, nothing to run
        chat = memory.chat("trip", user="priya")  # gets the chat, or creates it
        chat.append("user", question)
        context = chat.context(question)          # [recalled] [summary] [recent window]
        reply = call_your_model(context.messages)  # OpenAI-style {"role", "content"} dicts
        chat.append("assistant", reply)

``AsyncMemory`` is the one implementation; ``Memory`` runs it on a private event loop in a
thread of its own, so it works the same from plain scripts, threads and notebooks whose
own loop is already running. Both open on the embedded defaults (SQLite, Qdrant's engine
in-process, the bundled MiniLM model, the offline summarizer), or from ``Settings``, a
configuration mapping, an ``agents.yaml`` path or a storage URL, and close as context
managers. ``memory.engine`` is the :class:`~longtalk.engine.MemoryEngine` underneath.

A chat with a ``user`` also gets what that user's other chats left (facts, preferences,
profile lines, each with the chat and messages it came from) as the first part of its
context; ``remember``, ``user_memory`` and ``forget`` manage it.

``api`` names the chat API every door offers (``MemoryAPI``, ``ChatAPI`` and their async
twins), which the HTTP client implements too.

Modules: ``sources`` (what a memory opens from), ``handle`` (what every chat object knows,
the HTTP client's too), ``blocking`` (the synchronous face of an async door, the HTTP
client's too), ``async_memory`` (``AsyncMemory``, ``AsyncChat``), ``sync`` (``Memory``,
``Chat``). The names below load on first use, so the HTTP client can share ``handle`` and
``blocking`` without loading the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from longtalk.core.lazy import lazy_dir, lazy_loader

if TYPE_CHECKING:
    from longtalk.core.context import Context
    from longtalk.memory.api import AsyncChatAPI, AsyncMemoryAPI, ChatAPI, MemoryAPI
    from longtalk.memory.async_memory import AsyncChat, AsyncMemory
    from longtalk.memory.sources import SummarizeMode, resolve_settings
    from longtalk.memory.sync import Chat, Memory

__all__ = [
    "AsyncChat",
    "AsyncChatAPI",
    "AsyncMemory",
    "AsyncMemoryAPI",
    "Chat",
    "ChatAPI",
    "Context",
    "Memory",
    "MemoryAPI",
    "SummarizeMode",
    "resolve_settings",
]

_LAZY = {
    "AsyncChat": "longtalk.memory.async_memory",
    "AsyncChatAPI": "longtalk.memory.api",
    "AsyncMemory": "longtalk.memory.async_memory",
    "AsyncMemoryAPI": "longtalk.memory.api",
    "Chat": "longtalk.memory.sync",
    "ChatAPI": "longtalk.memory.api",
    "Context": "longtalk.core.context",
    "Memory": "longtalk.memory.sync",
    "MemoryAPI": "longtalk.memory.api",
    "SummarizeMode": "longtalk.memory.sources",
    "resolve_settings": "longtalk.memory.sources",
}


__getattr__ = lazy_loader(__name__, _LAZY, globals())
__dir__ = lazy_dir(globals())
