"""A consolidated entity keeps what a thing is and who a person is now, within a cap."""

from __future__ import annotations

from longtalk.summary.consolidate import MAX_ENTITY_DETAILS, capped_details
from longtalk.summary.model import SummaryEntity


def test_capped_details_keep_what_a_thing_is_and_who_a_person_is_now() -> None:
    bare = SummaryEntity(name="Berlin", type="place")
    assert capped_details(bare) == bare
    place = SummaryEntity(name="Lisbon", type="place", details="a; b; c")
    assert capped_details(place).details == "a; b"
    days = "; ".join(f"hobby {n} (day {n})" for n in range(40))
    who = "Ann's brother; allergic to latex (day 0)"
    person = capped_details(SummaryEntity(name="Tim", type="person", details=f"{who}; {days}"))
    assert len(person.details) <= MAX_ENTITY_DETAILS and person.details.endswith("(day 39)")
    assert person.details.startswith(who)  # who he is stays; the oldest days go
