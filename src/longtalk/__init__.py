"""longtalk: bounded conversation memory for LLM applications.

The front door is :class:`Memory` (synchronous) and :class:`AsyncMemory`: chats you append
messages to and ask for a context that stays bounded however long they grow, as
[recalled turns] [summary] [recent window]. Everything else lives in documented submodules
(``longtalk.core.filters``, ``longtalk.summary.triggers``, ``longtalk.llm.resolve``, ...); the
APIs of the systems longtalk replaces are in ``longtalk.compat``.

The names below load on first use, so ``import longtalk.client`` (or any light submodule)
does not pull in the engine, the database drivers or the numeric stack.
"""

import typing as _typing

from longtalk._version import __version__
from longtalk.core.lazy import lazy_dir as _lazy_dir
from longtalk.core.lazy import lazy_loader as _lazy_loader
from longtalk.errors import (
    BackendError,
    ConfigError,
    LLMError,
    LongtalkError,
    NotFoundError,
    StorageError,
    UsageError,
)

if _typing.TYPE_CHECKING:
    from longtalk.config import MemoryConfig, Settings, load_settings
    from longtalk.core.context import ContextPart
    from longtalk.core.messages import Message, Role
    from longtalk.engine import MemoryEngine
    from longtalk.factory import open_memory
    from longtalk.memory import AsyncChat, AsyncMemory, Chat, Context, Memory
    from longtalk.storage.base import ChatRecord

__all__ = [
    "AsyncChat",
    "AsyncMemory",
    "BackendError",
    "Chat",
    "ChatRecord",
    "ConfigError",
    "Context",
    "ContextPart",
    "LLMError",
    "Memory",
    "MemoryConfig",
    "MemoryEngine",
    "LongtalkError",
    "Message",
    "NotFoundError",
    "Role",
    "Settings",
    "StorageError",
    "UsageError",
    "__version__",
    "load_settings",
    "open_memory",
]

_LAZY = {
    "AsyncChat": "longtalk.memory",
    "AsyncMemory": "longtalk.memory",
    "Chat": "longtalk.memory",
    "ChatRecord": "longtalk.storage.base",
    "Context": "longtalk.memory",
    "ContextPart": "longtalk.core.context",
    "Memory": "longtalk.memory",
    "MemoryConfig": "longtalk.config",
    "MemoryEngine": "longtalk.engine",
    "Message": "longtalk.core.messages",
    "Role": "longtalk.core.messages",
    "Settings": "longtalk.config",
    "load_settings": "longtalk.config",
    "open_memory": "longtalk.factory",
}
"""Each public name and the module it is loaded from on first use."""


__getattr__ = _lazy_loader(__name__, _LAZY, globals())
__dir__ = _lazy_dir(globals())
