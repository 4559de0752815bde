"""memstrata: bounded conversation memory for LLM applications.

The front door is :class:`Memory` (synchronous) and :class:`AsyncMemory`: chats you append
messages to and ask for a context that stays bounded however long they grow, as
[recalled turns] [summary] [recent window]. Everything else lives in documented submodules
(``memstrata.core.filters``, ``memstrata.summary.templates``, ``memstrata.llm.resolve``, ...).
"""

from memstrata._version import __version__
from memstrata.config import MemoryConfig, Settings, load_settings
from memstrata.core.context import ContextPart
from memstrata.core.messages import Message, Role
from memstrata.engine import MemoryEngine
from memstrata.errors import (
    BackendError,
    ConfigError,
    LLMError,
    MemstrataError,
    NotFoundError,
    StorageError,
    UsageError,
)
from memstrata.factory import open_memory
from memstrata.memory import AsyncChat, AsyncMemory, Chat, Context, Memory
from memstrata.storage.base import ChatRecord

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
    "MemstrataError",
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

# Names earlier versions exported from the package root, kept importable from there; new
# code imports them from their submodules (the ones named here).
_MOVED = {
    "AllOf": "memstrata.summary.triggers",
    "AnyOf": "memstrata.summary.triggers",
    "AssembledContext": "memstrata.core.context",
    "ChatMessage": "memstrata.llm.base",
    "CompressionResult": "memstrata.summary.compression",
    "ConflictError": "memstrata.errors",
    "ContextBudget": "memstrata.core.context",
    "ConversationSummary": "memstrata.summary.model",
    "CountOrTokensTrigger": "memstrata.summary.triggers",
    "Episode": "memstrata.core.messages",
    "HeuristicTokenCounter": "memstrata.core.tokens",
    "LLM": "memstrata.llm.base",
    "LLMRequest": "memstrata.llm.base",
    "LLMResponse": "memstrata.llm.base",
    "LLMSummarizer": "memstrata.summary.templates",
    "LLMSummaryWriter": "memstrata.summary.llm_writer",
    "MessageFilter": "memstrata.core.filters",
    "MessageFilterPipeline": "memstrata.core.filters",
    "MessageType": "memstrata.core.messages",
    "NullConversationMemory": "memstrata.null",
    "NullVectorReader": "memstrata.vectors.base",
    "PromptSet": "memstrata.summary.prompts",
    "RecallScope": "memstrata.vectors.base",
    "RecalledTurn": "memstrata.vectors.base",
    "SUPERVISOR_PIPELINE": "memstrata.core.filters",
    "SummarizeOutcome": "memstrata.engine",
    "Summarizer": "memstrata.summary.templates",
    "SummaryConfig": "memstrata.summary.templates",
    "SummaryDraft": "memstrata.summary.writer",
    "SummaryEntity": "memstrata.summary.model",
    "SummaryResult": "memstrata.summary.templates",
    "SummaryTemplate": "memstrata.summary.templates",
    "SummaryWriter": "memstrata.summary.writer",
    "TiktokenCounter": "memstrata.core.tokens",
    "TokenCounter": "memstrata.core.tokens",
    "TokenUsage": "memstrata.core.tokens",
    "TokensAndEpisodesTrigger": "memstrata.summary.triggers",
    "TriggerPolicy": "memstrata.summary.triggers",
    "TriggerResult": "memstrata.summary.triggers",
    "TruncationStrategy": "memstrata.core.truncation",
    "TurnResult": "memstrata.engine",
    "agent_pipeline": "memstrata.core.filters",
    "assemble_context": "memstrata.core.context",
    "assistant": "memstrata.core.messages",
    "check_trigger": "memstrata.summary.triggers",
    "clean_output": "memstrata.core.cleaning",
    "compress_conversation_history": "memstrata.summary.compression",
    "extract_conversation_history": "memstrata.core.filters",
    "generate_summary": "memstrata.summary.templates",
    "group_episodes": "memstrata.core.messages",
    "parse_settings": "memstrata.config",
    "render_prompt": "memstrata.summary.prompts",
    "system": "memstrata.core.messages",
    "tool_call": "memstrata.core.messages",
    "tool_result": "memstrata.core.messages",
    "truncate_content": "memstrata.truncation",
    "truncate_content_async": "memstrata.truncation",
    "user": "memstrata.core.messages",
}


def __getattr__(name: str) -> object:
    module = _MOVED.get(name)
    if module is None:
        raise AttributeError(f"module 'memstrata' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
