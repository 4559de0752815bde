"""Offline summaries a person can read: real names, short clauses, noun-phrase topics, no echo."""

from __future__ import annotations

import re
from datetime import datetime

from longtalk.core.messages import Message, assistant, user
from longtalk.embed.hashing import HashingEmbedder
from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.summary.model import ConversationSummary
from longtalk.summary.offline import OfflineSummaryWriter
from longtalk.tools.ingest import demo_path, read_chats

MARCH_2 = datetime(2026, 3, 2, 18, 10)


def summarize(messages: list[Message]) -> ConversationSummary:
    return OfflineSummaryWriter(HashingEmbedder()).summarize(None, messages)


def maya(text: str) -> Message:
    return user(text, name="Maya", timestamp=MARCH_2)


def names(summary: ConversationSummary) -> list[str]:
    return [e.name for e in summary.entities]


def test_dates_amounts_nationalities_and_tallies_are_not_entities() -> None:
    summary = summarize(
        [
            maya("The contractor starts on March 3rd and the budget is 42,000 euro."),
            assistant("Lisbon has vegetarian places; ask about sauces in Asian restaurants."),
            maya("We go to Portugal in late May. Lisbon 4, Ericeira 3, Porto 3: ten nights."),
        ]
    )
    found = names(summary)
    assert {"Lisbon", "Portugal", "Ericeira", "Porto"} <= set(found)
    for never in ("March 3rd", "42,000 euro", "Asian", "late May", "Late May", "Lisbon 4"):
        assert never not in found
    assert not any(re.search(r"\d", name) for name in found)


def test_one_entity_per_real_name() -> None:
    summary = summarize(
        [
            maya("My sister Ana Lima lives in Porto. Ana's dog is called Bolt."),
            maya("Ana is allergic to latex, and ANA hates hospitals."),
            maya("Lisbon's Bairro Alto has print shops; Lisbon is hilly."),
        ]
    )
    found = [n.casefold() for n in names(summary)]
    assert found.count("ana lima") == 1 and "ana" not in found and "ana's" not in found
    assert found.count("lisbon") == 1 and "bairro alto" in found
    assert "lisbon's bairro alto" not in found


def test_entity_details_are_short_clauses_about_the_entity() -> None:
    summary = summarize(
        [
            maya("I want to plan a trip to Portugal with my partner Tom."),
            assistant("Nice to meet you, Maya. Do you know which regions you want to see?"),
            maya("We are both vegetarian, by the way, and Tom is allergic to peanuts."),
            assistant("Noted: vegetarian, and a peanut allergy for Tom."),
            maya("Sintra is a must, Tom loves castles."),
            assistant("Understood, I'll keep the birthday plan out of anything Tom sees."),
        ]
    )
    tom = next(e for e in summary.entities if e.name == "Tom")
    parts = [re.sub(r" \(\d+ \w+ \d{4}\)$", "", p) for p in tom.details.split("; ")]
    assert {"Maya's partner", "allergic to peanuts", "loves castles"} <= set(parts)
    for entity in summary.entities:
        for part in filter(None, entity.details.split("; ")):
            assert len(part.split()) <= 16, part  # a clause and its date, not a paragraph
            assert "Assistant" not in part and not part.startswith(f"{entity.name}:")
            assert "birthday plan" not in part  # the assistant's acknowledgement says nothing


def test_topics_are_noun_phrases_a_person_would_name() -> None:
    summary = summarize(
        [
            maya("Our budget is around 3,500 euros for the two of us."),
            assistant("Noted, and it fits. Add the car and it still works."),
            maya("Can we add a birthday dinner? The budget should cover the birthday dinner."),
            assistant("Yes, that works and fits the budget."),
            maya("Back again: the birthday dinner is late, at nine."),
        ]
    )
    assert summary.topics[:2] == ("birthday dinner", "budget")
    assert not {"note", "noted", "add", "works", "fits", "late", "back"} & set(summary.topics)


def test_the_narrative_tells_what_the_people_said_not_the_assistants_echo() -> None:
    summary = summarize(
        [
            maya("Our budget is around 3,500 euros, flights excluded."),
            assistant("About the budget: noted, and it fits."),
            maya("Should we rent a car for the coast?"),
            assistant("Good decision to ask. A car for the coast days is worth it."),
            maya("Okay, let's say car only for the coast part."),
            assistant("Great choice: car only for the coast part."),
        ]
    )
    assert "noted" not in summary.narrative.casefold()
    assert "Assistant" not in summary.narrative
    assert "budget is around 3,500 euros" in summary.narrative
    assert any(d.startswith("Maya decided on car only for the coast") for d in summary.decisions)


def test_the_demo_chat_summary_reads_like_notes(embedder: MiniLMEmbedder) -> None:
    (chat,) = read_chats(demo_path(), chat_id="demo")
    writer = OfflineSummaryWriter(embedder)
    summary: ConversationSummary | None = None
    for start in range(0, len(chat.messages), 12):  # extended batch by batch, as the engine does
        summary = writer.summarize(summary, chat.messages[start : start + 12])
    assert summary is not None
    found = [n.casefold() for n in names(summary)]
    assert len(found) == len(set(found))
    assert not any(re.search(r"\d|\b(?:late|early) may\b", name) for name in found)
    assert {e.type for e in summary.entities} <= {"person", "place", "organisation", "thing"}
    text = summary.to_context_string()
    assert "noted" not in summary.narrative.casefold() and "Assistant" not in summary.narrative
    assert not {"note", "add", "works", "fits", "late", "back", "tom"} & set(summary.topics)
    tom = next(e for e in summary.entities if e.name == "Tom")
    assert "Maya's partner" in tom.details and "allergic to peanuts" in tom.details
    assert any("vegetarian" in p for p in summary.user_preferences)
    assert any("Douro valley" in d for d in summary.decisions)
    assert "Also mentioned" not in text or len(text.split("Also mentioned: ")[1].split(", ")) <= 8


def test_a_name_spoken_to_is_not_a_detail_of_that_name() -> None:
    summary = summarize(
        [
            user("Wow, Mel, I'm so stoked that art is helping you!"),
            assistant("Thanks, Caroline! It was fun."),
            user("That charity race sounds great, Mel."),
            assistant("It was, Caroline."),
            user("Aw, that's sweet, Mel!"),
        ]
    )
    details = " ".join(e.details for e in summary.entities if e.name == "Mel")
    for spoken_to in ("stoked", "sounds great", "sweet"):  # said to Mel, not of her
        assert spoken_to not in details


def test_a_we_preference_is_reported_and_list_items_join_cleanly() -> None:
    summary = summarize(
        [
            maya("We are both vegetarian, by the way, and Tom is allergic to peanuts."),
            assistant("Noted."),
            maya("I prefer quiet places."),
            assistant("Noted."),
        ]
    )
    assert "Maya says they are both vegetarian" in " ".join(summary.user_preferences)
    assert not any(p.startswith("Maya: we") for p in summary.user_preferences)
    assert ".;" not in summary.to_context_string()


def test_a_leading_so_before_the_subject_is_not_reported() -> None:
    summary = summarize([maya("So the car goes from Lisbon all the way to Porto via the Douro.")])
    assert "says the car goes from Lisbon" in summary.narrative
    assert "says so" not in summary.narrative


def test_love_inside_a_relative_clause_is_no_preference() -> None:
    """``doing something I love is awesome`` names no thing loved."""
    summary = summarize(
        [user("Being my own boss and doing something I love is awesome.", name="Gina")]
    )
    assert not any("loves is" in p for p in summary.user_preferences)
