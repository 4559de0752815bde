"""longtalk: bounded conversation memory for LLM applications.

The front door is :class:`Memory` (synchronous) and :class:`AsyncMemory`: chats you append
messages to and ask for a context that stays bounded however long they grow, as
[recalled turns] [summary] [recent window]. Everything else lives in documented submodules
(``longtalk.core.filters``, ``longtalk.summary.templates``, ``longtalk.llm.resolve``, ...).
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

# Names earlier versions exported from the package root, kept importable from there; new
# code imports them from their submodules (the ones named here).
_MOVED = {
    "AllOf": "longtalk.summary.triggers",
    "AnyOf": "longtalk.summary.triggers",
    "AssembledContext": "longtalk.core.context",
    "ChatMessage": "longtalk.llm.base",
    "CompressionResult": "longtalk.summary.compression",
    "ConflictError": "longtalk.errors",
    "ContextBudget": "longtalk.core.context",
    "ConversationSummary": "longtalk.summary.model",
    "CountOrTokensTrigger": "longtalk.summary.triggers",
    "Episode": "longtalk.core.messages",
    "HeuristicTokenCounter": "longtalk.core.tokens",
    "LLM": "longtalk.llm.base",
    "LLMRequest": "longtalk.llm.base",
    "LLMResponse": "longtalk.llm.base",
    "LLMSummarizer": "longtalk.summary.templates",
    "LLMSummaryWriter": "longtalk.summary.llm_writer",
    "MessageFilter": "longtalk.core.filters",
    "MessageFilterPipeline": "longtalk.core.filters",
    "MessageType": "longtalk.core.messages",
    "NullConversationMemory": "longtalk.null",
    "NullVectorReader": "longtalk.vectors.base",
    "PromptSet": "longtalk.summary.prompts",
    "RecallScope": "longtalk.vectors.base",
    "RecalledTurn": "longtalk.vectors.base",
    "SUPERVISOR_PIPELINE": "longtalk.core.filters",
    "SummarizeOutcome": "longtalk.engine",
    "Summarizer": "longtalk.summary.templates",
    "SummaryConfig": "longtalk.summary.templates",
    "SummaryDraft": "longtalk.summary.writer",
    "SummaryEntity": "longtalk.summary.model",
    "SummaryResult": "longtalk.summary.templates",
    "SummaryTemplate": "longtalk.summary.templates",
    "SummaryWriter": "longtalk.summary.writer",
    "TiktokenCounter": "longtalk.core.tokens",
    "TokenCounter": "longtalk.core.tokens",
    "TokenUsage": "longtalk.core.tokens",
    "TokensAndEpisodesTrigger": "longtalk.summary.triggers",
    "TriggerPolicy": "longtalk.summary.triggers",
    "TriggerResult": "longtalk.summary.triggers",
    "TruncationStrategy": "longtalk.core.truncation",
    "TurnResult": "longtalk.engine",
    "agent_pipeline": "longtalk.core.filters",
    "assemble_context": "longtalk.core.context",
    "assistant": "longtalk.core.messages",
    "check_trigger": "longtalk.summary.triggers",
    "clean_output": "longtalk.core.cleaning",
    "compress_conversation_history": "longtalk.summary.compression",
    "extract_conversation_history": "longtalk.core.filters",
    "generate_summary": "longtalk.summary.templates",
    "group_episodes": "longtalk.core.messages",
    "parse_settings": "longtalk.config",
    "render_prompt": "longtalk.summary.prompts",
    "system": "longtalk.core.messages",
    "tool_call": "longtalk.core.messages",
    "tool_result": "longtalk.core.messages",
    "truncate_content": "longtalk.truncation",
    "truncate_content_async": "longtalk.truncation",
    "user": "longtalk.core.messages",
}


def __getattr__(name: str) -> object:
    module = _MOVED.get(name)
    if module is None:
        raise AttributeError(f"module 'longtalk' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
