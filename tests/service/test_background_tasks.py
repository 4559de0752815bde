"""Background tasks stop when told to, even when a cancellation races a wake-up."""

from __future__ import annotations

import asyncio

import pytest

from longtalk.jobs.background import stop_tasks, wait_event


async def waiting_loop(event: asyncio.Event, rounds: list[int]) -> None:
    """A worker loop: wait to be woken (or poll), do a round of work, wait again."""
    while True:
        event.clear()
        await wait_event(event, 30)
        rounds.append(1)


async def test_a_cancellation_that_races_the_wake_up_stops_the_loop() -> None:
    event, rounds = asyncio.Event(), []
    task = asyncio.create_task(waiting_loop(event, rounds))
    await asyncio.sleep(0)  # the loop waits for the event
    event.set()  # a notification and the shutdown arrive together
    task.cancel()
    done, _ = await asyncio.wait([task], timeout=2)
    assert task in done and task.cancelled() and rounds == []


async def test_wait_event_says_whether_the_event_came() -> None:
    event = asyncio.Event()
    assert await wait_event(event, 0.01) is False
    asyncio.get_running_loop().call_later(0.01, event.set)
    assert await wait_event(event, 5) is True


async def test_stop_tasks_cancels_again_a_task_that_swallowed_its_cancellation() -> None:
    swallowed = []

    async def stubborn() -> None:
        while True:
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:  # a driver turned it into its own error, say
                if swallowed:
                    raise
                swallowed.append(1)

    async def failing() -> None:
        raise RuntimeError("ended with an error before the stop")

    tasks = [asyncio.create_task(stubborn()), asyncio.create_task(failing())]
    await asyncio.sleep(0)
    await asyncio.wait_for(stop_tasks(tasks, recancel_seconds=0.05), 5)
    assert swallowed == [1] and tasks[0].cancelled()
    assert isinstance(tasks[1].exception(), RuntimeError)


@pytest.mark.parametrize("count", [0, 3])
async def test_stop_tasks_returns_for_finished_and_empty_lists(count: int) -> None:
    async def quick() -> None:
        return None

    tasks = [asyncio.create_task(quick()) for _ in range(count)]
    await asyncio.gather(*tasks)
    await asyncio.wait_for(stop_tasks(tasks), 1)
    assert all(task.done() for task in tasks)
