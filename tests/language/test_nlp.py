from concurrent.futures import ThreadPoolExecutor

import numpy as np

from longtalk.language.nlp import entities, entity_type, parse, parse_many, pipeline


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


def test_entities_are_recognised_when_asked_as_the_whole_pipeline_finds_them() -> None:
    text = "Ana moved to Lisbon on 3 May and now works for the Gulbenkian Foundation."
    doc = parse(text)
    assert not doc.ents  # the parse leaves the recogniser for the clauses that ask
    whole = pipeline()(text)
    found = [(e.text, e.label_) for e in entities(doc)]
    assert found == [(e.text, e.label_) for e in whole.ents]
    assert ("Lisbon", "GPE") in found
    assert entity_type(doc[3]) == "GPE"
    assert entity_type(doc[1]) == ""
    assert [t.dep_ for t in doc] == [t.dep_ for t in whole]
    assert np.array_equal(doc.tensor, whole.tensor)


def test_parses_from_several_threads_equal_one_thread_s() -> None:
    texts = [f"My sister {name} moved to {city} in {month}." for name, city, month in SAID]
    with ThreadPoolExecutor(max_workers=3) as pool:
        threaded = list(pool.map(_read, texts))
    whole = [pipeline()(text) for text in texts]  # one call each, the whole pipeline
    assert threaded == [[(t.text, t.dep_, t.lemma_, t.ent_type_) for t in doc] for doc in whole]


SAID = [
    ("Lena", "Porto", "May"),
    ("Rosa", "Berlin", "June"),
    ("Ines", "Madrid", "March"),
    ("Hana", "Tokyo", "April"),
    ("Mia", "Oslo", "July"),
    ("Eva", "Rome", "August"),
]


def _read(text: str) -> list[tuple[str, str, str, str]]:
    doc = parse(text)
    return [(t.text, t.dep_, t.lemma_, entity_type(t)) for t in doc]


def test_a_batch_parses_as_each_text_alone() -> None:
    texts = ["My brother Leo is a nurse in Ghent.", "We adopted a cat named Miso last spring!"]
    batched = list(parse_many(texts))
    alone = [pipeline()(text) for text in texts]  # one call each, the whole pipeline
    for one, other in zip(batched, alone, strict=True):
        assert [(t.tag_, t.dep_, t.head.i, t.lemma_) for t in one] == [
            (t.tag_, t.dep_, t.head.i, t.lemma_) for t in other
        ]
        assert np.array_equal(one.tensor, other.tensor)
        assert [(e.text, e.label_) for e in entities(one)] == [
            (e.text, e.label_) for e in other.ents
        ]
