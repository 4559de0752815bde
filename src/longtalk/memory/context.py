"""``Context``: what to send the model for one turn, with where every part came from."""

from __future__ import annotations

from dataclasses import dataclass

from longtalk.core.context import AssembledContext, ContextPart
from longtalk.core.messages import Message, MessageType, Role
from longtalk.storage.user_memory import UserFact


@dataclass(frozen=True, slots=True)
class Context:
    """What to send the model for one turn, with where every part came from.

    ``messages`` are OpenAI-style ``{"role", "content"}`` dicts: what is known about the
    user from earlier chats, the recalled turns and the summary as one system message, then
    the recent window with its real roles. ``text`` is the whole context as one string;
    ``parts`` are the parts in order (kind, text, token count, message sequences, recall
    scores, summary episode ranges); ``user_facts`` the user items shown, each with the chat
    and episodes it came from. ``assembled`` is the engine's result for the chat itself.
    """

    assembled: AssembledContext
    user: ContextPart | None = None
    user_facts: tuple[UserFact, ...] = ()

    @property
    def parts(self) -> tuple[ContextPart, ...]:
        """The parts in order: user, recalled, summary, verbatim (the ones present)."""
        head = (self.user,) if self.user is not None else ()
        return head + self.assembled.parts

    @property
    def text(self) -> str:
        """The whole context as one string, parts separated by blank lines."""
        return "\n\n".join(part.text for part in self.parts)

    @property
    def tokens(self) -> int:
        """Tokens the context uses (the sum of its parts and their separators)."""
        extra = self.user.tokens + 1 if self.user is not None else 0
        return self.assembled.tokens_used + extra

    @property
    def budget_tokens(self) -> int:
        """The budget it was assembled under (the user part's share included)."""
        return self.assembled.budget_tokens + (self.user.tokens + 1 if self.user else 0)

    @property
    def messages(self) -> list[dict[str, str]]:
        """The messages to send: see :meth:`to_messages`."""
        return self.to_messages()

    def to_messages(self, system: str | None = None) -> list[dict[str, str]]:
        """The context as chat messages, ``system`` (your instructions) leading the preamble.

        Tool calls and tool results become assistant messages marked ``[tool call]`` /
        ``[tool result]``: a bare ``{"role", "content"}`` message cannot carry call ids.
        """
        known = self.user.text if self.user is not None else None
        preamble = [text for text in (system, known, self.assembled.preamble()) if text]
        if not self.assembled.window_intact:
            preamble.append(
                f"[{self.assembled.dropped_verbatim} older messages of the recent "
                "conversation did not fit and are left out]"
            )
        shown: list[dict[str, str]] = []
        if preamble:
            shown.append({"role": "system", "content": "\n\n".join(preamble)})
        shown += [_as_chat_message(message) for message in self.assembled.verbatim]
        return shown


def _as_chat_message(message: Message) -> dict[str, str]:
    if message.type == MessageType.TOOL or message.role == Role.TOOL:
        mark = "[tool result]" if message.role == Role.TOOL else "[tool call]"
        return {"role": "assistant", "content": f"{mark} {message.content}"}
    return {"role": message.role.value, "content": message.content}
