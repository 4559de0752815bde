"""API keys to tenants.

With keys configured (``service.api_keys``: key -> tenant) every request must carry one, as
``Authorization: Bearer <key>`` or ``X-API-Key: <key>``; never in the URL (``?api_key=`` is
refused, since URLs end up in access logs and browser history). Without keys the service is a
single-tenant local tool: every request is the ``default`` tenant, it binds to 127.0.0.1 and
answers only for loopback host names (``longtalk.service.edge``).
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Mapping

from fastapi import Request

from longtalk.config import ServiceConfig

log = logging.getLogger(__name__)

DEFAULT_TENANT = "default"
LOCALHOST = "127.0.0.1"


class AuthError(Exception):
    """No key or an unknown key (HTTP 401)."""


class Authenticator:
    """Maps a request to its tenant."""

    def __init__(self, keys: dict[str, str]) -> None:
        self.keys = dict(keys)

    @property
    def enabled(self) -> bool:
        """True when API keys are configured."""
        return bool(self.keys)

    def tenants(self) -> list[str]:
        """Every tenant that can call the service."""
        return sorted(set(self.keys.values())) if self.keys else [DEFAULT_TENANT]

    def tenant_for(self, key: str | None) -> str:
        """The tenant of ``key``; ``AuthError`` when it is missing or unknown."""
        if not self.enabled:
            return DEFAULT_TENANT
        if not key:
            raise AuthError(
                "an API key is required: send 'Authorization: Bearer <key>' or 'X-API-Key'"
            )
        for known, tenant in self.keys.items():
            if hmac.compare_digest(known.encode(), key.encode()):
                return tenant
        raise AuthError("unknown API key")


def request_key(request: Request) -> str | None:
    """The API key a request carries in its headers, if any."""
    return header_key(request.headers)


def header_key(headers: Mapping[str, str]) -> str | None:
    """The key of ``Authorization: Bearer`` or ``X-API-Key`` (lower-case header names)."""
    header = headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return headers.get("x-api-key") or None


def bind_host(config: ServiceConfig, host: str | None = None) -> str:
    """The host to bind: without API keys, 127.0.0.1 whatever was asked (and say so)."""
    wanted = host or config.host
    if config.api_keys:
        return wanted
    if wanted not in (LOCALHOST, "localhost"):
        log.warning("no API keys configured: refusing to bind %s, binding %s", wanted, LOCALHOST)
    return LOCALHOST
