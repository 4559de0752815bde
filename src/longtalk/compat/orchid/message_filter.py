"""Orchid's ``core/message_filter.py`` names: longtalk's filter pipeline itself.

``OrchidAgent.extract_conversation_history(state, pipeline=...)`` runs one of these over the
graph state's messages.
"""

from longtalk.core.filters import (
    SUPERVISOR_PIPELINE,
    MessageFilter,
    MessageFilterPipeline,
    agent_pipeline,
)

__all__ = ["SUPERVISOR_PIPELINE", "MessageFilter", "MessageFilterPipeline", "agent_pipeline"]
