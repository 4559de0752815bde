"""The OpenAPI document as the service really answers.

FastAPI documents what a route declares; the gates in front of the routes answer too (a bad
``Host`` 400, a key in the URL 401, a cross-site write 403, a body too large 413 or not JSON
415). Every operation gets those statuses with their body model, ``/healthz`` its 503,
``/metrics`` its Prometheus text and the event stream its ``text/event-stream``. The
request bodies carry the configured input limits (``maxLength``, ``maxItems``, metadata's
keys) and what no backend can store (a NUL), so the document refuses what the service
refuses; only the sizes no schema can state (a body's or metadata's bytes, metadata's
depth) are left to the 413/422 the gate answers.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from longtalk.core.limits import CHAT_ID_PATTERN, DEFAULT_LIMITS, USER_PATTERN, InputLimits
from longtalk.service.errors import ErrorOut
from longtalk.service.health import HealthOut

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
NO_NUL = "^[^\\u0000]*$"
"""Text any backend can store: no NUL (PostgreSQL cannot hold one)."""
METADATA_VALUE = "MetadataValue"
SSE_EVENT: dict[str, Any] = {
    "type": "object",
    "description": "One event of the stream (comment lines keep it alive in between).",
    "required": ["event", "data"],
    "properties": {
        "event": {
            "type": "string",
            "enum": ["state", "appended", "summarizing", "summarized", "failed"],
        },
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "description": "chat_id, state, episode_ranges, error, summary_version; "
            "message_count on appended",
        },
    },
}
"""How each event of ``GET /chats/{id}/events`` looks (``text/event-stream``)."""


def _error(description: str) -> dict[str, Any]:
    schema = {"$ref": "#/components/schemas/ErrorOut"}
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def document(app: FastAPI, limits: InputLimits = DEFAULT_LIMITS) -> None:
    """Install the completed document (with ``limits``) as ``app.openapi``."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = get_openapi(
                title=app.title,
                version=app.version,
                summary=app.summary,
                routes=app.routes,
            )
            complete(spec, limits)
            app.openapi_schema = spec
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def complete(spec: dict[str, Any], limits: InputLimits = DEFAULT_LIMITS) -> None:
    """Add the gates' statuses, the media types of ``/metrics`` and the events, the limits."""
    schemas = spec.setdefault("components", {}).setdefault("schemas", {})
    describe_limits(spec, limits)
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
            if path.endswith("/events"):
                responses["200"]["content"] = {"text/event-stream": {"schema": SSE_EVENT}}
            if path == "/healthz":
                health = {"schema": {"$ref": "#/components/schemas/HealthOut"}}
                responses["200"]["content"] = {"application/json": health}
                responses.setdefault(
                    "503",
                    {"description": "Storage is down", "content": {"application/json": health}},
                )


def describe_limits(spec: dict[str, Any], limits: InputLimits) -> None:
    """State the input gate's limits in the request bodies and the ``chat_id`` parameter."""
    schemas = spec.get("components", {}).get("schemas", {})
    texts = {
        "MessageIn": {
            "content": limits.max_message_chars,
            "name": limits.max_name_chars,
            "id": limits.max_id_chars,
        },
        "ChatIn": {"user": limits.max_name_chars, "title": limits.max_title_chars},
        "ContextIn": {"query": limits.max_query_chars},
        "SummaryCreate": {"summary_text": limits.max_summary_chars, "chat_id": limits.max_id_chars},
        "SummaryPatchIn": {
            "summary_text": limits.max_summary_chars,
            "chat_id": limits.max_id_chars,
        },
    }
    for model, fields in texts.items():
        properties = schemas.get(model, {}).get("properties", {})
        for field, limit in fields.items():
            if field in properties:
                _text_rule(properties[field], limit)
    message = schemas.get("MessageIn", {}).get("properties", {})
    for branch in message.get("id", {}).get("anyOf", ()):
        if branch.get("type") == "string":
            branch["minLength"] = 1  # an empty id is refused: give one, or none
    if "tool_call_ids" in message:
        calls = message["tool_call_ids"]
        calls["maxItems"] = limits.max_tool_calls
        _text_rule(calls.setdefault("items", {"type": "string"}), limits.max_id_chars)
    if "metadata" in message:
        message["metadata"] = _metadata_schema(limits)
        schemas[METADATA_VALUE] = _metadata_value()
    batch = schemas.get("MessageBatch", {}).get("properties", {}).get("messages")
    if batch is not None:
        batch["maxItems"] = limits.max_batch_size
    identifiers = {"chat_id": CHAT_ID_PATTERN, "id": CHAT_ID_PATTERN, "user": USER_PATTERN}
    for model in ("ChatIn", "SummaryCreate", "SummaryPatchIn"):
        properties = schemas.get(model, {}).get("properties", {})
        for field, pattern in identifiers.items():
            if field in properties:
                _identifier_rule(properties[field], pattern)
    _describe_paths(spec, limits)


def _describe_paths(spec: dict[str, Any], limits: InputLimits) -> None:
    """The gate's rules on the ``chat_id`` and ``user_id`` path parameters."""
    for operations in spec.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", ()):
                if parameter.get("in") != "path":
                    continue
                if parameter.get("name") == "chat_id":
                    _text_rule(parameter["schema"], limits.max_id_chars)
                    _identifier_rule(parameter["schema"], CHAT_ID_PATTERN)
                elif parameter.get("name") == "user_id":
                    _text_rule(parameter["schema"], limits.max_name_chars)
                    _identifier_rule(parameter["schema"], USER_PATTERN)


def _identifier_rule(schema: dict[str, Any], pattern: str) -> None:
    """The gate's pattern and a minimum of one character on the schema's string branches."""
    for branch in schema.get("anyOf") or [schema]:
        if branch.get("type") == "string":
            branch["pattern"] = pattern
            branch["minLength"] = 1


def _text_rule(schema: dict[str, Any], max_length: int) -> None:
    """``maxLength`` and no NUL on the schema's string (on each string branch of an anyOf)."""
    branches = schema.get("anyOf") or [schema]
    for branch in branches:
        if branch.get("type") == "string":
            branch["maxLength"] = min(max_length, branch.get("maxLength", max_length))
            branch.setdefault("pattern", NO_NUL)


def _metadata_schema(limits: InputLimits) -> dict[str, Any]:
    return {
        "type": "object",
        "title": "Metadata",
        "description": f"Nested at most {limits.max_metadata_depth} levels, at most "
        f"{limits.max_metadata_bytes} bytes as JSON (limits.max_metadata_*).",
        "maxProperties": limits.max_metadata_keys,
        "propertyNames": {"pattern": NO_NUL},
        "additionalProperties": {"$ref": f"#/components/schemas/{METADATA_VALUE}"},
    }


def _metadata_value() -> dict[str, Any]:
    ref = {"$ref": f"#/components/schemas/{METADATA_VALUE}"}
    return {
        "title": METADATA_VALUE,
        "description": "A JSON value without NUL characters.",
        "anyOf": [
            {"type": "string", "pattern": NO_NUL},
            {"type": "number"},
            {"type": "boolean"},
            {"type": "null"},
            {"type": "array", "items": ref},
            {"type": "object", "propertyNames": {"pattern": NO_NUL}, "additionalProperties": ref},
        ],
    }
