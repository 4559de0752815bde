"""``LLMSummaryWriter``: the summary-writer seam backed by any ``LLM``."""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce

from longtalk.core.messages import Message
from longtalk.errors import LLMError, LLMOutputError, LongtalkError
from longtalk.llm.base import LLM, ChatMessage, LLMRequest, LLMResponse
from longtalk.summary.model import ConversationSummary
from longtalk.summary.prompts import PromptSet
from longtalk.summary.prompts import transcript as quoted
from longtalk.summary.replies import summary_from_reply
from longtalk.summary.writer import SummaryDraft


class LLMSummaryWriter:
    """Extends a summary with one LLM call whose input is the summary plus the new messages.

    Structured mode asks for JSON following ``ConversationSummary.json_schema()`` and merges
    the answer into the existing summary, so entities the model forgot are kept. A reply that
    is not a valid summary (empty, cut off, not JSON, wrongly typed JSON; see
    ``summary.replies``) raises ``LLMOutputError``: nothing is stored, the last good summary
    stays and the extension is retried later.
    """

    def __init__(
        self,
        llm: LLM,
        *,
        prompts: PromptSet | None = None,
        temperature: float = 0.2,
        max_tokens: int = 500,
        structured_max_tokens: int = 1200,
        use_json_schema: bool = True,
    ) -> None:
        self.llm = llm
        self.prompts = prompts or PromptSet()
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.structured_max_tokens = structured_max_tokens
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
            shown = existing.to_json() if structured else existing.narrative
            prompt = self.prompts.extension(shown, transcript)
        return self._request(prompt, structured=structured)

    def build_consolidation(
        self, summaries: Sequence[ConversationSummary], *, max_tokens: int, structured: bool
    ) -> LLMRequest:
        """The request that folds ``summaries`` (oldest first) into one (computation only)."""
        shown = "\n\n".join(
            (s.to_json() if structured else s.narrative) for s in summaries if not s.is_empty
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
        )

    async def _complete(self, request: LLMRequest) -> LLMResponse:
        """The model's answer; a custom LLM's own exception becomes an ``LLMError``.

        So the planner degrades (keeps the last good summary) whatever the model raises.
        """
        try:
            return await self.llm.complete(request)
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
        """Ask the model for one digest of ``summaries``; a reply that is no summary raises."""
        request = self.build_consolidation(summaries, max_tokens=max_tokens, structured=structured)
        response = await self._complete(request)
        if response.finish_reason == "length":
            raise LLMOutputError("the digest was cut off by the output limit; not stored")
        digest = summary_from_reply(response.text, structured=structured, what="digest")
        covered = sum(s.covered_turns for s in summaries)
        dates = reduce(lambda a, b: a.merge(b), summaries)
        update = {"covered_turns": covered, "since": dates.since, "until": dates.until}
        return SummaryDraft(digest.model_copy(update=update), response.usage)

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
        if response.finish_reason == "length":
            raise LLMOutputError("the summary was cut off by the output limit; not stored")
        update = summary_from_reply(response.text, structured=structured)
        if not structured:
            return SummaryDraft(update, response.usage)
        merged = existing.merge(update) if existing is not None else update
        return SummaryDraft(merged, response.usage)
