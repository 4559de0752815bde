"""Orbiter's memory items and summary module on longtalk.

``longtalk.compat.orbiter.base`` holds the item types, ``longtalk.compat.orbiter.summary``
the trigger and template-summary functions (the modules Orbiter calls ``orbiter.memory.base``
and ``orbiter.memory.summary``); the public names are re-exported here.
"""

from longtalk.compat.orbiter.base import (
    AIMemory,
    HumanMemory,
    MemoryItem,
    MemoryMetadata,
    MemoryStatus,
    SystemMemory,
    ToolMemory,
    from_message,
)
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
    "MemoryItem",
    "MemoryMetadata",
    "MemoryStatus",
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
