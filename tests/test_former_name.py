"""What users of the former name, memstrata, already have keeps working for one release."""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy import make_url

from longtalk.config import load_settings
from longtalk.core.messages import user
from longtalk.legacy import FormerNameWarning, getenv
from longtalk.paths import data_dir
from longtalk.storage import NewMessages, TurnCommit
from longtalk.storage.config import default_sqlite_path
from longtalk.storage.migrations import LATEST_VERSION
from longtalk.storage.sqlite import SqliteStorage
from longtalk.vectors.base import RecallScope, VectorPoint
from longtalk.vectors.pgvector import PgVectorStore
from longtalk.vectors.qdrant_edge import QdrantEdgeStore
from longtalk.vectors.qdrant_server import QdrantServerStore

MODEL = "test-model@1"


def test_former_environment_variables_are_read_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMSTRATA_SUPERVISOR__MEMORY__RAG_K", "7")
    with pytest.warns(FormerNameWarning, match="MEMSTRATA_SUPERVISOR__MEMORY__RAG_K"):
        settings = load_settings(None)
    assert settings.supervisor.memory.rag_k == 7


def test_the_current_spelling_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMSTRATA_SUPERVISOR__MEMORY__RAG_K", "7")
    monkeypatch.setenv("LONGTALK_SUPERVISOR__MEMORY__RAG_K", "3")
    assert load_settings(None).supervisor.memory.rag_k == 3
    monkeypatch.setenv("MEMSTRATA_DEBUG", "1")
    monkeypatch.setenv("LONGTALK_DEBUG", "0")
    assert getenv("LONGTALK_DEBUG") == "0"


def test_former_data_dir_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("LONGTALK_DATA_DIR", raising=False)
    monkeypatch.setenv("MEMSTRATA_DATA_DIR", str(tmp_path))
    with pytest.warns(FormerNameWarning, match="LONGTALK_DATA_DIR"):
        assert data_dir() == tmp_path


def test_an_existing_former_data_directory_is_used(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("LONGTALK_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert data_dir() == tmp_path / "longtalk"  # nothing of the former name: the new one
    (tmp_path / "memstrata").mkdir()
    (tmp_path / "memstrata" / "memstrata.db").write_bytes(b"")
    with pytest.warns(FormerNameWarning, match="move it to"):
        assert data_dir() == tmp_path / "memstrata"
    with pytest.warns(FormerNameWarning) as caught:
        assert default_sqlite_path() == tmp_path / "memstrata" / "memstrata.db"
    assert any("rename it longtalk.db" in str(w.message) for w in caught)
    (tmp_path / "longtalk").mkdir()
    assert data_dir() == tmp_path / "longtalk"  # once moved, the new one wins


def _as_former_database(path: Path) -> None:
    """Give a current SQLite database the tables and history the former name wrote."""
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM longtalk_schema WHERE version >= 11")  # before the rename
        db.execute("ALTER TABLE longtalk_schema RENAME TO memstrata_schema")
        db.execute("ALTER TABLE longtalk_jobs RENAME TO memstrata_jobs")


async def test_a_former_database_keeps_its_chats_and_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "memstrata.db"
    storage = SqliteStorage(path)
    await storage.setup()
    await storage.create_chat("c1")
    await storage.commit_turn(TurnCommit("c1", append=NewMessages([user("I keep bees.")])))
    await storage.close()
    _as_former_database(path)

    reopened = SqliteStorage(path)
    with pytest.warns(FormerNameWarning, match="memstrata_schema"):
        await reopened.setup()
    try:
        messages = await reopened.list_messages("c1")
        assert [m.message.content for m in messages] == ["I keep bees."]
    finally:
        await reopened.close()
    with sqlite3.connect(path) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        versions = [row[0] for row in db.execute("SELECT version FROM longtalk_schema")]
    assert {"longtalk_schema", "longtalk_jobs"} <= tables
    assert not {"memstrata_schema", "memstrata_jobs"} & tables
    assert max(versions) == LATEST_VERSION


def _point(text: str) -> VectorPoint:
    return VectorPoint(
        id=f"c1:{len(text)}",
        vector=[1.0, 0.0, 0.0],
        payload={"namespace": "n", "tenant": "t", "chat_id": "c1", "sequence": 1, "text": text},
    )


SCOPE = RecallScope(namespace="n", tenant="t", chat_id="c1")


async def test_an_embedded_vector_store_of_the_former_name_opens(tmp_path: Path) -> None:
    store = QdrantEdgeStore(tmp_path / "vectors")
    await store.setup(dimension=3, model_id=MODEL)
    await store.upsert([_point("bees")])
    await store.close()
    (tmp_path / "vectors" / "longtalk.json").rename(tmp_path / "vectors" / "memstrata.json")

    reopened = QdrantEdgeStore(tmp_path / "vectors")
    with pytest.warns(FormerNameWarning, match="memstrata.json"):
        await reopened.setup(dimension=3, model_id=MODEL)
    try:
        assert [p.payload["text"] for p in await reopened.fetch(SCOPE, [1])] == ["bees"]
    finally:
        await reopened.close()
    meta = json.loads((tmp_path / "vectors" / "longtalk.json").read_text())
    assert meta["model_id"] == MODEL


async def test_a_qdrant_collection_of_the_former_name_is_used(tmp_path: Path) -> None:
    former = QdrantServerStore(path=str(tmp_path / "q"), collection="memstrata_turns")
    await former.setup(dimension=3, model_id=MODEL)
    await former.upsert([_point("bees")])
    await former.close()

    store = QdrantServerStore(path=str(tmp_path / "q"))
    with pytest.warns(FormerNameWarning, match="vectors.collection"):
        await store.setup(dimension=3, model_id=MODEL)
    try:
        assert store.collection == "memstrata_turns"
        assert [p.payload["text"] for p in await store.fetch(SCOPE, [1])] == ["bees"]
    finally:
        await store.close()


async def test_a_pgvector_table_of_the_former_name_is_used(postgres_dsn: str) -> None:
    database = f"former_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(postgres_dsn)
    await admin.execute(f"CREATE DATABASE {database}")
    await admin.close()
    dsn = make_url(postgres_dsn).set(database=database).render_as_string(hide_password=False)
    former = PgVectorStore(dsn, table="memstrata_turns")
    await former.setup(dimension=3, model_id=MODEL)
    await former.upsert([_point("bees")])
    await former.close()
    connection = await asyncpg.connect(dsn)
    await connection.execute("ALTER TABLE longtalk_vector_meta RENAME TO memstrata_vector_meta")
    await connection.close()

    store = PgVectorStore(dsn)
    with pytest.warns(FormerNameWarning):
        await store.setup(dimension=3, model_id=MODEL)
    try:
        assert store.table == "memstrata_turns"
        assert [p.payload["text"] for p in await store.fetch(SCOPE, [1])] == ["bees"]
    finally:
        await store.close()
