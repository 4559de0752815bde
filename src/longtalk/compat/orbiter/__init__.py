"""Orbiter's memory package (``orbiter.memory``) on longtalk.

``longtalk.compat.orbiter.base`` holds the item types, the ``MemoryStore`` protocol and
``MemoryError``; ``longtalk.compat.orbiter.short_term`` the in-memory store
``ShortTermMemory``; ``longtalk.compat.orbiter.summary`` the trigger and template-summary
functions (the modules Orbiter calls ``orbiter.memory.base``, ``.short_term`` and
``.summary``). Their public names are re-exported here; docs/compat.md maps the rest.
"""

from longtalk.compat.orbiter.base import (
    AIMemory,
    HumanMemory,
    MemoryError,
    MemoryItem,
    MemoryMetadata,
    MemoryStatus,
    MemoryStore,
    SystemMemory,
    ToolMemory,
    from_message,
)
from longtalk.compat.orbiter.short_term import ShortTermMemory
from longtalk.compat.orbiter.summary import (
    Summarizer,
    SummaryConfig,
    SummaryResult,
    SummaryTemplate,
    TriggerResult,
    check_trigger,
    generate_summary,
    native_config,
)

__all__ = [
    "AIMemory",
    "HumanMemory",
    "MemoryError",
    "MemoryItem",
    "MemoryMetadata",
    "MemoryStatus",
    "MemoryStore",
    "ShortTermMemory",
    "Summarizer",
    "SummaryConfig",
    "SummaryResult",
    "SummaryTemplate",
    "SystemMemory",
    "ToolMemory",
    "TriggerResult",
    "check_trigger",
    "from_message",
    "generate_summary",
    "native_config",
]
