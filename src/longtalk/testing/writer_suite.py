"""The conformance suite of the ``SummaryWriter`` seam: what the summary job relies on.

Subclass it and give it a ``writer`` fixture (your writer, ready to extend summaries)::

    import pytest
    from longtalk.testing.writer_suite import SummaryWriterConformance


    class TestMyWriter(SummaryWriterConformance):
        @pytest.fixture
        def writer(self):
            return MyWriter(...)

The tests ask nothing of the wording, only of the draft: a summary covering the new
messages, built on the existing one, with what it cost.
"""

from __future__ import annotations

from longtalk.core.messages import Message, assistant, user
from longtalk.summary.model import ConversationSummary
from longtalk.summary.writer import SummaryDraft, SummaryWriter

__all__ = ["SummaryWriterConformance"]


def chat() -> list[Message]:
    """A short chat with something worth keeping."""
    return [
        user("Hi, I'm planning a trip to Kyoto in April with my sister Ann.", name="Bob"),
        assistant("Lovely. Do you need hotels near the station?"),
        user(
            "Yes, something cheap. I am allergic to shellfish, so no seafood dinners.", name="Bob"
        ),
        assistant("Noted: budget hotels near Kyoto station and no shellfish."),
    ]


def _drafted(draft: SummaryDraft) -> ConversationSummary:
    assert isinstance(draft, SummaryDraft)
    assert isinstance(draft.summary, ConversationSummary)
    assert draft.usage.input_tokens >= 0 and draft.usage.output_tokens >= 0
    assert isinstance(draft.kind, str)
    return draft.summary


class SummaryWriterConformance:
    """``extend`` drafts a summary of the new messages, first or on top of an existing one."""

    async def test_is_a_summary_writer(self, writer: SummaryWriter) -> None:
        assert isinstance(writer, SummaryWriter)

    async def test_a_first_summary_tells_the_chat(self, writer: SummaryWriter) -> None:
        summary = _drafted(await writer.extend(None, chat(), structured=False))
        assert summary.narrative.strip()

    async def test_a_structured_summary_is_a_summary_too(self, writer: SummaryWriter) -> None:
        summary = _drafted(await writer.extend(None, chat(), structured=True))
        assert summary.narrative.strip() or summary.topics or summary.entities

    async def test_an_extension_builds_on_the_existing_summary(self, writer: SummaryWriter) -> None:
        first = _drafted(await writer.extend(None, chat()[:2], structured=False))
        more = [user("Also, we land on the 3rd.", name="Bob"), assistant("Got it: the 3rd.")]
        second = _drafted(await writer.extend(first, more, structured=False))
        assert second.narrative.strip()
        assert second != first
