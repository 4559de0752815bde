"""Summary jobs stop yielding the CPU to requests while many chats wait for one."""

from __future__ import annotations

import os

from longtalk.embed.priority import BACKGROUND_NICE, SUMMARIES, in_background
from longtalk.engine import MemoryEngine
from longtalk.jobs import JobResult, LocalJobs
from longtalk.jobs.local import CATCH_UP_QUEUED
from longtalk.storage.in_memory import InMemoryStorage


def thread_nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, 0)


class NiceRecordingRunner:
    """Stands in for the job path: notes the nice value a summary's work would run at."""

    runs = 0

    def __init__(self) -> None:
        self.nice: list[int] = []

    async def run(self, chat_id: str, *, force: bool = False, incarnation: str = "") -> JobResult:
        self.nice.append(await in_background(thread_nice, pool=SUMMARIES))
        return JobResult(outcome="unchanged")


async def test_jobs_catch_up_at_the_process_priority_while_many_chats_wait() -> None:
    jobs = LocalJobs(MemoryEngine(InMemoryStorage()))
    runner = NiceRecordingRunner()
    jobs.runner = runner  # type: ignore[assignment]
    waiting = CATCH_UP_QUEUED + 4
    for number in range(waiting):
        await jobs.notify(f"chat-{number}")
    jobs.start()
    await jobs.drain()
    await jobs.stop()
    base = thread_nice()
    lowered = min(19, base + BACKGROUND_NICE)
    # The first jobs are taken with more than CATCH_UP_QUEUED chats behind them; the
    # rest, with the queue short again, yield to requests.
    behind = waiting - 1 - CATCH_UP_QUEUED
    assert runner.nice == [base] * behind + [lowered] * (waiting - behind)
