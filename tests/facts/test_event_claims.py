from longtalk.core.messages import Message
from longtalk.facts.offline import extract_facts


def test_two_dated_plans_of_one_verb_stand_side_by_side() -> None:
    said = [
        (1, Message(role="user", content="We fly into Lisbon on 20 May and stay five nights.")),
        (3, Message(role="user", content="We fly home from Porto on 1 June in the evening.")),
    ]
    texts = [fact.text for fact in extract_facts(said)]
    assert any("Lisbon" in text for text in texts)
    assert any("1 June" in text for text in texts)
