"""``LLMSummaryWriter``: the summary-writer seam backed by any ``LLM``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import reduce

from longtalk.config import MemoryConfig
from longtalk.core.messages import Message
from longtalk.errors import LLMError, LongtalkError
from longtalk.llm.base import LLM, ChatMessage, LLMRequest, LLMResponse
from longtalk.llm.retry import UnusableReplyError
from longtalk.summary.model import ConversationSummary
from longtalk.summary.prompts import PromptSet
from longtalk.summary.prompts import transcript as quoted
from longtalk.summary.replies import read_summary_reply
from longtalk.summary.writer import SummaryDraft

MODEL_TOKENS_PER_COUNTED = 1.25
"""Room for the model's tokenizer: stored summaries are counted with the configured counter
(4 characters a token by default); a BPE tokenizer spends 1.0-1.2 of its tokens per counted
token on a JSON summary and about 0.9 on prose (measured with SmolLM2's tokenizer)."""


def reply_token_cap(config: MemoryConfig) -> int:
    """The most tokens a summary reply can need, from the summary caps in ``config``.

    An extension rewrites the latest chain row, and a row past ``summary_row_max_tokens`` makes
    the next extension start a new row: so a reply is at most the row as it stands (up to
    ``summary_row_max_tokens``) plus what one batch of new messages adds to it, for which a
    row's worth again is allowed. A digest aims at ``summary_max_tokens``. Twice the larger
    cap, in the model's tokens, is enough for every well-behaved reply and stops a reply
    that runs on (a repetition loop, a copied transcript) long before a fixed large limit.
    """
    counted = 2 * max(config.summary_row_max_tokens, config.summary_max_tokens)
    return math.ceil(counted * MODEL_TOKENS_PER_COUNTED)


class LLMSummaryWriter:
    """Extends a summary with one LLM call whose input is the summary plus the new messages.

    Structured mode asks for JSON following ``ConversationSummary.json_schema()`` and merges
    the answer into the existing summary, so entities the model forgot are kept; a prose
    answer extends the narrative and keeps the rest. Any other reply (empty, cut off,
    looping, broken or wrongly typed JSON, an echoed schema; see ``summary.replies``) raises
    ``ReplyError`` naming its kind: nothing is stored, the last good summary stays and the
    extension is retried later. Replies are capped at :func:`reply_token_cap` of ``config``
    unless ``max_tokens`` / ``structured_max_tokens`` say otherwise.
    """

    def __init__(
        self,
        llm: LLM,
        *,
        prompts: PromptSet | None = None,
        temperature: float = 0.2,
        max_tokens: int | None = None,
        structured_max_tokens: int | None = None,
        use_json_schema: bool = True,
        config: MemoryConfig | None = None,
    ) -> None:
        cap = reply_token_cap(config or MemoryConfig())
        self.llm = llm
        self.prompts = prompts or PromptSet()
        self.temperature = temperature
        self.max_tokens = max_tokens or cap
        self.structured_max_tokens = structured_max_tokens or cap
        self.use_json_schema = use_json_schema

    def build_request(
        self,
        existing: ConversationSummary | None,
        new_messages: Sequence[Message],
        *,
        structured: bool,
    ) -> LLMRequest:
        """The request an extension sends (computation only)."""
        transcript = quoted(new_messages)
        if existing is None or existing.is_empty:
            prompt = self.prompts.compression(transcript)
        else:
            shown = existing.to_prompt_json() if structured else existing.narrative
            prompt = self.prompts.extension(shown, transcript)
        return self._request(prompt, structured=structured)

    def build_consolidation(
        self, summaries: Sequence[ConversationSummary], *, max_tokens: int, structured: bool
    ) -> LLMRequest:
        """The request that folds ``summaries`` (oldest first) into one (computation only)."""
        shown = "\n\n".join(
            (s.to_prompt_json() if structured else s.narrative) for s in summaries if not s.is_empty
        )
        return self._request(self.prompts.consolidation(shown, max_tokens), structured=structured)

    def _request(self, prompt: str, *, structured: bool) -> LLMRequest:
        """The system prompt (with the JSON instructions when structured), then ``prompt``."""
        system = self.prompts.compression_system
        if structured:
            system = f"{system}\n\n{self.prompts.structured_instructions}".strip()
        messages = [ChatMessage("system", system)] if system else []
        messages.append(ChatMessage("user", prompt))
        return LLMRequest(
            messages=tuple(messages),
            temperature=self.temperature,
            max_tokens=self.structured_max_tokens if structured else self.max_tokens,
            json_schema=ConversationSummary.json_schema()
            if structured and self.use_json_schema
            else None,
            schema_name="conversation_summary",
            stop_on_repetition=True,
        )

    async def _complete(self, request: LLMRequest) -> LLMResponse:
        """The model's answer, usable or not; a custom LLM's own exception is an ``LLMError``.

        A reply the backend found unusable (cut off, looping, empty) comes back as it was,
        to be read by kind; so the planner degrades (keeps the last good summary) whatever
        the model does.
        """
        try:
            return await self.llm.complete(request)
        except UnusableReplyError as exc:
            return exc.response
        except LongtalkError:
            raise
        except Exception as exc:  # noqa: BLE001 - any foreign error is an LLM failure here
            raise LLMError(f"the summary LLM failed: {type(exc).__name__}: {exc}") from exc

    async def consolidate(
        self,
        summaries: Sequence[ConversationSummary],
        *,
        max_tokens: int,
        structured: bool = True,
    ) -> SummaryDraft:
        """Ask the model for one digest of ``summaries``; a reply that is no summary raises.

        A prose digest is narrative-only; what it leaves out of the lists is put back by the
        consolidation (see ``summary.consolidate``).
        """
        request = self.build_consolidation(summaries, max_tokens=max_tokens, structured=structured)
        response = await self._complete(request)
        reply = read_summary_reply(
            response, structured=structured, max_tokens=request.max_tokens, what="digest"
        )
        digest = reply.summary_or_raise(response)
        covered = sum(s.covered_turns for s in summaries)
        dates = reduce(lambda a, b: a.merge(b), summaries)
        update = {"covered_turns": covered, "since": dates.since, "until": dates.until}
        return SummaryDraft(digest.model_copy(update=update), response.usage, reply.kind)

    async def extend(
        self,
        existing: ConversationSummary | None,
        new_messages: Sequence[Message],
        *,
        structured: bool,
    ) -> SummaryDraft:
        """Ask the model for the updated summary."""
        request = self.build_request(existing, new_messages, structured=structured)
        response = await self._complete(request)
        reply = read_summary_reply(response, structured=structured, max_tokens=request.max_tokens)
        update = reply.summary_or_raise(response)
        if not structured or existing is None:
            merged = update
        elif reply.kind == "prose":
            merged = existing.extended_by(update.narrative)
        else:
            merged = existing.merge(update)
        return SummaryDraft(merged, response.usage, reply.kind)
