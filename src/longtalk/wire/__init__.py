"""The HTTP API's request and response bodies, shared by the service and the client.

Pydantic models over the library's values and nothing of the server: importing them (or
``longtalk.client``) loads neither FastAPI, SQLAlchemy, NumPy nor the engine. Each response
model builds from the library's value (``ChatOut.of(record, ...)``) and, where a client needs
it, back into it (``ChatOut.record()``, ``ContextOut.assembled()``, ``UserFactOut.fact()``).

Modules: ``fields`` (strict integers, ids, timestamps), ``chats``, ``messages``, ``context``,
``summaries``, ``users`` (user memory and a chat's durable facts).
"""

from longtalk.wire.chats import ChatIn, ChatList, ChatOut, Page
from longtalk.wire.context import ContextIn, ContextOut, ContextPartOut, describe_context
from longtalk.wire.fields import (
    Budget,
    ChatIdIn,
    Count,
    EpisodeRange,
    RequestBody,
    StrategyName,
    SummaryState,
    Tokens,
    Turns,
)
from longtalk.wire.messages import (
    AppendIn,
    AppendOut,
    MessageBatch,
    MessageIn,
    MessageList,
    MessageOut,
)
from longtalk.wire.summaries import (
    SummarizeOut,
    SummaryCreate,
    SummaryList,
    SummaryOut,
    SummaryPatchIn,
)
from longtalk.wire.users import (
    FactList,
    FactOut,
    ForgetOut,
    RememberIn,
    UserFactOut,
    UserMemoryOut,
)

__all__ = [
    "AppendIn",
    "AppendOut",
    "Budget",
    "ChatIdIn",
    "ChatIn",
    "ChatList",
    "ChatOut",
    "ContextIn",
    "ContextOut",
    "ContextPartOut",
    "Count",
    "EpisodeRange",
    "FactList",
    "FactOut",
    "ForgetOut",
    "MessageBatch",
    "MessageIn",
    "MessageList",
    "MessageOut",
    "Page",
    "RememberIn",
    "RequestBody",
    "StrategyName",
    "SummarizeOut",
    "SummaryCreate",
    "SummaryList",
    "SummaryOut",
    "SummaryPatchIn",
    "SummaryState",
    "Tokens",
    "Turns",
    "describe_context",
    "UserFactOut",
    "UserMemoryOut",
]
