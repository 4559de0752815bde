"""PostgreSQL chat storage (the ``postgres`` extra: asyncpg), in one folder.

* ``chat_storage``: :class:`PostgresStorage`, the backend's one turn writer and its reads.
* ``queries``: every SQL statement of PostgreSQL's own (the shared schema, its migrations
  and the statements both backends run are one level up).
* ``codec``: values in and out of those statements.
* ``pool``: pooled connections checked at checkout, pinged only after idling.
* ``notify_outbox`` and ``notify_channel``: ``NOTIFY`` riding along with the next
  statement, and the ``LISTEN`` session that sends the rest and receives.
* ``job_table`` and ``index_leases``: background work and indexing leased across replicas.
"""

from longtalk.storage.postgres.chat_storage import PostgresStorage, postgres_url

__all__ = ["PostgresStorage", "postgres_url"]
