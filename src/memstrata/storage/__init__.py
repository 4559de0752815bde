"""Chat storage: the protocol, an in-memory store, SQLite and PostgreSQL."""
