"""Orchid's conversation-memory API on longtalk.

Import the names from here (or from the submodule named like Orchid's module; docs/compat.md
maps every Orchid module): the structured summary types (``memory_types``), truncation
(``truncation``), the agent base class (``agent``) and its history helpers (``helpers``), the
filter pipelines (``message_filter``), the memory base classes (``memory_base``), the
running-summary and RAG memories (``memory``, ``memory_rag``), the vector data types and the
null reader (``repository``), the supervisor settings (``config``), and
``LongtalkChatStorage`` and ``LongtalkTurnStore``: Orchid's summary storage and vector
reader/writer over longtalk's storage and recall (``storage``, ``recall``).
"""

from longtalk.compat.orchid import memory_types
from longtalk.compat.orchid.agent import OrchidAgent
from longtalk.compat.orchid.chat_model import ChatModelLLM
from longtalk.compat.orchid.config import OrchidMemoryConfig, OrchidSupervisorConfig
from longtalk.compat.orchid.helpers import filter_summary_messages
from longtalk.compat.orchid.memory import OrchidInMemoryConversationMemory
from longtalk.compat.orchid.memory_base import NullConversationMemory, OrchidConversationMemory
from longtalk.compat.orchid.memory_rag import OrchidRAGConversationMemory
from longtalk.compat.orchid.memory_types import *  # noqa: F403
from longtalk.compat.orchid.message_filter import (
    SUPERVISOR_PIPELINE,
    MessageFilter,
    MessageFilterPipeline,
    agent_pipeline,
)
from longtalk.compat.orchid.recall import LongtalkTurnStore
from longtalk.compat.orchid.repository import (
    NullVectorReader,
    OrchidDocument,
    OrchidRAGScope,
    OrchidSearchResult,
)
from longtalk.compat.orchid.storage import LongtalkChatStorage
from longtalk.compat.orchid.truncation import (
    OrchidTruncationStrategy,
    truncate_content,
    truncate_content_async,
)

__all__ = [
    "SUPERVISOR_PIPELINE",
    "ChatModelLLM",
    "LongtalkChatStorage",
    "LongtalkTurnStore",
    "MessageFilter",
    "MessageFilterPipeline",
    "NullConversationMemory",
    "NullVectorReader",
    "OrchidAgent",
    "OrchidConversationMemory",
    "OrchidDocument",
    "OrchidInMemoryConversationMemory",
    "OrchidMemoryConfig",
    "OrchidRAGConversationMemory",
    "OrchidRAGScope",
    "OrchidSearchResult",
    "OrchidSupervisorConfig",
    "OrchidTruncationStrategy",
    "agent_pipeline",
    "filter_summary_messages",
    "truncate_content",
    "truncate_content_async",
]
__all__ += memory_types.__all__
