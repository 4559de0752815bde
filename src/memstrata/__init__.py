"""memstrata: bounded conversation memory for LLM applications.

A message filter pipeline, an incremental running summary (plain or structured), semantic
recall of relevant past turns, and atomic persistence; every part degrades gracefully.
"""

from memstrata.config import MemoryConfig, Settings, load_settings, parse_settings
from memstrata.core.cleaning import clean_output
from memstrata.core.context import AssembledContext, ContextBudget, ContextPart, assemble_context
from memstrata.core.filters import (
    SUPERVISOR_PIPELINE,
    MessageFilter,
    MessageFilterPipeline,
    agent_pipeline,
    extract_conversation_history,
)
from memstrata.core.messages import (
    Episode,
    Message,
    MessageType,
    Role,
    assistant,
    group_episodes,
    system,
    tool_call,
    tool_result,
    user,
)
from memstrata.core.tokens import (
    HeuristicTokenCounter,
    TiktokenCounter,
    TokenCounter,
    TokenUsage,
)
from memstrata.core.truncation import TruncationStrategy
from memstrata.engine import MemoryEngine, SummarizeOutcome, TurnResult
from memstrata.errors import (
    BackendError,
    ConfigError,
    ConflictError,
    LLMError,
    MemstrataError,
    StorageError,
    UsageError,
)
from memstrata.factory import open_memory
from memstrata.llm.base import LLM, ChatMessage, LLMRequest, LLMResponse
from memstrata.null import NullConversationMemory
from memstrata.summary.compression import CompressionResult, compress_conversation_history
from memstrata.summary.llm_writer import LLMSummaryWriter
from memstrata.summary.model import ConversationSummary, SummaryEntity
from memstrata.summary.prompts import PromptSet, render_prompt
from memstrata.summary.templates import (
    LLMSummarizer,
    Summarizer,
    SummaryConfig,
    SummaryResult,
    SummaryTemplate,
    generate_summary,
)
from memstrata.summary.triggers import (
    AllOf,
    AnyOf,
    CountOrTokensTrigger,
    TokensAndEpisodesTrigger,
    TriggerPolicy,
    TriggerResult,
    check_trigger,
)
from memstrata.summary.writer import SummaryDraft, SummaryWriter
from memstrata.truncation import truncate_content, truncate_content_async
from memstrata.vectors.base import NullVectorReader, RecalledTurn, RecallScope

__version__ = "0.1.0"

__all__ = [
    "LLM",
    "SUPERVISOR_PIPELINE",
    "AllOf",
    "AnyOf",
    "AssembledContext",
    "BackendError",
    "ChatMessage",
    "CompressionResult",
    "ConfigError",
    "ConflictError",
    "ContextBudget",
    "ContextPart",
    "ConversationSummary",
    "CountOrTokensTrigger",
    "Episode",
    "HeuristicTokenCounter",
    "LLMError",
    "LLMRequest",
    "LLMResponse",
    "LLMSummarizer",
    "LLMSummaryWriter",
    "MemoryConfig",
    "MemoryEngine",
    "MemstrataError",
    "Message",
    "MessageFilter",
    "MessageFilterPipeline",
    "MessageType",
    "NullConversationMemory",
    "NullVectorReader",
    "PromptSet",
    "RecallScope",
    "RecalledTurn",
    "Role",
    "Settings",
    "StorageError",
    "SummarizeOutcome",
    "Summarizer",
    "SummaryConfig",
    "SummaryDraft",
    "SummaryEntity",
    "SummaryResult",
    "SummaryTemplate",
    "SummaryWriter",
    "TiktokenCounter",
    "TokenCounter",
    "TokenUsage",
    "TokensAndEpisodesTrigger",
    "TriggerPolicy",
    "TriggerResult",
    "TruncationStrategy",
    "TurnResult",
    "UsageError",
    "__version__",
    "agent_pipeline",
    "assemble_context",
    "assistant",
    "check_trigger",
    "clean_output",
    "compress_conversation_history",
    "extract_conversation_history",
    "generate_summary",
    "group_episodes",
    "load_settings",
    "open_memory",
    "parse_settings",
    "render_prompt",
    "system",
    "tool_call",
    "tool_result",
    "truncate_content",
    "truncate_content_async",
    "user",
]
