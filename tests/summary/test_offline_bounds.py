from datetime import datetime, timedelta

from longtalk.core.messages import Message, assistant, user
from longtalk.embed.hashing import HashingEmbedder
from longtalk.summary.consolidate import MAX_ENTITY_DETAILS, MAX_THING_DETAILS, capped_details
from longtalk.summary.model import SummaryEntity
from longtalk.summary.offline import MAX_SUMMARY_ENTITIES, MAX_SUMMARY_ITEMS, OfflineSummaryWriter

CITIES = ["Lisbon", "Porto", "Madrid", "Seville", "Bilbao", "Valencia", "Granada", "Toledo"]


def batch(i: int) -> list[Message]:
    when = datetime(2023, 5, 1) + timedelta(days=i)  # dated items must not grow unbounded
    messages: list[Message] = []
    for j, city in enumerate(CITIES):
        messages += [
            user(
                f"We decided to visit {city} on May {j + 1 + i}, with Carla {i}. "
                f"I love the old town of {city}. Is the {city} {i} tram running?",
                name="Ann",
                timestamp=when,
            ),
            assistant(
                f"{city} is lovely; book the Hotel {city} {i} for {100 + j} euros.",
                timestamp=when,
            ),
        ]
    return messages


async def test_structured_offline_summaries_stay_bounded_across_many_extensions() -> None:
    writer = OfflineSummaryWriter(embedder=HashingEmbedder())
    summary = None
    sizes = []
    for i in range(12):
        summary = (await writer.extend(summary, batch(i), structured=True)).summary
        sizes.append(len(summary.to_json()))
    assert summary is not None
    assert len(summary.entities) <= MAX_SUMMARY_ENTITIES
    assert all(len(e.details) <= MAX_ENTITY_DETAILS for e in summary.entities)
    things = [e for e in summary.entities if e.type != "person"]
    assert things and all(len(e.details.split("; ")) <= MAX_THING_DETAILS for e in things)
    lists = ("decisions", "topics", "user_preferences", "actions_taken", "open_questions")
    assert all(len(getattr(summary, f)) <= MAX_SUMMARY_ITEMS for f in lists)
    assert summary.user_preferences and summary.decisions[-1].endswith("(12 May 2023).")
    assert summary.entities[0].name == "Ann"  # established entities are kept, newest dropped
    assert max(sizes[6:]) < 2 * sizes[5]  # growth levels off instead of adding per batch
    assert summary.covered_turns == 12 * len(CITIES)


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
