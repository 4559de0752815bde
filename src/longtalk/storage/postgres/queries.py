"""Every statement of PostgreSQL's own, in one place.

The shared schema and its migrations are in ``storage.schema`` and ``storage.migrations``,
the statements both backends run in ``storage.sql_statements``. The hot path is single
statements: a context read, a turn, a job claim. Each runs alone in autocommit (a lone
statement is its own transaction), so a read is one snapshot and a write one transaction,
each one round trip:

* :data:`LOAD_STATE`: the chat row, its shown summary chain, the messages a smart load
  takes and (when asked) its user's memory, aggregated as JSON.
* :data:`COMMIT_TURN`: a whole ``TurnCommit`` (messages, summary rows, title, facts, run
  stats, the job row and its notification). The chat row is locked first; every check
  (tenant, replay by message id, incarnation, summary compare-and-swap, bookkeeping, the
  rows to patch) is a condition of one ``ok`` row that every write joins, so a refused
  commit writes nothing. ``fresh`` tells whether the chat row locked is the one the
  statement's snapshot sees: when another commit landed in between, the reads of the
  snapshot (stored ids, the chain's last row) may be stale and the caller runs it again;
  after a few such races it runs it after :data:`LOCK_CHAT` in one transaction, where the
  statement's snapshot is taken with the lock held and so is always fresh.
* :data:`CLAIM_JOB`: lease the oldest due job nobody holds and read its chat's state as
  ``LOAD_STATE`` does, with how many more are due and when the next lease or retry falls
  due (so idle workers sleep until then instead of polling).

Below them: the notifications no statement took (``notify_channel``), the job table's other
statements (``job_table``), the indexing leases on chat rows (``index_leases``) and the
migrations' advisory lock.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import text

JOBS_CHANNEL = "longtalk_jobs"
"""The ``NOTIFY`` channel that announces new or released job rows."""

CHAT_COLUMNS = (
    "id, tenant, user_id, title, created_at, updated_at, message_count, "
    "last_summarized_sequence, summary_version, indexed_sequence, incarnation, title_source, "
    "summary_calls, summary_input_tokens, summary_output_tokens, summary_failures, "
    "failure_kinds, last_error, retry_at, retry_volume, content_chars"
)
MESSAGE_COLUMNS = (
    "sequence", "message_id", "role", "content", "name", "type", "tool_call_ids", "timestamp",
    "metadata",
)  # fmt: skip
SUMMARY_COLUMNS = (
    "id", "sequence", "summary_text", "format", "episode_first", "episode_last", "turn_number",
    "token_count", "kind", "version", "created_at", "updated_at",
)  # fmt: skip
USER_COLUMNS = (
    "id", "kind", "text", "origin", "chat_id", "episode_first", "episode_last", "created_at",
)  # fmt: skip


def json_array(alias: str, columns: Sequence[str]) -> str:
    """A row's ``columns`` as one JSON array (nested rows travel as arrays, in this order)."""
    return f"json_build_array({', '.join(f'{alias}.{column}' for column in columns)})"


MESSAGE_JSON = json_array("m", MESSAGE_COLUMNS)
SUMMARY_JSON = json_array("s", SUMMARY_COLUMNS)
USER_JSON = json_array("u", USER_COLUMNS)


def outbox(channels: str, payloads: str) -> str:
    """A CTE (``outbox``) sending the riding notifications (``notify_outbox``) with a statement."""
    return f"""outbox AS (
    SELECT pg_notify(o.channel, o.payload)
    FROM unnest({channels}::text[], {payloads}::text[]) AS o(channel, payload)
)"""


NOTIFY_MANY = (
    "SELECT count(pg_notify(o.channel, o.payload)) "
    "FROM unnest($1::text[], $2::text[]) AS o(channel, payload)"
)
"""The notifications no statement took, sent alone in one round trip (``notify_channel``)."""


def _c(columns: str, alias: str) -> str:
    return ", ".join(f"{alias}.{name.strip()}" for name in columns.split(","))


def _state(tail: str) -> str:
    """The select list and joins of a chat's state (chat ``c``, its chain ``chain``)."""
    return f"""
    {_c(CHAT_COLUMNS, "c")}, c.facts AS facts, chain.rows AS summaries,
    (SELECT json_agg({MESSAGE_JSON} ORDER BY m.sequence) FROM messages m
     WHERE m.chat_id = c.id AND m.sequence > CASE WHEN chain.rows IS NULL THEN 0
       ELSE greatest(0, least(c.last_summarized_sequence, c.message_count - {tail})) END
    ) AS messages"""


_CHAIN = f"""
    LATERAL (SELECT json_agg({SUMMARY_JSON} ORDER BY s.episode_first, s.sequence) AS rows
             FROM conversation_summaries s WHERE s.chat_id = c.id AND s.kind <> 'archived')
    AS chain"""

GET_CHAT = f"""
SELECT {CHAT_COLUMNS} FROM chats WHERE id = $1::text AND ($2::text IS NULL OR tenant = $2)
"""

LOAD_STATE = f"""
SELECT {_state("$2::int")},
    CASE WHEN $3::bool THEN coalesce(
        (SELECT json_agg({USER_JSON} ORDER BY u.id) FROM user_memory u
         WHERE u.tenant = c.tenant AND u.user_id = c.user_id), '[]'::json) END AS users
FROM chats c, {_CHAIN}
WHERE c.id = $1::text
"""

_JOB_DUE = "due_at <= now() AND (lease_until IS NULL OR lease_until < now())"

CLAIM_JOB = f"""
WITH claimed AS (
    UPDATE longtalk_jobs AS j
    SET lease_owner = $2::text, lease_until = now() + make_interval(secs => $3::float8)
    FROM (
        SELECT kind, chat_id FROM longtalk_jobs
        WHERE kind = $1::text AND {_JOB_DUE}
        ORDER BY due_at LIMIT 1
        FOR UPDATE SKIP LOCKED
    ) AS free
    WHERE j.kind = free.kind AND j.chat_id = free.chat_id
    RETURNING j.chat_id, j.tenant, j.generation, j.attempts
), queue AS (
    SELECT count(*) FILTER (WHERE {_JOB_DUE}) AS due,
           min(CASE WHEN lease_until >= now() THEN lease_until ELSE due_at END)
               FILTER (WHERE NOT ({_JOB_DUE})) AS next_at
    FROM longtalk_jobs WHERE kind = $1::text
), {outbox("$5", "$6")}
SELECT job.chat_id AS job_chat, job.tenant AS job_tenant, job.generation, job.attempts,
       queue.due, EXTRACT(EPOCH FROM queue.next_at - now())::float8 AS next_in,
       (SELECT count(*) FROM outbox) AS sent,
       {_state("$4::int")}
FROM queue
LEFT JOIN claimed AS job ON true
LEFT JOIN chats AS c ON c.id = job.chat_id
LEFT JOIN {_CHAIN} ON true
"""

COMMIT_TURN = f"""
WITH chat AS (
    SELECT {CHAT_COLUMNS}, xmin::text AS version_tag FROM chats WHERE id = $1::text
    FOR UPDATE
), seen AS (
    SELECT xmin::text AS version_tag FROM chats WHERE id = $1::text
), found AS (
    SELECT json_agg({MESSAGE_JSON} ORDER BY m.sequence) AS rows FROM messages m
    WHERE m.chat_id = $1::text AND m.message_id = ANY($4::text[])
), targets AS (
    SELECT json_agg(s.id) AS ids, count(*) AS n FROM conversation_summaries s
    WHERE s.chat_id = $1::text AND s.id = ANY($26::text[]::bigint[])
), ok AS (
    SELECT chat.* FROM chat, seen, found, targets
    WHERE chat.version_tag = seen.version_tag
      AND ($2::text IS NULL OR chat.tenant = $2)
      AND found.rows IS NULL
      AND ($3::text IS NULL OR chat.incarnation = $3)
      AND $15::bool
      AND (NOT $16::bool OR $17::int IS NULL OR chat.summary_version = $17)
      AND ($18::int IS NULL
           OR ($18 >= chat.last_summarized_sequence AND $18 <= chat.message_count + $13::int))
      AND targets.n = cardinality($26::text[])
      AND ($21::int IS NULL OR chat.message_count = $21)
), new_messages AS (
    INSERT INTO messages (chat_id, sequence, message_id, role, content, name, type,
                          tool_call_ids, timestamp, metadata, created_at)
    SELECT ok.id, ok.message_count + n.ord, n.message_id, n.role, n.content, n.name, n.type,
           n.tool_call_ids::json, n.stamp, n.metadata::json, $14::timestamptz
    FROM ok, unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
                    $11::text[], $12::text[])
         WITH ORDINALITY AS n(message_id, role, content, name, type, tool_call_ids, stamp,
                              metadata, ord)
), patched AS (
    UPDATE conversation_summaries AS s
    SET summary_text = p.summary_text, format = p.format,
        episode_first = p.episode_first::int, episode_last = p.episode_last::int,
        turn_number = p.turn_number::int, token_count = p.token_count::int, kind = p.kind,
        version = s.version + 1, updated_at = $14::timestamptz
    FROM ok, unnest($26::text[], $27::text[], $28::text[], $29::text[], $30::text[],
                    $31::text[], $32::text[], $33::text[])
         AS p(id, summary_text, format, episode_first, episode_last, turn_number,
              token_count, kind)
    WHERE s.id = p.id::bigint AND s.chat_id = ok.id
    RETURNING {SUMMARY_JSON} AS row
), inserted AS (
    INSERT INTO conversation_summaries AS s (chat_id, sequence, summary_text, format,
        episode_first, episode_last, turn_number, token_count, kind, version, created_at,
        updated_at)
    SELECT ok.id,
           coalesce((SELECT max(sequence) FROM conversation_summaries
                     WHERE chat_id = $1::text), 0) + i.ord,
           i.summary_text, i.format, i.episode_first::int, i.episode_last::int,
           i.turn_number::int, i.token_count::int, i.kind, 1, $14::timestamptz,
           $14::timestamptz
    FROM ok, unnest($34::text[], $35::text[], $36::text[], $37::text[], $38::text[],
                    $39::text[], $40::text[])
         WITH ORDINALITY AS i(summary_text, format, episode_first, episode_last,
                              turn_number, token_count, kind, ord)
    RETURNING {SUMMARY_JSON} AS row
), updated AS (
    UPDATE chats AS c SET
        title = CASE WHEN $22::text IS NOT NULL
                      AND ($23::text = 'user' OR c.title_source IS DISTINCT FROM 'user')
                     THEN $22 ELSE c.title END,
        title_source = CASE WHEN $22::text IS NOT NULL
                      AND ($23::text = 'user' OR c.title_source IS DISTINCT FROM 'user')
                     THEN $23 ELSE c.title_source END,
        updated_at = $14::timestamptz,
        message_count = c.message_count + $13::int,
        content_chars = c.content_chars + $24::bigint,
        last_summarized_sequence = coalesce($18::int, c.last_summarized_sequence),
        summary_version = c.summary_version + $16::bool::int,
        summary_calls = c.summary_calls + $41::int,
        summary_input_tokens = c.summary_input_tokens + $42::bigint,
        summary_output_tokens = c.summary_output_tokens + $43::bigint,
        summary_failures = CASE WHEN NOT $25::bool THEN c.summary_failures
                                WHEN $44::text IS NULL THEN 0
                                ELSE c.summary_failures + 1 END,
        failure_kinds = CASE WHEN $44::text IS NULL THEN c.failure_kinds
            ELSE jsonb_set(coalesce(c.failure_kinds::jsonb, '{{}}'::jsonb), ARRAY[$44],
                           to_jsonb(coalesce((c.failure_kinds ->> $44)::int, 0) + 1))::json
            END,
        last_error = CASE WHEN $25::bool THEN $45::text ELSE c.last_error END,
        retry_at = CASE WHEN $25::bool THEN $46::timestamptz ELSE c.retry_at END,
        retry_volume = CASE WHEN $25::bool THEN $50::bigint ELSE c.retry_volume END,
        facts = CASE $19::text
            WHEN 'replace' THEN (coalesce($20::jsonb, '[]'::jsonb) || coalesce(
                (SELECT jsonb_agg(t.e ORDER BY t.n)
                 FROM jsonb_array_elements(coalesce(c.facts::jsonb, '[]'::jsonb))
                      WITH ORDINALITY AS t(e, n)
                 WHERE $51::int IS NOT NULL AND t.n > $51::int),
                '[]'::jsonb))::json
            WHEN 'append' THEN (coalesce(c.facts::jsonb, '[]'::jsonb) || $20::jsonb)::json
            ELSE c.facts END
    FROM ok WHERE c.id = ok.id
    RETURNING {_c(CHAT_COLUMNS, "c")}
), job AS (
    INSERT INTO longtalk_jobs AS j (kind, chat_id, tenant, generation, due_at)
    SELECT $47::text, u.id, u.tenant, 0, now() FROM updated AS u
    WHERE $47::text IS NOT NULL AND $13::int > 0
    ON CONFLICT (kind, chat_id) DO UPDATE SET generation = j.generation + 1
    RETURNING (xmax = 0) AS fresh, j.chat_id
), note AS (
    SELECT pg_notify('{JOBS_CHANNEL}', job.chat_id) FROM job WHERE job.fresh
), {outbox("$48", "$49")}
SELECT
    (SELECT row_to_json(chat) FROM chat) AS before,
    coalesce((SELECT chat.version_tag IS NOT DISTINCT FROM (SELECT version_tag FROM seen)
              FROM chat), true) AS fresh,
    (SELECT rows FROM found) AS found,
    (SELECT ids FROM targets) AS targets,
    (SELECT row_to_json(updated) FROM updated) AS after,
    (SELECT json_agg(row) FROM patched) AS patched,
    (SELECT json_agg(row) FROM inserted) AS inserted,
    (SELECT count(*) FROM note) AS notified,
    (SELECT count(*) FROM outbox) AS sent
"""
"""Parameters: $1 chat id, $2 tenant, $3 incarnation, $4 the append's message ids; $5-$12
the new messages (id, role, content, name, type, tool call ids JSON, timestamp ISO text,
metadata JSON); $13 how many, $14 now, $15 no stranger rows, $16 changes summaries, $17
expected summary version, $18 last summarized sequence, $19 facts mode (keep, replace,
append) and $20 the facts JSON, $21 the message count the facts were numbered for (None:
any), $22 title, $23 title source, $24 characters added, $25 a run to count; $26-$33 rows
to patch (id, text, format, episodes, turn number, tokens, kind); $34-$40 rows to insert;
$41-$43 the run's calls and tokens, $44 its failure kind, $45 its error, $46 its retry
time; $47 the job kind to request (None: none); $48-$49 the riding notifications
(channels, payloads); $50 the length the failing chat must grow to before its retry; $51
how many of the chat's facts a replacement was computed from (the rest are kept after it;
None: none kept)."""

LOCK_CHAT = "SELECT 1 FROM chats WHERE id = $1::text FOR UPDATE"
"""Lock the chat row before ``COMMIT_TURN`` in the same transaction (a turn that keeps
losing races)."""

MESSAGES_AT = f"""
SELECT json_agg({MESSAGE_JSON} ORDER BY m.sequence) AS rows FROM messages m
WHERE m.chat_id = $1::text AND m.created_at = $2::timestamptz
"""
"""The messages one commit stored (its timestamp is unique per process): whether a commit
whose answer was lost landed after all."""


# -- the job table (``job_table``): SQLAlchemy ``text()`` clauses, named parameters -----

JOB_CLAIM_CHAT = text("""
    INSERT INTO longtalk_jobs AS j
        (kind, chat_id, tenant, generation, due_at, lease_owner, lease_until)
    VALUES (:kind, :chat_id, :tenant, 0, now(), :owner,
            now() + make_interval(secs => :lease))
    ON CONFLICT (kind, chat_id) DO UPDATE
        SET lease_owner = excluded.lease_owner, lease_until = excluded.lease_until,
            generation = j.generation + 1
        WHERE j.lease_until IS NULL OR j.lease_until < now()
    RETURNING j.chat_id, j.tenant, j.generation, j.attempts
    """)

JOB_RENEW = text("""
    UPDATE longtalk_jobs SET lease_until = now() + make_interval(secs => :lease)
    WHERE kind = :kind AND chat_id = :chat_id AND lease_owner = :owner
    """)

JOB_FINISH = text(f"""
    WITH done AS (
        DELETE FROM longtalk_jobs
        WHERE kind = :kind AND chat_id = :chat_id AND lease_owner = :owner
          AND generation = :generation AND NOT :again
        RETURNING chat_id
    ), released AS (
        UPDATE longtalk_jobs
        SET lease_owner = NULL, lease_until = NULL, due_at = now(), attempts = 0,
            last_error = NULL
        WHERE kind = :kind AND chat_id = :chat_id AND lease_owner = :owner
          AND NOT EXISTS (SELECT 1 FROM done)
        RETURNING chat_id
    ), {outbox("CAST(:channels AS text[])", "CAST(:payloads AS text[])")}
    SELECT (SELECT count(*) FROM outbox),
           (SELECT count(pg_notify('{JOBS_CHANNEL}', chat_id)) FROM released)
    """)

JOB_FAIL = text("""
    UPDATE longtalk_jobs
    SET lease_owner = NULL, lease_until = NULL, attempts = attempts + 1, last_error = :error,
        due_at = COALESCE(CAST(:due_at AS timestamptz), now())
    WHERE kind = :kind AND chat_id = :chat_id AND lease_owner = :owner
    RETURNING attempts, EXTRACT(EPOCH FROM due_at - now()) AS delay
    """)

JOB_DEFER = text("""
    UPDATE longtalk_jobs
    SET lease_owner = NULL, lease_until = NULL, due_at = :due_at
    WHERE kind = :kind AND chat_id = :chat_id AND lease_owner = :owner
    """)

JOB_ERROR = text("SELECT last_error FROM longtalk_jobs WHERE kind = :kind AND chat_id = :chat_id")

JOB_RECOVER = text("""
    WITH queued AS (
        INSERT INTO longtalk_jobs (kind, chat_id, tenant, generation, due_at)
        SELECT :kind, id, tenant, 0, now() FROM chats
        WHERE message_count > last_summarized_sequence AND tenant = ANY(:tenants)
        ON CONFLICT (kind, chat_id) DO NOTHING
        RETURNING chat_id
    )
    SELECT count(*) FROM queued
    """)

JOB_STATUS = text("""
    SELECT chat_id, lease_until IS NOT NULL AND lease_until >= now(), last_error
    FROM longtalk_jobs WHERE kind = :kind AND chat_id = ANY(:chat_ids)
    """)

JOB_PENDING = text(
    "SELECT count(*) FROM longtalk_jobs "
    "WHERE kind = :kind AND (due_at <= now() OR lease_owner IS NOT NULL)"
)


# -- indexing leases on chat rows (``index_leases``) ---------------------------------

INDEX_CLAIM = text("""
    UPDATE chats AS c
    SET index_lease_owner = :owner,
        index_lease_until = now() + make_interval(secs => :lease)
    FROM (
        SELECT id FROM chats
        WHERE message_count > indexed_sequence
          AND (index_lease_until IS NULL OR index_lease_until < now())
        ORDER BY updated_at, id
        LIMIT :limit
        FOR UPDATE SKIP LOCKED
    ) AS free
    WHERE c.id = free.id
    RETURNING c.id, c.updated_at
    """)

INDEX_RENEW = text("""
    UPDATE chats SET index_lease_until = now() + make_interval(secs => :lease)
    WHERE id = ANY(:ids) AND index_lease_owner = :owner
    """)

INDEX_RELEASE = text("""
    UPDATE chats SET index_lease_owner = NULL, index_lease_until = NULL
    WHERE id = ANY(:ids) AND index_lease_owner = :owner
    """)


SCHEMA_LOCK = text("SELECT pg_advisory_xact_lock(:key)")
"""Serialize concurrent migrations (a transaction-scoped advisory lock)."""
