"""Waiting and stopping for background tasks, safe against lost cancellations.

On Python 3.11, ``asyncio.wait_for(event.wait(), t)`` returns normally when the task is
cancelled just as the event is set: the cancellation is lost, and a worker loop that was
being stopped runs on while ``stop()`` waits for it forever (seen with a summary worker
woken by a notification at the moment its service shut down). ``wait_event`` uses
``asyncio.timeout`` instead, which never swallows a cancellation, and ``stop_tasks`` cancels
again any task that is still running after its cancellation (a driver may turn one into its
own error, which a worker then logs and carries on from).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any

RECANCEL_SECONDS = 0.5
"""How long ``stop_tasks`` waits for cancelled tasks before it cancels them again."""


async def wait_event(event: asyncio.Event, seconds: float) -> bool:
    """Wait until ``event`` is set or ``seconds`` pass; True when it is set."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await event.wait()
    return event.is_set()


async def stop_tasks(
    tasks: Iterable[asyncio.Task[Any]], *, recancel_seconds: float = RECANCEL_SECONDS
) -> None:
    """Cancel ``tasks`` and return once every one of them has ended.

    A task still running ``recancel_seconds`` after its cancellation is cancelled again.
    What the tasks raised is retrieved and dropped (they are being stopped).
    """
    stopping = list(tasks)
    pending = {task for task in stopping if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=recancel_seconds)
    for task in stopping:
        if not task.cancelled():
            task.exception()
