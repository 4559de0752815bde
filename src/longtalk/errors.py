"""The longtalk error tree.

::

    LongtalkError
    ├── UsageError                  the caller asked for something that cannot work
    │   ├── ConfigError             bad configuration (names the key path)
    │   ├── UnknownBackendError     a backend name that does not exist (suggests the nearest)
    │   ├── MissingExtraError       an optional dependency is not installed (names the extra)
    │   ├── InputError              input refused at the gate (names message, field and limit)
    │   │   └── InputTooLarge       a size or count over its limit
    │   └── IdempotencyConflict     a retry (same ids or key) that is not the same request
    └── BackendError                a backend failed at run time
        ├── LLMError                an LLM call failed
        │   ├── LLMTransientError   worth retrying (timeouts, 429, 5xx)
        │   ├── LLMPermanentError   not worth retrying (bad key, unknown model, 4xx)
        │   └── LLMOutputError      a reply that is not a usable answer (empty, cut off)
        ├── HTTPStatusError         an HTTP backend answered with an error status
        ├── StorageError            the database failed; names the operation
        │   ├── StorageUnavailableError   the database cannot be reached
        │   ├── SchemaVersionError  the database is newer than this code
        │   ├── NotFoundError       no such chat or summary row (also a LookupError)
        │   └── ConflictError       a compare-and-swap lost: re-plan and retry
        ├── EmbeddingError          the embedder failed
        └── VectorStoreError        the vector store failed

Driver errors are translated at the adapter with ``raise ... from exc``; the core never sees
sqlite3, asyncpg, httpx or qdrant exceptions.
"""

from __future__ import annotations


class LongtalkError(Exception):
    """Root of every error longtalk raises on purpose."""


class UsageError(LongtalkError):
    """The caller asked for something that cannot work as asked."""


class ConfigError(UsageError, ValueError):
    """Invalid configuration; the message names the key path."""

    def __init__(self, message: str, *, path: str = "") -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class UnknownBackendError(UsageError, ValueError):
    """A backend name that does not exist."""


class MissingExtraError(UsageError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""

    def __init__(self, package: str, extra: str) -> None:
        self.package = package
        self.extra = extra
        super().__init__(
            f"{package} is not installed - install it with: pip install 'longtalk[{extra}]'"
        )


def needs_extra(
    module: str, what: str, extra: str, missing: ModuleNotFoundError
) -> ModuleNotFoundError:
    """What a module of an optional extra raises when ``what`` it needs is not installed.

    Still a ``ModuleNotFoundError`` naming the missing module (as importing it would be), with
    the extra to install in its message.
    """
    message = f"{module} needs {what}: pip install 'longtalk[{extra}]'"
    return ModuleNotFoundError(message, name=missing.name)


class InputError(UsageError, ValueError):
    """Input the gate refuses before anything is stored: the message names what and why.

    ``index`` is the message's place in its batch (None for a field outside messages),
    ``field`` the field's path (``metadata.a.b``), ``setting`` the configuration key of the
    limit (None for text no backend can store, such as a lone surrogate).
    """

    def __init__(
        self,
        message: str,
        *,
        field: str = "",
        index: int | None = None,
        setting: str | None = None,
    ) -> None:
        self.field = field
        self.index = index
        self.setting = setting
        super().__init__(message)


class InputTooLarge(InputError):
    """A size or a count over its configured limit."""


class IdempotencyConflict(UsageError):
    """Ids or an ``Idempotency-Key`` already used for a request that differs from this one."""


class BackendError(LongtalkError):
    """A backend failed at run time."""


class LLMError(BackendError):
    """An LLM call failed."""


class LLMTransientError(LLMError):
    """A failure worth retrying: timeout, connection reset, rate limit, server error."""


class LLMPermanentError(LLMError):
    """A failure not worth retrying: bad key, unknown model, rejected request."""


class LLMOutputError(LLMError):
    """The model answered, but not with a usable reply (empty, or cut off by the limit)."""


class HTTPStatusError(BackendError):
    """An HTTP backend answered with an error status."""

    def __init__(self, message: str, *, status_code: int, body: str = "") -> None:
        self.status_code = status_code
        self.body = body
        super().__init__(f"{message} (HTTP {status_code}): {body[:500]}")


class StorageError(BackendError):
    """The database failed; the message names the operation that failed."""


class StorageUnavailableError(StorageError):
    """The database cannot be reached or opened."""


class SchemaVersionError(StorageError):
    """The database schema is newer than this code understands."""


class NotFoundError(StorageError, LookupError):
    """The chat or summary row asked for does not exist."""


class ConflictError(StorageError):
    """A compare-and-swap lost against a concurrent writer: re-plan from fresh state."""


class EmbeddingError(BackendError):
    """The embedder failed."""


class VectorStoreError(BackendError):
    """The vector store failed."""
