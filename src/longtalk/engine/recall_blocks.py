"""``cache_friendly``'s memory across reads: each chat's last recalled block.

The assembly may show the previous context's recalled block again, byte for byte, so the
cached prefix survives the next question; this keeps that block per (chat, budget), and
drops it as soon as the chat lost a message since it was shown.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

from longtalk.storage.base import ChatRecord, ChatState
from longtalk.vectors.base import RecalledTurn

KEPT_RECALL_CHATS = 1024
"""How many (chat, budget) pairs remember their last recalled block."""

BlockKey = tuple[str, int]
"""A chat's id and the read's budget: a block is shown again only under the same budget."""


@dataclass(eq=False)
class RecallBlocks:
    """Each (chat, budget)'s last recalled block, a bounded LRU (newest used last)."""

    size: int = KEPT_RECALL_CHATS
    blocks: OrderedDict[BlockKey, KeptRecall] = field(default_factory=OrderedDict)

    def kept(self, key: BlockKey, state: ChatState) -> tuple[RecalledTurn, ...]:
        """``key``'s last recalled block, when no message was deleted since it was shown."""
        kept = self.blocks.pop(key, None)
        if kept is None or not kept.still_whole(state):
            return ()
        self.blocks[key] = kept
        return kept.turns

    def keep(self, key: BlockKey, chat: ChatRecord, block: Sequence[object]) -> None:
        """Remember ``key``'s recalled block for its next read."""
        self.blocks.pop(key, None)
        turns = tuple(turn for turn in block if isinstance(turn, RecalledTurn))
        if turns:
            self.blocks[key] = KeptRecall(
                chat.incarnation, chat.message_count, chat.content_chars, turns
            )
        while len(self.blocks) > self.size:
            self.blocks.popitem(last=False)


@dataclass(frozen=True, slots=True)
class KeptRecall:
    """A chat's last recalled block and the chat's length when it was shown.

    A message deleted since (forgotten) shortens the chat's text by more than what was
    appended explains: the block is then dropped, so a forgotten turn never comes back
    from here. Anything that cannot be checked drops it too; the next read recalls anew.
    """

    incarnation: str
    message_count: int
    content_chars: int
    turns: tuple[RecalledTurn, ...]

    def still_whole(self, state: ChatState) -> bool:
        """True when the chat only grew since: same incarnation, every new message loaded."""
        chat = state.chat
        if chat.incarnation != self.incarnation or chat.message_count < self.message_count:
            return False
        added = {s.sequence: s for s in state.messages if s.sequence > self.message_count}
        if len(added) != chat.message_count - self.message_count:
            return False
        grown = sum(len(stored.message.content) for stored in added.values())
        return chat.content_chars == self.content_chars + grown
