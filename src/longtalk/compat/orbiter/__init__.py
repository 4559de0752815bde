"""Orbiter's memory package (``orbiter.memory``) on longtalk.

``longtalk.compat.orbiter.base`` holds the item types, the ``MemoryStore`` protocol and
``MemoryError``; ``longtalk.compat.orbiter.short_term`` the in-memory store
``ShortTermMemory``; ``longtalk.compat.orbiter.summary`` the trigger and template-summary
functions (the modules Orbiter calls ``orbiter.memory.base``, ``.short_term`` and
``.summary``). Their public names are re-exported here; docs/compat.md maps the rest.
"""

from longtalk.compat.orbiter import base, short_term, summary
from longtalk.compat.orbiter.base import *  # noqa: F403
from longtalk.compat.orbiter.short_term import *  # noqa: F403
from longtalk.compat.orbiter.summary import *  # noqa: F403

__all__ = base.__all__ + short_term.__all__ + summary.__all__
