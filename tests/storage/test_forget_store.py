"""The forgetting seam on every backend: the shipped suite."""

from __future__ import annotations

from longtalk.testing import ForgetStoreConformance


class TestForgetStore(ForgetStoreConformance):
    """The shipped suite, on in-memory storage, SQLite and PostgreSQL."""
