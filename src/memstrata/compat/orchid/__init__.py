"""Orchid's conversation-memory API on memstrata.

Import the names from here (or from the submodule named like Orchid's module): the
structured summary types (``memory_types``), truncation (``truncation``), the agent's history
helpers (``agent``), the running-summary and RAG memories (``memory``, ``memory_rag``), the
vector data types (``repository``), the supervisor settings (``config``), and
``MemstrataChatStorage``: Orchid's summary storage calls over memstrata's SQLite or
PostgreSQL storage (``storage``).
"""

from memstrata.compat.orchid.agent import OrchidAgent
from memstrata.compat.orchid.chat_model import ChatModelLLM
from memstrata.compat.orchid.config import OrchidSupervisorConfig
from memstrata.compat.orchid.memory import OrchidInMemoryConversationMemory
from memstrata.compat.orchid.memory_rag import OrchidRAGConversationMemory
from memstrata.compat.orchid.memory_types import (
    DEFAULT_NARRATIVE_FALLBACK_PROMPT,
    DEFAULT_STRUCTURED_EXTENSION_SYSTEM_PROMPT,
    DEFAULT_STRUCTURED_EXTENSION_USER_PROMPT,
    DEFAULT_STRUCTURED_SUMMARY_SYSTEM_PROMPT,
    DEFAULT_STRUCTURED_SUMMARY_USER_PROMPT,
    SUMMARY_JSON_SCHEMA,
    OrchidConversationSummary,
    OrchidSummaryEntity,
)
from memstrata.compat.orchid.repository import (
    OrchidDocument,
    OrchidRAGScope,
    OrchidSearchResult,
)
from memstrata.compat.orchid.storage import MemstrataChatStorage
from memstrata.compat.orchid.truncation import (
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
    "ChatModelLLM",
    "MemstrataChatStorage",
    "OrchidAgent",
    "OrchidConversationSummary",
    "OrchidDocument",
    "OrchidInMemoryConversationMemory",
    "OrchidRAGConversationMemory",
    "OrchidRAGScope",
    "OrchidSearchResult",
    "OrchidSummaryEntity",
    "OrchidSupervisorConfig",
    "OrchidTruncationStrategy",
    "truncate_content",
    "truncate_content_async",
]
