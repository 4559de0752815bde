"""compose.yaml, Dockerfile and the proxy configuration, checked by reading them.

No container engine runs here, so these tests hold the deployment files to what the code
really does: every ``LONGTALK_*`` variable compose sets is one the settings read (they
validate, and point at the compose services), migrations run once before the replicas,
every long-running service has a health check, and the proxy sends to the replicas.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from longtalk.cli import app
from longtalk.config import load_settings
from longtalk.storage.resolve import backend_of

ROOT = Path(__file__).resolve().parents[2]
REPLICAS = ("longtalk-1", "longtalk-2")
SUBSTITUTION = re.compile(r"\$\{([A-Z_]+)(?::-([^}]*))?\}")


def compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def substituted(value: str, env: dict[str, str]) -> str:
    """Compose's ``${VAR:-default}`` substitution."""
    return SUBSTITUTION.sub(lambda m: env.get(m.group(1), m.group(2) or ""), value)


def service_env(service: dict[str, Any], env: dict[str, str]) -> dict[str, str]:
    return {key: substituted(str(value), env) for key, value in service["environment"].items()}


def test_the_stack_has_its_services_and_health_checks() -> None:
    services = compose()["services"]
    assert set(services) == {"postgres", "qdrant", "migrate", *REPLICAS, "proxy"}
    assert services["postgres"]["image"].startswith("pgvector/pgvector:")
    assert services["qdrant"]["image"].startswith("qdrant/qdrant:")
    for name in ("postgres", "qdrant", *REPLICAS, "proxy"):
        check = services[name]["healthcheck"]
        assert check["test"] and not check.get("disable"), name
    assert services["migrate"]["healthcheck"] == {"disable": True}  # a one-shot job


def test_migrations_run_once_before_the_replicas() -> None:
    services = compose()["services"]
    assert services["migrate"]["command"] == ["migrate"]
    assert services["migrate"]["restart"] == "no"
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in REPLICAS:
        replica = services[name]
        assert replica["command"] == ["serve", "--no-migrate"]
        depends = replica["depends_on"]
        assert depends["migrate"]["condition"] == "service_completed_successfully"
        assert depends["postgres"]["condition"] == "service_healthy"
    assert "--no-migrate" in CliRunner().invoke(app, ["serve", "--help"]).output
    assert "--check" in CliRunner().invoke(app, ["migrate", "--help"]).output


def test_the_replicas_environment_is_what_the_settings_read() -> None:
    services = compose()["services"]
    env = {"LONGTALK_API_KEY": "a-long-secret", "POSTGRES_PASSWORD": "pw"}
    for name in ("migrate", *REPLICAS):
        variables = service_env(services[name], env)
        assert all(key.startswith("LONGTALK_") for key in variables)
        settings = load_settings(environ=variables)  # unknown keys would be refused
        assert backend_of(settings.storage.url or "") == "postgres"
        assert "@postgres:5432/longtalk" in (settings.storage.url or "")
        assert ":pw@" in (settings.storage.url or "")
        assert settings.vectors.url == "qdrant:http://qdrant:6333"
        assert settings.memory.strategy == "rag_augmented"
        assert settings.service.api_keys == {"a-long-secret": "default"}
        assert settings.service.job_queue == "postgres"
        assert (settings.service.host, settings.service.port) == ("0.0.0.0", 8765)
        assert settings.storage.pool_size == 5
    postgres = services["postgres"]["environment"]
    assert substituted(postgres["POSTGRES_PASSWORD"], env) == "pw"
    assert (postgres["POSTGRES_USER"], postgres["POSTGRES_DB"]) == ("longtalk", "longtalk")


def test_the_proxy_sends_to_both_replicas_and_streams_events() -> None:
    services = compose()["services"]
    proxy = services["proxy"]
    mount = next(v for v in proxy["volumes"] if v.endswith("/etc/nginx/conf.d/default.conf:ro"))
    conf = (ROOT / mount.split(":")[0]).read_text(encoding="utf-8")
    upstream = re.findall(r"server (\S+):(\d+)", conf)
    assert sorted(upstream) == [(name, "8765") for name in REPLICAS]
    assert "listen 8080;" in conf and proxy["ports"] == ["${LONGTALK_PORT:-8765}:8080"]
    events = conf[conf.index("location ~ ^/chats/[^/]+/events$") :]
    assert "proxy_buffering off;" in events and "proxy_read_timeout" in events
    for name in REPLICAS:
        assert proxy["depends_on"][name]["condition"] == "service_healthy"


def test_the_image_is_slim_non_root_and_checks_its_health() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    stages = re.findall(r"^FROM (\S+)", dockerfile, flags=re.MULTILINE)
    assert stages and all(image.endswith("-slim") or " AS " in image for image in stages)
    assert stages[-1].endswith("-slim")
    user = re.findall(r"^USER (\S+)", dockerfile, flags=re.MULTILINE)
    assert user and user[-1] not in ("root", "0")
    assert re.search(r"^HEALTHCHECK .*\n.*/healthz", dockerfile, flags=re.MULTILINE)
    assert "EXPOSE 8765" in dockerfile and "LONGTALK_SERVICE__PORT=8765" in dockerfile
    assert 'CMD ["serve", "--no-migrate"]' in dockerfile
    # the service itself and the drivers the compose stack needs
    assert '".[server,postgres,qdrant]"' in dockerfile
    assert re.search(r"^COPY .*setup\.py", dockerfile, flags=re.MULTILINE)  # vendors the model
