"""The OpenAPI document as the service really answers.

FastAPI documents what a route declares; the gates in front of the routes answer too (a bad
``Host`` 400, a key in the URL 401, a cross-site write 403, a body too large 413 or not JSON
415). Every operation gets those statuses with their body model, ``/healthz`` its 503 and
``/metrics`` its Prometheus text.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from longtalk.service.errors import ErrorOut
from longtalk.service.schemas import HealthOut

GATE_STATUSES = {
    "400": "Not JSON, or a host this service does not serve",
    "401": "No API key, an unknown one, or one in the URL",
    "403": "A cross-site request that would change data",
}
BODY_STATUSES = {
    "413": "A field, message, batch or body over a limit",
    "415": "A body that is not application/json",
}
WRITE_METHODS = frozenset({"post", "put", "patch", "delete"})


def _error(description: str) -> dict[str, Any]:
    schema = {"$ref": "#/components/schemas/ErrorOut"}
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def document(app: FastAPI) -> None:
    """Install the completed document as ``app.openapi``."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = get_openapi(
                title=app.title,
                version=app.version,
                summary=app.summary,
                routes=app.routes,
            )
            complete(spec)
            app.openapi_schema = spec
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def complete(spec: dict[str, Any]) -> None:
    """Add the gates' statuses, ``/healthz``'s 503 and ``/metrics``' media type."""
    schemas = spec.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault("ErrorOut", ErrorOut.model_json_schema())
    schemas.setdefault(
        "HealthOut", HealthOut.model_json_schema(ref_template="#/components/schemas/{model}")
    )
    for path, operations in spec.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            statuses = dict(GATE_STATUSES)
            if method in WRITE_METHODS:
                statuses.update(BODY_STATUSES)
            for status, description in statuses.items():
                responses.setdefault(status, _error(description))
            if path == "/metrics":
                responses["200"]["content"] = {"text/plain": {"schema": {"type": "string"}}}
            if path == "/healthz":
                health = {"schema": {"$ref": "#/components/schemas/HealthOut"}}
                responses["200"]["content"] = {"application/json": health}
                responses.setdefault(
                    "503",
                    {"description": "Storage is down", "content": {"application/json": health}},
                )
