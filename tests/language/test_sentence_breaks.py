from longtalk.language.nlp import parse, pipeline
from longtalk.language.sentence_breaks import pictograph, sentence_goes_on


def _sentences(text: str) -> list[str]:
    return [sentence.text for sentence in parse(text).sents]


def test_a_lowercase_word_after_a_word_goes_on_with_its_sentence() -> None:
    text = (
        "Hey Audrey! What's up? Last weekend my girlfriend and I went fishing in one of "
        "the nearby lakes. It was so nice."
    )
    assert "Last weekend my girlfriend and I went fishing in one of the nearby lakes." in (
        _sentences(text)
    )
    assert _sentences("Thanks. It's tough but I'm up for the challenge!")[-1] == (
        "It's tough but I'm up for the challenge!"
    )


def test_only_a_break_between_a_word_and_a_lowercase_word_is_forbidden() -> None:
    doc = sentence_goes_on(pipeline().make_doc("It was fine. and then\nwe left but Tom stayed"))
    forbidden = [token.text for token in doc if token.is_sent_start is False]
    assert forbidden == ["was", "fine", "then", "left", "but", "stayed"]  # not "and", "we", "Tom"


def test_a_sentence_after_a_full_stop_still_starts_on_its_own() -> None:
    assert _sentences("I moved to Oslo. My sister lives in Bergen.") == [
        "I moved to Oslo.",
        "My sister lives in Bergen.",
    ]


def test_no_sentence_ends_on_a_word_that_needs_another_after_it() -> None:
    text = "I named him Buddy because he's my buddy and I hope him and Toby become buddies!"
    assert _sentences(text) == [text]


def test_an_emoji_between_words_ends_a_sentence() -> None:
    assert _sentences("ok update, as of midnight I'm 30 🎂 officially old") == [
        "ok update, as of midnight I'm 30 🎂",
        "officially old",
    ]
    assert _sentences("we got the keys today 🏡😭") == ["we got the keys today 🏡😭"]
    said = "and now they've put it up to £1,350 🙃 from next month"
    assert _sentences(said) == [said]  # a preposition leans on what came before


def test_only_a_whole_emoji_is_read_as_one() -> None:
    assert pictograph("🎂") and pictograph("👍🏽") and pictograph("😂😂")
    assert not pictograph("a") and not pictograph(":)") and not pictograph("🎂a")
