"""Summary states follow events; a check against the job rows never overrides a newer event."""

from __future__ import annotations

import time

from longtalk.service.event_hub import ChatEvent, SummaryStates


def test_a_check_settles_only_states_no_event_changed_since() -> None:
    states = SummaryStates()
    states.observe(ChatEvent("summarizing", "a", "summarizing"))
    states.observe(ChatEvent("failed", "b", "failed", error="the model is down"))
    checked = time.monotonic()
    assert sorted(states.observed_before(checked)) == ["a", "b"]
    states.observe(ChatEvent("summarizing", "b", "summarizing"))  # newer than the check
    states.settle("a", "idle", None, checked=checked)
    states.settle("b", "idle", None, checked=checked)
    states.settle("c", "summarizing", None, checked=checked)  # unknown chats stay unknown
    assert states.get("a") == ("idle", None)
    assert states.get("b") == ("summarizing", None)
    assert states.get("c") == ("idle", None)
    later = time.monotonic()
    states.settle("b", "failed", "the model is down", checked=later)
    assert states.get("b") == ("failed", "the model is down") and states.failing() == [
        "the model is down"
    ]
    assert states.observed_before(checked) == []  # a settled state keeps its event's time
