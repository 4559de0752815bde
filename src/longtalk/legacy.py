"""The project's former name, memstrata: what its users already have keeps working for a release.

``MEMSTRATA_*`` environment variables are read as ``LONGTALK_*`` ones (a ``LONGTALK_*``
variable that is set wins); the ``memstrata`` data directory, its ``memstrata.db``, the
embedded vector store's ``memstrata.json``, the ``memstrata_*`` tables and the
``memstrata_turns`` collection are found and used. Each use warns once with a
``FormerNameWarning`` saying what to rename. The next release drops this module.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping

FORMER_NAME = "memstrata"
ENV_PREFIX = "LONGTALK_"
FORMER_ENV_PREFIX = "MEMSTRATA_"


class FormerNameWarning(FutureWarning):
    """Something still goes by the former name, memstrata; it stops working next release."""


def warn_former(what: str, rename: str) -> None:
    """Warn that ``what`` uses the former name, and say how to move off it."""
    warnings.warn(
        f"{what} uses the former name {FORMER_NAME}: {rename} "
        "(the former name is read for one more release)",
        FormerNameWarning,
        stacklevel=3,
    )


def with_former_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``environ`` (default ``os.environ``) with each ``MEMSTRATA_X`` also as ``LONGTALK_X``.

    A ``LONGTALK_X`` that is set wins over its former spelling.
    """
    source = os.environ if environ is None else environ
    merged = dict(source)
    for name, value in source.items():
        if not name.startswith(FORMER_ENV_PREFIX):
            continue
        current = ENV_PREFIX + name[len(FORMER_ENV_PREFIX) :]
        if current not in source:
            merged[current] = value
            warn_former(f"the environment variable {name}", f"rename it {current}")
    return merged


def getenv(name: str) -> str | None:
    """The environment variable ``name`` (a ``LONGTALK_*`` name), or its former spelling."""
    if name in os.environ or not name.startswith(ENV_PREFIX):
        return os.environ.get(name)
    former = FORMER_ENV_PREFIX + name[len(ENV_PREFIX) :]
    if former not in os.environ:
        return None
    warn_former(f"the environment variable {former}", f"rename it {name}")
    return os.environ[former]
