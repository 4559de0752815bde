"""``Context``: what to send the model for one turn (see :class:`longtalk.core.context.Context`)."""

from longtalk.core.context import Context

__all__ = ["Context"]
