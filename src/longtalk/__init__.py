"""longtalk: bounded conversation memory for LLM applications.

The front door is :class:`Memory` (synchronous) and :class:`AsyncMemory`: chats you append
messages to and ask for a context that stays bounded however long they grow, as
[recalled turns] [summary] [recent window]. Everything else lives in documented submodules
(``longtalk.core.filters``, ``longtalk.summary.triggers``, ``longtalk.llm.resolve``, ...); the
APIs of the systems longtalk replaces are in ``longtalk.compat``.
"""

from longtalk._version import __version__
from longtalk.config import MemoryConfig, Settings, load_settings
from longtalk.core.context import ContextPart
from longtalk.core.messages import Message, Role
from longtalk.engine import MemoryEngine
from longtalk.errors import (
    BackendError,
    ConfigError,
    LLMError,
    LongtalkError,
    NotFoundError,
    StorageError,
    UsageError,
)
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
