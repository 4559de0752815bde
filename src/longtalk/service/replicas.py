"""Several replicas on one PostgreSQL database: leased jobs, leased indexing, relayed events.

``shared(...)`` returns the :class:`SharedState` of a replica when the storage is PostgreSQL
(and ``service.job_queue`` is ``auto`` or ``postgres``), otherwise None: a single node keeps
the in-process job queue and event hub. ``open()`` starts the listening session that wakes
job workers and carries events between replicas; ``close()`` ends it.
"""

from __future__ import annotations

import os
import socket
import uuid

from longtalk.config import ServiceConfig
from longtalk.engine import MemoryEngine
from longtalk.errors import ConfigError
from longtalk.service.event_hub import EventHub
from longtalk.service.event_relay import EVENTS_CHANNEL, PostgresEventRelay
from longtalk.service.leased_indexing import LeasedIndexPass
from longtalk.service.leased_jobs import SUMMARY_KIND, LeasedSummaryJobs
from longtalk.service.metrics import ServiceMetrics
from longtalk.storage.postgres import PostgresStorage
from longtalk.storage.postgres.index_leases import IndexLeases
from longtalk.storage.postgres.job_table import JobTable
from longtalk.storage.postgres.notify_channel import Handler, NotifyChannel
from longtalk.storage.postgres.queries import JOBS_CHANNEL


def replica_name() -> str:
    """The name of this process in leases and events: host, pid and a random suffix."""
    return f"{socket.gethostname()[:32]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class SharedState:
    """A replica's PostgreSQL-coordinated jobs, indexing, event relay and listening session."""

    def __init__(
        self,
        engine: MemoryEngine,
        storage: PostgresStorage,
        config: ServiceConfig,
        hub: EventHub,
        metrics: ServiceMetrics,
    ) -> None:
        self.name = replica_name()
        lease = config.job_lease_seconds
        self.jobs = LeasedSummaryJobs(
            engine,
            JobTable(storage, kind=SUMMARY_KIND, owner=self.name, lease=lease),
            hub=hub,
            metrics=metrics,
            workers=config.summary_workers,
            poll_seconds=config.job_poll_seconds,
        )
        self.index_pass = LeasedIndexPass(IndexLeases(storage, owner=self.name, lease=lease))
        self.relay = PostgresEventRelay(hub, storage, self.jobs.table, origin=self.name)
        hub.relay = self.relay
        handlers: dict[str, Handler] = {
            JOBS_CHANNEL: self.jobs.wake,
            EVENTS_CHANNEL: self.relay.receive,
        }
        self.channel = NotifyChannel(storage, handlers, on_connect=self.jobs.wake)

    async def open(self) -> None:
        """Start listening, then relaying events."""
        await self.channel.start()
        self.relay.start(self.channel)

    async def close(self) -> None:
        """Stop relaying and listening."""
        await self.relay.stop()
        await self.channel.close()


def shared(
    engine: MemoryEngine, config: ServiceConfig, hub: EventHub, metrics: ServiceMetrics
) -> SharedState | None:
    """The replica's shared state on PostgreSQL; None for a single node."""
    storage = engine.storage
    if config.job_queue == "local":
        return None
    if isinstance(storage, PostgresStorage):
        return SharedState(engine, storage, config, hub, metrics)
    if config.job_queue == "postgres":
        raise ConfigError(
            f"service.job_queue is 'postgres' but the storage is {type(storage).__name__}: "
            "use a postgresql:// storage URL, or job_queue 'auto'",
            path="service.job_queue",
        )
    return None
