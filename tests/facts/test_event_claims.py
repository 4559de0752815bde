from longtalk.core.messages import Message
from longtalk.facts.offline import extract_facts
from longtalk.language.statements import Said, read_statements


def test_two_dated_plans_of_one_verb_stand_side_by_side() -> None:
    said = [
        (1, Message(role="user", content="We fly into Lisbon on 20 May and stay five nights.")),
        (3, Message(role="user", content="We fly home from Porto on 1 June in the evening.")),
    ]
    texts = [fact.text for fact in extract_facts(said)]
    assert any("Lisbon" in text for text in texts)
    assert any("1 June" in text for text in texts)


def _texts(said: str) -> list[str]:
    return [fact.text for fact in extract_facts([(1, Message(role="user", content=said))])]


def test_a_bare_verb_claims_nothing() -> None:
    assert _texts("I won!") == []
    assert _texts("I have.") == []
    assert _texts("I'm vegan.") == ["The user is vegan."]


def _rewrites(said: str) -> list[str]:
    """Every clause's third-person rewrite, whether or not the kind model keeps it."""
    statements = read_statements([Said(1, "user", said)])
    return [statement.text for statement in statements if statement.text]


def test_only_the_verbs_that_agree_with_i_are_put_in_the_third_person() -> None:
    assert _rewrites("I work late and sleep in.") == ["The user works late and sleeps in."]
    assert _rewrites("I can swim and run fast.") == ["The user can swim and run fast."]
    liked = _rewrites("I've always liked Under Armour, working with them would be really cool.")
    assert liked and not any("would is" in text for text in liked)


def test_my_assistant_at_work_is_a_person_not_the_ai() -> None:
    assert _texts("My assistant at work is called Priya.") == [
        "The user's assistant at work is called Priya."
    ]
