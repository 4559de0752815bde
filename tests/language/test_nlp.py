from longtalk.language.nlp import parse, parse_many, pipeline


def test_the_pipeline_loads_once_and_parses_offline() -> None:
    assert pipeline() is pipeline()
    doc = parse("Actually Tom is not vegetarian anymore. I am allergic to peanuts.")
    assert [s.text for s in doc.sents] == [
        "Actually Tom is not vegetarian anymore.",
        "I am allergic to peanuts.",
    ]
    assert any(t.dep_ == "neg" for t in doc)
    assert [t.lemma_ for t in doc if t.text == "peanuts"] == ["peanut"]


def test_many_texts_parse_in_order() -> None:
    docs = list(parse_many(["I moved to Lisbon.", "Sam works at a bakery."]))
    assert [d.text for d in docs] == ["I moved to Lisbon.", "Sam works at a bakery."]
