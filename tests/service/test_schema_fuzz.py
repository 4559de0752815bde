"""Schema-driven fuzzing of the service in process: no server error, every answer documented.

Schemathesis generates valid and invalid requests from the OpenAPI document and runs all its
checks on every answer (no 5xx, status documented, body matches its model, content type and
headers as documented, invalid requests refused). Half of the requests that name a chat name
one that exists, so the fuzzing reaches past the 404. Bounded and reproducible: a fixed number
of examples per operation, derandomized.
"""

from __future__ import annotations

import itertools
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, Phase, settings
from schemathesis import GenerationMode

from longtalk.config import Settings
from longtalk.service import create_app

EXAMPLES = 15
KNOWN_CHAT = "fuzzed"
_turn = itertools.count()


def fuzz_app() -> FastAPI:
    data = Path(tempfile.mkdtemp(prefix="longtalk-fuzz-"))
    config = Settings.model_validate(
        {
            "storage": {"sqlite_path": str(data / "fuzz.db")},
            "supervisor": {"memory": {"strategy": "running_summary"}},
            "service": {
                "allowed_hosts": ["testserver"],  # the host schemathesis sends in process
                "max_body_bytes": 200_000,
                "summary_retry_seconds": 0.05,
            },
        }
    )
    return create_app(config)


APP = fuzz_app()
schema = schemathesis.openapi.from_asgi("/openapi.json", APP).exclude(
    path="/chats/{chat_id}/events"  # an endless stream
)
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE])


@pytest.fixture(scope="module")
def known_chat() -> str:
    from schemathesis.python.asgi import get_client

    with get_client(APP) as client:
        response = client.post("http://testserver/chats", json={"id": KNOWN_CHAT})
        assert response.status_code in (201, 409), response.text
    return KNOWN_CHAT


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_the_service_answers_every_request_as_documented(case: Any, known_chat: str) -> None:
    parameters = case.path_parameters or {}
    if "chat_id" in parameters and next(_turn) % 2 == 0:
        parameters["chat_id"] = known_chat
    case.call_and_validate()


def test_the_document_names_one_error_shape_and_every_gate_status() -> None:
    spec = APP.openapi()
    assert "HTTPValidationError" not in json.dumps(spec)
    validation = spec["components"]["schemas"]["ValidationErrorOut"]
    assert set(validation["required"]) == {"error", "detail"}
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            statuses = set(operation["responses"])
            assert {"400", "401", "403"} <= statuses, (method, path)
            if method in ("post", "patch", "delete"):
                assert {"413", "415"} <= statuses, (method, path)
    assert "text/plain" in spec["paths"]["/metrics"]["get"]["responses"]["200"]["content"]
    assert "503" in spec["paths"]["/healthz"]["get"]["responses"]
