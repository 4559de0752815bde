"""The offline narrative as reported speech, and placeholder speakers named as they are called."""

from __future__ import annotations

import pytest

from longtalk.core.messages import user
from longtalk.embed.hashing import HashingEmbedder
from longtalk.summary.offline import OfflineSummaryWriter, narrative_text
from longtalk.summary.offline_callnames import called_names
from longtalk.summary.offline_speech import reported
from longtalk.summary.offline_text import Sentence


@pytest.mark.parametrize(
    ("said", "told"),
    [
        ("Do you believe in UFOs?", "Ann asks whether Bob believes in UFOs."),
        ("Did you go to school today?", "Ann asks whether Bob went to school today."),
        ("Have you ever been to Rome?", "Ann asks whether Bob has ever been to Rome."),
        (
            "How do you usually spend your free time?",
            "Ann asks how Bob usually spends Bob's free time.",
        ),
        ("What is your name?", "Ann asks what Bob's name is."),
        ("How much does it cost?", "Ann asks Bob how much it costs."),
        ("What happened?", "Ann asks Bob what happened."),
        ("Could you tell me where the bank is?", "Ann asks Bob to tell Ann where the bank is."),
        ("How about going to the movies?", "Ann suggests going to the movies."),
        ("Let's take a break.", "Ann suggests they take a break."),
        ("Make sure you have your ID card.", "Ann tells Bob to make sure Bob has Bob's ID card."),
        ("Don't worry about it.", "Ann tells Bob not to worry about it."),
        ("Waiter, get me a napkin, please.", "Ann tells Bob to get Ann a napkin."),
        ("Thanks so much for the lift!", "Ann thanks Bob for the lift!"),
        ("Well, I disagree with that.", "Ann disagrees with that."),
        ("I never go there.", "Ann never goes there."),
        ("I heard it was good.", "Ann heard it was good."),
        ("You were right.", "Ann says Bob was right."),
        ("It's a nice place, isn't it?", "Ann tells Bob it's a nice place."),
        ("Julia, I'd like a word with you.", "Ann wants a word with Bob."),
        ("I'm going to send you to a specialist.", "Ann will send Bob to a specialist."),
        ("I'm going to the movies.", "Ann is going to the movies."),
        ("I wouldn't want to live there.", "Ann wouldn't want to live there."),
        ("Are there any rooms left?", "Ann asks Bob whether there are any rooms left."),
        ("Why don't you try then?", "Ann suggests Bob try then."),
        ("Why don't we go to the cinema?", "Ann suggests they go to the cinema."),
        ("What do you say we take a break?", "Ann suggests they take a break."),
        ("Shall I call a taxi?", "Ann offers to call a taxi."),
        ("Can I help you?", "Ann offers to help Bob."),
        ("May I speak to Mr. Smith?", "Ann asks to speak to Mr. Smith."),
        ("They come to the earth?", "Ann asks Bob whether they come to the earth."),
        (
            "If you go out, would you please close the window?",
            "Ann asks Bob to close the window.",
        ),
        ("You see, almost everyone has a hobby.", "Ann tells Bob almost everyone has a hobby."),
        ("I'm terribly sorry.", "Ann is sorry."),
        ("How much do I need to deposit?", "Ann asks Bob how much Ann needs to deposit."),
        ("Does this bus go downtown?", "Ann asks Bob whether this bus goes downtown."),
        ("Did your bid win?", "Ann asks whether Bob's bid won."),
        ("You should quit smoking.", "Ann advises Bob to quit smoking."),
        ("You have to sign here.", "Ann tells Bob to sign here."),
        ("Would you like some tea?", "Ann offers Bob some tea."),
        ("Would you like me to call a taxi?", "Ann offers to call a taxi."),
        ("Would you like to order now?", "Ann asks whether Bob wants to order now."),
        ("I'm afraid it's bad news.", "Ann tells Bob it's bad news."),
        ("I'm afraid of dogs.", "Ann is afraid of dogs."),
        ("Today, we work on legs.", "Ann tells Bob today, they work on legs."),
        ("Mr. White?", "Ann asks: Mr. White?"),
    ],
)
def test_spoken_sentences_are_told_as_reported_speech(said: str, told: str) -> None:
    assert reported(Sentence(said, "Ann", "Bob")) == told


def test_news_is_told_to_the_listener_a_remark_about_them_or_an_exclamation_said() -> None:
    assert (
        reported(Sentence("The train is late.", "Ann", "Bob")) == "Ann tells Bob the train is late."
    )
    assert reported(Sentence("You were right.", "Ann", "Bob")) == "Ann says Bob was right."
    assert reported(Sentence("The train is late!", "Ann", "Bob")) == "Ann says the train is late!"
    assert reported(Sentence("Paris is big.", "Ann", "Bob")) == "Ann says Paris is big."
    told = reported(Sentence("The train is late.", "Ann", "Assistant"))
    assert told == "Ann says the train is late."


def test_a_name_the_listener_is_called_by_is_dropped_not_told() -> None:
    told = reported(Sentence("Wow, Caroline, you're doing an awesome job!", "Mel", "Caroline"))
    assert told == "Mel says Caroline is doing an awesome job!"
    assert (
        reported(Sentence("That's cool, Caroline!", "Mel", "Caroline")) == "Mel says that's cool!"
    )


def _turns(*said: tuple[str, str]) -> list[Sentence]:
    """Sentences of a two-party chat, each addressed to the other speaker."""
    labels = list(dict.fromkeys(s for s, _ in said))
    return [Sentence(t, s, labels[1 - labels.index(s)], n) for n, (s, t) in enumerate(said)]


def test_placeholder_speakers_take_the_names_they_are_called_by() -> None:
    said = _turns(
        ("#Person1#", "Sara, are you finished packing yet?"),
        ("#Person2#", "Almost. This is my second bag."),
        ("#Person1#", "Don't forget your passport."),
        ("#Person2#", "Thanks, Mr. Lee."),
    )
    names = called_names(said)
    assert names == {"#Person2#": "Sara", "#Person1#": "Mr. Lee"}
    assert narrative_text([said[0], said[2]], names) == (
        "Mr. Lee asks whether Sara is finished packing yet and tells Sara not to forget Sara's "
        "passport."
    )


def test_a_speakers_next_sentence_joins_theirs_only_where_it_reads_as_one() -> None:
    said = _turns(
        ("Ann", "I moved to Lyon."),
        ("Ann", "Do you cook?"),
        ("Ann", "I never saw them."),
        ("Bob", "I work at a bakery."),
    )
    assert narrative_text(said) == (
        "Ann moved to Lyon and asks whether Bob cooks. Ann never saw them. Bob works at a bakery."
    )


def test_a_question_and_its_reply_are_told_as_one_exchange() -> None:
    said = _turns(("Ann", "Do you cook?"), ("Bob", "I make pasta every day."))
    assert narrative_text(said) == "Ann asks whether Bob cooks, and Bob makes pasta every day."
    later = _turns(("Ann", "Do you cook?"), ("Bob", "Maybe."), ("Bob", "I make pasta."))
    assert narrative_text([later[0], later[2]]) == ("Ann asks whether Bob cooks. Bob makes pasta.")


def test_real_labels_and_words_that_are_not_names_are_never_used() -> None:
    said = _turns(
        ("Maya", "Lisbon, here we come!"),
        ("assistant", "Maya, your trip is booked."),
    )
    assert called_names(said) == {}
    said = _turns(
        ("Speaker 1", "Paris, France, is lovely."), ("Speaker 2", "I live in Paris, France.")
    )
    assert called_names(said) == {}


def test_a_placeholder_chat_reads_with_real_names() -> None:
    chat = [
        user("Julia, I'd like to talk to you about your performance this year.", name="#Person1#"),
        user("Of course, Mr. George. I hope it is good news.", name="#Person2#"),
        user(
            "Your work was excellent, so I decided to give you a salary increase.", name="#Person1#"
        ),
        user("Thank you so much for the raise!", name="#Person2#"),
    ]
    narrative = OfflineSummaryWriter(HashingEmbedder()).summarize(None, chat).narrative
    assert "#Person" not in narrative
    assert "Mr. George" in narrative and "Julia" in narrative
