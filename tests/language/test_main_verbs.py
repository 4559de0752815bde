from longtalk.core.messages import Message, Role
from longtalk.facts.offline import extract_facts
from longtalk.language.nlp import parse


def _heads(text: str) -> dict[str, tuple[str, str]]:
    return {token.text: (token.dep_, token.head.text) for token in parse(text)}


def test_a_verb_taken_for_an_auxiliary_before_a_gerund_heads_its_clause() -> None:
    heads = _heads("I love canyoning.")
    assert heads["love"] == ("ROOT", "love")
    assert heads["canyoning"] == ("xcomp", "love")
    assert heads["I"] == ("nsubj", "love")
    assert heads["."] == ("punct", "love")
    loves = next(token for token in parse("Yep, he loves checking out trails.") if token.i == 3)
    assert (loves.lemma_, loves.pos_, loves.dep_) == ("love", "VERB", "ROOT")


def test_real_auxiliaries_and_infinitive_markers_are_left_as_parsed() -> None:
    assert _heads("I am canyoning.")["am"] == ("aux", "canyoning")
    assert _heads("She has been running.")["has"] == ("aux", "running")
    assert _heads("Buddy seems to be having a great time!")["to"][0] == "aux"


def test_the_liking_is_the_fact_not_the_activity() -> None:
    facts = extract_facts([(1, Message(role=Role.USER, content="I love canyoning.", name="Mel"))])
    assert [fact.text for fact in facts] == ["Mel loves canyoning."]
