import json
from datetime import date

from longtalk.summary.model import ConversationSummary, SummaryEntity, combine_details

SEED_EXAMPLE = {
    "topics": ["weather", "travel"],
    "entities": [{"name": "John", "type": "person", "details": "user"}],
    "actions_taken": ["looked up forecast"],
    "decisions": ["postpone trip"],
    "open_questions": ["what about hotel?"],
    "user_preferences": ["prefers warm climate"],
    "narrative": "User asked about weather and travel.",
    "covered_turns": 5,
}


def test_parse_reads_the_seed_example() -> None:
    summary = ConversationSummary.parse(json.dumps(SEED_EXAMPLE))
    assert summary.topics == ("weather", "travel")
    assert summary.entities == (SummaryEntity(name="John", type="person", details="user"),)
    assert summary.decisions == ("postpone trip",)
    assert summary.covered_turns == 5


def test_parse_repairs_fenced_near_json_with_trailing_commas() -> None:
    text = 'Here you go:\n```json\n{"topics": ["a", "b",], "narrative": "n",}\n```'
    summary = ConversationSummary.parse(text)
    assert summary.topics == ("a", "b")
    assert summary.narrative == "n"


def test_parse_falls_back_to_narrative_only() -> None:
    for text in ("Just a plain paragraph.", "[1, 2, 3]", '{"topics": 5, "entities": 7}'):
        summary = ConversationSummary.parse(text)
        assert summary.narrative == text
        assert summary.topics == () and summary.entities == ()


def test_parse_tolerates_missing_and_null_fields() -> None:
    summary = ConversationSummary.parse('{"narrative": null, "topics": null, "covered_turns": "x"}')
    assert summary.narrative == "" and summary.topics == () and summary.covered_turns == 0


def test_merge_keeps_order_and_drops_case_insensitive_duplicates() -> None:
    old = ConversationSummary(topics=("Weather", "travel"), decisions=("postpone trip",))
    new = ConversationSummary(topics=("travel", "WEATHER", "hotels"), decisions=("Postpone trip",))
    merged = old.merge(new)
    assert merged.topics == ("Weather", "travel", "hotels")
    assert merged.decisions == ("postpone trip",)


def test_merge_entities_by_case_insensitive_name_combining_details() -> None:
    old = ConversationSummary(
        entities=(SummaryEntity(name="John", type="person", details="user; lives in Oslo"),)
    )
    new = ConversationSummary(
        entities=(
            SummaryEntity(name="john", type="other", details="lives in Oslo; likes tea"),
            SummaryEntity(name="Oslo", type="place"),
        )
    )
    merged = old.merge(new).entities
    assert [e.name for e in merged] == ["John", "Oslo"]
    assert merged[0].type == "person"
    assert merged[0].details == "user; lives in Oslo; likes tea"


def test_merge_specific_type_replaces_other_and_longer_detail_replaces_contained_one() -> None:
    old = ConversationSummary(entities=(SummaryEntity(name="Acme", details="company"),))
    new = ConversationSummary(
        entities=(SummaryEntity(name="ACME", type="organization", details="company in Berlin"),)
    )
    (entity,) = old.merge(new).entities
    assert entity.type == "organization"
    assert entity.details == "company in Berlin"


def test_combine_details_never_repeats() -> None:
    assert combine_details("a; b", "b; c; A") == "a; b; c"
    assert combine_details("", "x") == "x"
    assert combine_details("x", "") == "x"


def test_merge_newer_narrative_wins_and_turns_add_up() -> None:
    old = ConversationSummary(narrative="old", covered_turns=3)
    assert old.merge(ConversationSummary(narrative="new", covered_turns=2)).narrative == "new"
    assert old.merge(ConversationSummary(covered_turns=2)).narrative == "old"
    assert old.merge(ConversationSummary(covered_turns=2)).covered_turns == 5


def test_to_context_string_has_labelled_sections() -> None:
    text = ConversationSummary.parse(json.dumps(SEED_EXAMPLE)).to_context_string()
    assert text.splitlines()[0] == "User asked about weather and travel."
    assert "Topics: weather; travel" in text
    assert "Decisions: postpone trip" in text
    assert "Open questions: what about hotel?" in text
    assert "User preferences: prefers warm climate" in text
    assert "Entities: John (person): user" in text


def test_json_round_trip_and_schema_keys() -> None:
    summary = ConversationSummary.parse(json.dumps(SEED_EXAMPLE))
    assert ConversationSummary.parse(summary.to_json()) == summary
    schema = ConversationSummary.json_schema()
    assert set(schema["required"]) == set(SEED_EXAMPLE)
    assert set(schema["properties"]) == set(SEED_EXAMPLE)


def test_prompt_json_leaves_out_only_what_a_model_cannot_use() -> None:
    summary = ConversationSummary(
        topics=("trip",),
        entities=(SummaryEntity(name="John", type="person", details="user"),),
        narrative="John plans a trip.",
        covered_turns=7,
        since=date(2024, 3, 1),
    )
    shown = json.loads(summary.to_prompt_json())
    assert shown == {
        "topics": ["trip"],
        "entities": [{"name": "John", "type": "person", "details": "user"}],
        "narrative": "John plans a trip.",
        "since": "2024-03-01",
    }
    restored = ConversationSummary.parse(summary.to_prompt_json())
    assert restored == summary.model_copy(update={"covered_turns": 0})
