"""The structure of offline summaries: names, types, details, tastes, questions, titles, dates."""

from __future__ import annotations

from datetime import datetime

from longtalk.core.messages import Message, assistant, user
from longtalk.embed.hashing import HashingEmbedder
from longtalk.summary.model import ConversationSummary
from longtalk.summary.offline import OfflineSummaryWriter
from longtalk.summary.title import fallback_title

MAY_8 = datetime(2023, 5, 8, 13, 56)


def summarize(
    messages: list[Message], existing: ConversationSummary | None = None
) -> ConversationSummary:
    return OfflineSummaryWriter(HashingEmbedder()).summarize(existing, messages)


def said(name: str, text: str, when: datetime | None = None) -> Message:
    return user(text, name=name, timestamp=when)


def kinds(summary: ConversationSummary) -> dict[str, str]:
    return {e.name: e.type for e in summary.entities}


def test_unicode_names_come_out_whole() -> None:
    summary = summarize(
        [
            said("Caroline", "Last spring I flew to Belém with José and Zoë."),
            said("Melanie", "Then we took a night train from Łódź to São Paulo, somehow."),
        ]
    )
    found = kinds(summary)
    assert {"Belém", "José", "Zoë", "Łódź", "São Paulo"} <= set(found)
    assert not {"Bel", "Jos", "Zo", "Paulo"} & set(found)
    assert found["José"] == found["Zoë"] == "person"


def test_entity_types_follow_cues() -> None:
    summary = summarize(
        [
            said("Caroline", "We spent the first week of May surfing in Ericeira."),
            said("Melanie", "Ericeira sounds lovely! My sister Ana works at Millennium Bank."),
            said("Caroline", "Nice! My friend Tomás studies at Lisbon University until Friday."),
        ]
    )
    found = kinds(summary)
    assert not {"May", "Friday"} & set(found)  # dates date what they belong to
    assert found["Ericeira"] == "place"
    assert found["Millennium Bank"] == found["Lisbon University"] == "organisation"
    assert found["Ana"] == found["Tomás"] == found["Caroline"] == "person"


def test_entity_details_are_informative_or_empty() -> None:
    summary = summarize(
        [
            said("Caroline", "Maya is Maya."),
            said("Melanie", "Thanks, Maya!"),
            said("Caroline", "Maya adopted two rescue greyhounds from the shelter in Porto."),
        ]
    )
    maya = next(e for e in summary.entities if e.name == "Maya")
    assert "Maya is Maya" not in maya.details and "Thanks" not in maya.details
    assert "greyhounds" in maya.details
    for entity in summary.entities:
        assert entity.details.casefold().strip(" .!") != entity.name.casefold()


def test_preferences_and_constraints_are_attributed_to_the_speaker() -> None:
    summary = summarize(
        [
            said("Caroline", "Honestly, I love hiking in the mountains."),
            said("Melanie", "I'm allergic to peanuts, so no satay for me. I can't eat gluten."),
            said("Caroline", "My favourite band is Queen. I'd rather take the train though."),
            said("Melanie", "I don't like crowded beaches. I like your idea though."),
        ]
    )
    prefs = summary.user_preferences
    assert "Caroline loves hiking in the mountains." in prefs
    assert "Melanie is allergic to peanuts." in prefs
    assert "Melanie can't eat gluten." in prefs
    assert "Caroline's favourite band is Queen." in prefs
    assert "Caroline would rather take the train though." in prefs
    assert "Melanie doesn't like crowded beaches." in prefs
    assert not any("idea" in p for p in prefs)  # a reaction, not a taste


def test_answered_questions_are_closed_within_one_extension() -> None:
    summary = summarize(
        [
            said("Ann", "Where should we stay in Porto?"),
            said("Bo", "Let's stay in Ribeira, right by the river."),
            said("Ann", "Should we rent a car for the Douro valley?"),
            said("Bo", "No, the train along the Douro is beautiful."),
            said("Ann", "Which museums are open on Monday evenings?"),
        ]
    )
    assert summary.open_questions == ("Ann asks: which museums are open on Monday evenings?",)


def test_questions_left_open_are_closed_by_a_later_extension() -> None:
    first = summarize(
        [
            user("We land in Lisbon on Friday afternoon.", name="Ann"),
            assistant("Great. How much is the airport transfer to Alfama?", name="Bo"),
        ]
    )
    assert any("airport transfer" in q for q in first.open_questions)
    second = summarize([user("The transfer to Alfama costs 25 euros.", name="Ann")], first)
    assert not any("airport transfer" in q for q in second.open_questions)


def test_fallback_titles_are_short_phrases_not_keyword_lists() -> None:
    keywords = ConversationSummary(topics=("hiking", "lisbon", "may"))
    assert fallback_title(keywords) == "Hiking in Lisbon"
    trip = [
        user("Hi! I'm planning a trip to Lisbon in May with my sister."),
        assistant("Lisbon in May is lovely; hiking in Sintra is a classic."),
        user("We love hiking, so Sintra it is. Hotels near the coast?"),
    ]
    assert fallback_title(summarize(trip), trip) == "Trip to Lisbon"  # the topic, as said
    assert fallback_title(summarize(trip[:1]), trip[:1]) == "Trip to Lisbon"
    for title in (fallback_title(keywords), fallback_title(summarize(trip), trip)):
        assert "," not in title and len(title.split()) <= 6


def test_items_from_dated_messages_carry_their_date() -> None:
    summary = summarize(
        [
            said("Caroline", "I went to an LGBTQ support group yesterday in Boston.", MAY_8),
            said("Melanie", "That's wonderful. I love painting sunrises by the lake.", MAY_8),
            said("Caroline", "We decided to volunteer at the Boston shelter every week.", MAY_8),
        ]
    )
    assert "Melanie loves painting sunrises by the lake (8 May 2023)." in summary.user_preferences
    assert any(d.endswith("(8 May 2023).") for d in summary.decisions)
    boston = next(e for e in summary.entities if e.name == "Boston").details
    assert "(7 May 2023)" in boston  # "yesterday": the day it happened, not the day it was said
    assert "(7 May 2023)" in summary.narrative
    assert all(item.count("2023") == 1 for item in summary.decisions)  # one date per item


def test_participants_short_names_are_not_other_people() -> None:
    summary = summarize(
        [
            said("Melanie", "Hey Caro, I took my kids camping at the lake.", MAY_8),
            said("Caroline", "Wow Mel, the kids look so cute! I met Carl at the shelter.", MAY_8),
            said("Melanie", "Thanks Mell! Did Carl help with the adoption?", MAY_8),
        ]
    )
    names = {e.name for e in summary.entities}
    assert {"Melanie", "Caroline", "Carl"} <= names  # Carl shares "Car" but is someone else
    assert not {"Mel", "Mell", "Caro"} & names
    assert "Tues" not in kinds(summarize([said("Caroline", "See you Tues, Mel!", MAY_8)]))
