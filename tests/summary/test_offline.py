"""The offline summarizer with the real bundled MiniLM embedder."""

from __future__ import annotations

from longtalk.core.messages import Message, assistant, tool_result, user
from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.summary.model import ConversationSummary
from longtalk.summary.offline import NarrativeConfig, OfflineSummarizer, OfflineSummaryWriter
from longtalk.summary.offline_text import Sentence, split_sentences, third_person
from longtalk.summary.writer import SummaryWriter

TRIP = [
    user("Hi! I'm planning a trip to Lyon with my sister Marie next month."),
    assistant("Great choice. Lyon is known for its food. When exactly are you going?"),
    user("We fly on March 14 and stay for 5 nights. I prefer small boutique hotels."),
    assistant("Hotel Le Royal near Place Bellecour costs about $180 per night."),
    user("That's a bit much. Let's go with something under $150."),
]
TRIP_MORE = [
    assistant("I've booked Hotel Le Cour des Loges in Vieux Lyon for $140 per night."),
    tool_result('{"booking": "HX-22"}', "call-1"),
    user("Perfect. I'm not sure yet whether we should rent a car for a day trip to Annecy."),
    assistant("Trains from Lyon Part-Dieu to Annecy take about 2 hours, so a car is optional."),
    user("OK, we'll take the train then. My budget for food is 60 euros a day."),
]


def names(summary: ConversationSummary) -> set[str]:
    return {e.name for e in summary.entities}


async def test_first_summary_has_every_section(embedder: MiniLMEmbedder) -> None:
    writer = OfflineSummaryWriter(embedder)
    assert isinstance(writer, SummaryWriter)
    draft = await writer.extend(None, TRIP, structured=True)
    summary = draft.summary
    assert "Lyon" in summary.narrative and "I'm" not in summary.narrative
    assert {"Lyon", "Marie"} <= names(summary)
    assert not {"March 14", "$180", "$150", "5 nights"} & names(summary)  # dates, amounts
    kinds = {e.name: e.type for e in summary.entities}
    assert kinds["Lyon"] == "place" and kinds["Marie"] == "person"
    marie = next(e for e in summary.entities if e.name == "Marie")
    assert marie.details == "User's sister"
    assert "User prefers small boutique hotels." in summary.user_preferences
    assert any("under $150" in d for d in summary.decisions)
    assert "trip" in summary.topics and "lyon" not in summary.topics  # names are entities
    assert summary.covered_turns == 3
    assert draft.usage.total_tokens == 0


async def test_extension_keeps_what_was_there_and_adds_what_is_new(
    embedder: MiniLMEmbedder,
) -> None:
    writer = OfflineSummaryWriter(embedder)
    first = (await writer.extend(None, TRIP, structured=True)).summary
    second = (await writer.extend(first, TRIP_MORE, structured=True)).summary
    assert names(first) <= names(second)
    assert {"Annecy", "Vieux Lyon"} <= names(second)
    assert not {"60 euros", "$140", "2 hours"} & names(second)
    assert set(first.decisions) <= set(second.decisions)
    assert any("take the train" in d for d in second.decisions)
    assert any("booked" in a for a in second.actions_taken)
    assert not any("rent a car" in q for q in second.open_questions)  # answered: trains
    assert "HX-22" not in second.to_context_string()  # tool chatter is not summarized
    assert second.covered_turns == first.covered_turns + 2
    assert first.narrative.split(". ")[0] in second.narrative


async def test_deterministic(embedder: MiniLMEmbedder) -> None:
    one = (await OfflineSummaryWriter(embedder).extend(None, TRIP, structured=True)).summary
    two = (await OfflineSummaryWriter(embedder).extend(None, TRIP, structured=True)).summary
    assert one.to_json() == two.to_json()


async def test_empty_and_one_word_input(embedder: MiniLMEmbedder) -> None:
    writer = OfflineSummaryWriter(embedder)
    empty = (await writer.extend(None, [], structured=True)).summary
    assert empty.is_empty
    first = (await writer.extend(None, TRIP, structured=True)).summary
    unchanged = (await writer.extend(first, [], structured=True)).summary
    assert unchanged.narrative == first.narrative and unchanged.entities == first.entities
    hi = (await writer.extend(None, [user("Hi")], structured=True)).summary
    assert hi.narrative == "" and hi.covered_turns == 1
    word = (await writer.extend(None, [user("Kubernetes")], structured=False)).summary
    assert word.narrative in ("", "User says Kubernetes.")


async def test_very_long_input_gives_a_bounded_narrative(embedder: MiniLMEmbedder) -> None:
    cities = ["Paris", "Rome", "Madrid", "Vienna", "Prague", "Oslo", "Lisbon", "Dublin"]
    messages: list[Message] = []
    for i in range(300):
        city = cities[i % len(cities)]
        messages.append(user(f"Day {i}: I visited the museum of {city} and paid {i + 3} euros."))
        messages.append(assistant(f"The {city} museum has {i % 7 + 2} floors of modern art."))
    messages.append(user("word " * 5000))
    config = NarrativeConfig(max_words=80, max_candidates=120)
    summary = OfflineSummaryWriter(embedder, config).summarize(None, messages)
    assert 0 < len(summary.narrative.split()) <= 80 * 1.15 + 20
    assert set(cities) <= names(summary)
    assert len(summary.entities) <= 24 and len(summary.topics) <= 5


async def test_narrative_stays_bounded_across_many_extensions(embedder: MiniLMEmbedder) -> None:
    writer = OfflineSummaryWriter(embedder, NarrativeConfig(max_words=40))
    summary = None
    for batch in range(8):
        messages = [
            user(f"In week {batch} I am learning chapter {batch} of the Rust book about traits."),
            assistant(f"Chapter {batch} covers ownership, borrowing and lifetimes in depth."),
        ]
        summary = (await writer.extend(summary, messages, structured=True)).summary
    assert summary is not None
    assert len(summary.narrative.split()) <= 40 * 1.15 + 15
    assert summary.covered_turns == 8
    assert "Rust" in names(summary)


async def test_narrative_only_mode_and_the_seed_001_summarizer(embedder: MiniLMEmbedder) -> None:
    writer = OfflineSummaryWriter(embedder)
    narrative_only = (await writer.extend(None, TRIP, structured=False)).summary
    assert narrative_only.narrative and not narrative_only.entities and not narrative_only.topics
    prompt = "Summarize this conversation.\n\nConversation:\n" + "\n".join(
        f"{m.role.value}: {m.content}" for m in TRIP
    )
    text = await OfflineSummarizer(writer).summarize(prompt)
    assert text == narrative_only.narrative


def test_third_person_rewriting() -> None:
    cases = {
        Sentence(
            "I need to stop eating junk food.", "Ann", "Bob"
        ): "Ann needs to stop eating junk food.",
        Sentence("Well, I'm tired of my job.", "Ann", "Bob"): "Ann is tired of Ann's job.",
        Sentence("Do you want to go?", "Ann", "Bob"): "Ann asks: do Bob want to go?",
        Sentence("You were right.", "Ann", "Bob"): "Bob was right.",
        Sentence("We meet at 3:30.", "Ann", "Bob"): "Ann: we meet at 3:30.",
        Sentence("Bob likes tea.", "", ""): "Bob likes tea.",
    }
    for sentence, expected in cases.items():
        assert third_person(sentence) == expected


def test_sentence_splitting_keeps_titles_and_fixes_spacing() -> None:
    text = "I ' Ve met Mr. Smith today . He don ' t like it! Really? Yes."
    assert split_sentences(text) == [
        "I've met Mr. Smith today.",
        "He don't like it!",
        "Really?",
        "Yes.",
    ]
