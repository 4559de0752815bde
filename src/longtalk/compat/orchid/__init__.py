"""Orchid's conversation-memory API on longtalk.

Import the names from here (or from the submodule named like Orchid's module): the
structured summary types (``memory_types``), truncation (``truncation``), the agent's history
helpers (``agent``) and filter pipelines (``message_filter``), the memory base classes
(``memory_base``), the running-summary and RAG memories (``memory``, ``memory_rag``), the
vector data types (``repository``), the supervisor settings (``config``), and
``LongtalkChatStorage`` and ``LongtalkTurnStore``: Orchid's summary storage and vector
reader/writer over longtalk's storage and recall (``storage``, ``recall``).
"""

from longtalk.compat.orchid.agent import OrchidAgent
from longtalk.compat.orchid.chat_model import ChatModelLLM
from longtalk.compat.orchid.config import OrchidSupervisorConfig
from longtalk.compat.orchid.memory import OrchidInMemoryConversationMemory
from longtalk.compat.orchid.memory_base import NullConversationMemory, OrchidConversationMemory
from longtalk.compat.orchid.memory_rag import OrchidRAGConversationMemory
from longtalk.compat.orchid.memory_types import (
    DEFAULT_NARRATIVE_FALLBACK_PROMPT,
    DEFAULT_STRUCTURED_EXTENSION_SYSTEM_PROMPT,
    DEFAULT_STRUCTURED_EXTENSION_USER_PROMPT,
    DEFAULT_STRUCTURED_SUMMARY_SYSTEM_PROMPT,
    DEFAULT_STRUCTURED_SUMMARY_USER_PROMPT,
    SUMMARY_JSON_SCHEMA,
    OrchidConversationSummary,
    OrchidSummaryEntity,
)
from longtalk.compat.orchid.message_filter import (
    SUPERVISOR_PIPELINE,
    MessageFilter,
    MessageFilterPipeline,
    agent_pipeline,
)
from longtalk.compat.orchid.recall import LongtalkTurnStore
from longtalk.compat.orchid.repository import (
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
    "DEFAULT_NARRATIVE_FALLBACK_PROMPT",
    "DEFAULT_STRUCTURED_EXTENSION_SYSTEM_PROMPT",
    "DEFAULT_STRUCTURED_EXTENSION_USER_PROMPT",
    "DEFAULT_STRUCTURED_SUMMARY_SYSTEM_PROMPT",
    "DEFAULT_STRUCTURED_SUMMARY_USER_PROMPT",
    "SUMMARY_JSON_SCHEMA",
    "SUPERVISOR_PIPELINE",
    "ChatModelLLM",
    "LongtalkChatStorage",
    "LongtalkTurnStore",
    "MessageFilter",
    "MessageFilterPipeline",
    "NullConversationMemory",
    "OrchidAgent",
    "OrchidConversationMemory",
    "OrchidConversationSummary",
    "OrchidDocument",
    "OrchidInMemoryConversationMemory",
    "OrchidRAGConversationMemory",
    "OrchidRAGScope",
    "OrchidSearchResult",
    "OrchidSummaryEntity",
    "OrchidSupervisorConfig",
    "OrchidTruncationStrategy",
    "agent_pipeline",
    "truncate_content",
    "truncate_content_async",
]
