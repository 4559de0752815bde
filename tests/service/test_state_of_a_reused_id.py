"""A chat id deleted and created again starts with no summary state of the former chat."""

from __future__ import annotations

from longtalk.service.event_hub import ChatEvent, SummaryStates


def test_a_late_event_of_the_former_chat_is_not_the_new_chats_state() -> None:
    states = SummaryStates()
    states.observe(ChatEvent("summarizing", "c", "summarizing", incarnation="old"))
    states.clear("c")  # deleted
    # the former chat's job reports once more, after the deletion, as a race allows
    states.observe(ChatEvent("summarizing", "c", "summarizing", incarnation="old"))
    assert states.get("c", "new") == ("idle", None)  # created again (another tenant)
    assert states.get("c", "old") == ("summarizing", None)
    states.observe(ChatEvent("failed", "c", "failed", error="boom", incarnation="new"))
    assert states.get("c", "new") == ("failed", "boom")
    states.observe(ChatEvent("summarized", "c", "idle", incarnation="new"))
    assert states.get("c", "new") == ("idle", None) and states.failing() == []
