"""A relation named in passing (``my best friend Lena``) is its owner's fact, and one fact."""

from __future__ import annotations

from tests.facts.conftest import current_facts

from longtalk.core.messages import Message
from longtalk.facts.offline import extract_facts, said
from longtalk.language import read_statements


def test_a_relation_named_in_passing_is_kept_as_a_fact() -> None:
    current = current_facts("My best friend Lena carries an EpiPen.")
    assert "Lena is Ines's best friend." in current, current


def test_named_twice_it_is_one_fact() -> None:
    current = current_facts("My wife Rosa cooked.", "We ate late because my wife Rosa worked.")
    assert current.count("Rosa is Ines's wife.") == 1, current


def test_a_name_listed_with_others_does_not_name_the_noun() -> None:
    # "my girlfriend, Toby and I": a list of three or a girlfriend called Toby? the words
    # do not say, so no name is kept (set off on both sides, it is her name)
    listed = current_facts("My girlfriend, Toby and I are going camping this weekend.")
    assert not any("Toby is" in text for text in listed), listed
    assert "Toby is Ines's girlfriend." in current_facts("My girlfriend, Toby, loves camping.")


def test_a_request_says_whom_it_names() -> None:
    assert "Rosa is Ines's wife." in current_facts("Help me find a gift for my wife Rosa.")


def test_a_name_asked_about_is_no_fact() -> None:
    assert not any("Rosa" in text for text in current_facts("Is your wife Rosa coming?"))


def test_a_pet_named_before_its_name_is_its_owners_fact() -> None:
    # the parser hangs "my corgi" under the name: the noun is a compound of it
    current = current_facts("my corgi Waffles just ate an entire sock lol, vet bill incoming")
    assert "Waffles is Ines's corgi." in current, current


def test_the_one_spoken_to_is_no_relation_of_theirs() -> None:
    # "your kids, John": John is addressed; read as a name it made "John is John's kids."
    messages = [
        (0, Message(role="assistant", content="Long week, Ines?", name="John")),
        (1, Message(role="user", content="Sorry to hear about your job, John.", name="Ines")),
        (2, Message(role="user", content="Pass it on to your kids, John.", name="Ines")),
    ]
    assert [fact.text for fact in extract_facts(messages)] == []


def test_the_one_spoken_to_is_no_part_of_the_rewrite() -> None:
    messages = [
        (0, Message(role="assistant", content="How was the shelter?", name="John")),
        (1, Message(role="user", content="I adopted a corgi, John, and she's great.", name="Ines")),
    ]
    texts = [statement.text for statement in read_statements(said(messages))]
    assert "Ines adopted a corgi." in texts, texts


def test_two_named_of_one_relation_are_two() -> None:
    # people have two daughters: a second name ends no claim that names the first
    current = current_facts(
        "My daughter is called Oona and she just turned four.",
        "We went to my daughter Sara's recital yesterday.",
    )
    assert "Sara is Ines's daughter." in current, current
    assert any("Oona" in text for text in current), current
    both = current_facts("My cat Miso hates the vet.", "My cat Pixel loves the vet.")
    assert "Miso is Ines's cat." in both and "Pixel is Ines's cat." in both, both
