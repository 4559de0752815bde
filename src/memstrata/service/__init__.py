"""The memstrata HTTP service: ``create_app(settings)``, served by ``memstrata serve``."""

from memstrata.service.app import create_app
from memstrata.service.auth import bind_host
from memstrata.service.state import Service

__all__ = ["Service", "bind_host", "create_app"]
