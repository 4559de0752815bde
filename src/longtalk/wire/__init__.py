"""The HTTP API's request and response bodies, shared by the service and the client.

Pydantic models over the library's values and nothing of the server: importing them (or
``longtalk.client``) loads neither FastAPI, SQLAlchemy, NumPy nor the engine. Each response
model builds from the library's value (``ChatOut.of(record, ...)``) and, where a client needs
it, back into it (``ChatOut.record()``, ``ContextOut.assembled()``, ``UserFactOut.fact()``).

Modules: ``fields`` (strict integers, ids, timestamps), ``chats``, ``messages``, ``context``,
``summaries``, ``users`` (user memory and a chat's durable facts). Each lists its public names
in its ``__all__``, and this package re-exports them.
"""

from longtalk.wire import chats, context, fields, messages, summaries, users
from longtalk.wire.chats import *  # noqa: F403
from longtalk.wire.context import *  # noqa: F403
from longtalk.wire.fields import *  # noqa: F403
from longtalk.wire.messages import *  # noqa: F403
from longtalk.wire.summaries import *  # noqa: F403
from longtalk.wire.users import *  # noqa: F403

__all__ = (
    chats.__all__
    + context.__all__
    + fields.__all__
    + messages.__all__
    + summaries.__all__
    + users.__all__
)
