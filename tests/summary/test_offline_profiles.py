"""Participant profiles: what each person says of themselves, dated, kept when a summary is cut."""

from __future__ import annotations

from datetime import datetime

from longtalk.core.messages import assistant, user
from longtalk.core.tokens import HeuristicTokenCounter
from longtalk.embed.hashing import HashingEmbedder
from longtalk.storage.base import SummaryRow
from longtalk.summary.chain import shown_summary
from longtalk.summary.model import ConversationSummary, SummaryEntity
from longtalk.summary.offline import OfflineSummaryWriter
from longtalk.summary.offline_profiles import profile_phrases, profiles
from longtalk.summary.offline_text import Sentence

MAY_8 = datetime(2023, 5, 8, 13, 56)
JUNE_2 = datetime(2023, 6, 2, 18, 10)
COUNTER = HeuristicTokenCounter(4.0)


def test_a_speakers_own_facts_become_their_dated_profile() -> None:
    messages = [
        user("I signed up for a pottery class with my kids.", name="Melanie", timestamp=MAY_8),
        user("That sounds fun! Caroline loves pottery too.", name="Caroline", timestamp=MAY_8),
        user(
            "My pottery class is on Fridays, and I read Charlotte's Web to the kids.",
            name="Melanie",
            timestamp=MAY_8,
        ),
        user("We went camping at the beach.", name="Melanie", timestamp=JUNE_2),
    ]
    summary = OfflineSummaryWriter(HashingEmbedder()).summarize(None, messages)
    melanie = next(e for e in summary.entities if e.name == "Melanie")
    assert melanie.type == "person"
    first, second = melanie.details.split("; ")
    assert first.endswith("(8 May 2023)") and "pottery class" in first and "kids" in first
    assert second.endswith("(2 June 2023)") and "camping" in second and "beach" in second
    caroline = next(e for e in summary.entities if e.name == "Caroline")
    assert caroline.details == ""  # said nothing of herself in the first person


def test_phrases_rank_by_repetition_and_leave_out_names_and_filler() -> None:
    texts = ["I love my dog Luna so much!", "Luna and my dog love the park, Caroline."]
    assert profile_phrases(texts, {"caroline"}, 2) == ["dog Luna", "dog"]
    assert profile_phrases(["I think I'm so happy and excited!"], set(), 3) == []


def test_assistants_and_third_person_sentences_get_no_profile() -> None:
    sentences = [
        Sentence("I can book the hotel for you.", "assistant", "user", 0, "8 May 2023"),
        Sentence("Tim reads fantasy novels.", "Anna", "Tim", 1, "8 May 2023"),
    ]
    assert profiles(sentences, ["Anna", "Tim"]) == ()
    summary = OfflineSummaryWriter(HashingEmbedder()).summarize(
        None, [assistant("I booked the hotel for your trip to Lisbon.")]
    )
    assert not [e for e in summary.entities if e.type == "person"]


def test_a_cut_summary_keeps_profiles_before_story_and_loses_their_oldest_days_first() -> None:
    days = [f"hobby{n} (day {n})" for n in range(12)]
    old = ConversationSummary(
        narrative="The first sessions were long. " * 6,
        entities=(SummaryEntity(name="Tim", type="person", details="; ".join(days[:8])),),
    )
    new = ConversationSummary(
        narrative="Then more talk happened. The newest thing happened.",
        entities=(SummaryEntity(name="Tim", type="person", details="; ".join(days[8:])),),
    )
    rows = [
        SummaryRow("c", old.to_json(), format="json", episode_first=1, episode_last=9),
        SummaryRow("c", new.to_json(), format="json", episode_first=10, episode_last=12),
    ]
    shown = shown_summary(rows, max_tokens=50, counter=COUNTER)
    assert COUNTER.count(shown.text) <= 50 and shown.truncated
    assert "The newest thing happened." in shown.text and "Tim (person)" in shown.text
    assert "first sessions" not in shown.text and "more talk" not in shown.text
    kept = [n for n in range(12) if f"hobby{n} (day {n})" in shown.text]
    assert kept and kept == list(range(kept[0], 12)) and kept[0] > 0  # the newest days stay


def test_names_without_details_are_listed_once_without_dates_or_amounts() -> None:
    summary = ConversationSummary(
        entities=(
            SummaryEntity(name="Tim", type="person", details="fantasy novels (8 May 2023)"),
            SummaryEntity(name="Charlotte's Web", type="thing"),
            SummaryEntity(name="last week", type="date"),
            SummaryEntity(name="8 May 2023", type="date"),
            SummaryEntity(name="42,000 euro", type="thing"),
        )
    )
    lines = summary.to_context_string().splitlines()
    assert lines == [
        "Entities: Tim (person): fantasy novels (8 May 2023)",
        "Also mentioned: Charlotte's Web",
    ]


def test_a_dump_of_names_is_not_shown_as_also_mentioned() -> None:
    names = ["Portugal", "Lisbon", "Porto", "Ericeira", "Sintra", "Belém", "Nazaré", "Douro"]
    listed = ConversationSummary(entities=tuple(SummaryEntity(name=n) for n in names))
    assert listed.to_context_string() == "Also mentioned: " + ", ".join(names)
    dumped = ConversationSummary(entities=(*listed.entities, SummaryEntity(name="Coimbra")))
    assert dumped.to_context_string() == ""
