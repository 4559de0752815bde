"""The longtalk HTTP service: ``create_app(settings)``, served by ``longtalk serve``."""

from longtalk.service.app import create_app
from longtalk.service.auth import bind_host
from longtalk.service.state import Service

__all__ = ["Service", "bind_host", "create_app"]
