"""Orchid's ``core/message_filter.py`` names: memstrata's filter pipeline itself.

``OrchidAgent.extract_conversation_history(state, pipeline=...)`` runs one of these over the
graph state's messages.
"""

from memstrata.core.filters import (
    SUPERVISOR_PIPELINE,
    MessageFilter,
    MessageFilterPipeline,
    agent_pipeline,
)

__all__ = ["SUPERVISOR_PIPELINE", "MessageFilter", "MessageFilterPipeline", "agent_pipeline"]
