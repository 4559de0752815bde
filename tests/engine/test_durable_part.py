"""The durable-facts part: within its share, least durable left out first, the question's kept."""

from __future__ import annotations

from longtalk.config import MemoryConfig
from longtalk.core.messages import Message, assistant, user
from longtalk.core.tokens import resolve_counter
from longtalk.embed.minilm import MiniLMEmbedder
from longtalk.engine import MemoryEngine
from longtalk.engine.durable import DurablePart
from longtalk.facts.durable_fact import DurableFact
from longtalk.storage.in_memory import InMemoryStorage

SAID = [
    "I'm allergic to shellfish, so no shrimp please.",
    "I went vegetarian last spring.",
    "My sister Lena moved to Rotterdam over the winter.",
    "We adopted a tabby cat, we named him Biscuit.",
    "My birthday is on the 29th of February.",
    "I can't stand cilantro, it tastes like soap.",
    "Please never ring me before 10 am.",
    "I love hiking in the mountains.",
    "I love jazz, especially live.",
    "I love old maps and atlases.",
    "I've decided to sell my motorbike and take the train.",
    "Whenever I fly I book an aisle seat.",
]
FILLER = "We talked about the weather and the plans for the week, nothing else of note. " * 2


def chat_messages() -> list[Message]:
    messages: list[Message] = []
    for sentence in SAID:
        messages += [user(sentence, name="Ana"), assistant("Noted, thanks!")]
    for day in range(12):
        messages += [user(f"Day {day}: {FILLER}", name="Ana"), assistant(f"Day {day}. {FILLER}")]
    return messages


async def make_engine(**config: object) -> MemoryEngine:
    memory = MemoryEngine(
        InMemoryStorage(),
        config=MemoryConfig(strategy="running_summary", **config),  # type: ignore[arg-type]
        embedder=MiniLMEmbedder(),
    )
    await memory.create_chat("c")
    await memory.append("c", chat_messages())
    return memory


async def test_the_facts_the_question_needs_stay_when_the_share_is_too_small() -> None:
    memory = await make_engine(facts_max_tokens=70, facts_share=1.0)
    for question, needed in [
        ("Where does Ana like to sit on a plane?", "aisle seat"),
        ("What vehicle is Ana getting rid of?", "motorbike"),
        ("Which herb does Ana hate?", "cilantro"),
    ]:
        context = await memory.get_context("c", question, budget_tokens=600)
        facts = context.part("facts")
        assert facts is not None and needed in facts.text, (question, facts)
        assert facts.tokens <= 70 and context.dropped_facts > 0
        assert f"[{context.dropped_facts} durable facts left out]" in facts.text


async def test_without_a_question_the_least_durable_go_first() -> None:
    memory = await make_engine(facts_max_tokens=70, facts_share=0.12)
    context = await memory.get_context("c", budget_tokens=600)
    facts = context.part("facts")
    assert facts is not None and context.dropped_facts > 0
    assert "allergic to shellfish" in facts.text  # a constraint outlives a taste
    assert "jazz" not in facts.text and "hiking" not in facts.text


async def test_the_share_bounds_the_part_and_recall_never_takes_it() -> None:
    memory = await make_engine()
    for budget in (300, 600, 1000):  # less than the chat: the layered context
        context = await memory.get_context("c", "What does Ana eat?", budget_tokens=budget)
        facts = context.part("facts")
        assert facts is not None and context.parts[0] is facts
        cap = min(memory.config.facts_max_tokens, int(budget * memory.config.facts_share))
        assert facts.tokens <= cap and context.tokens_used <= budget


async def test_without_recall_the_facts_take_nothing_from_the_summary_room() -> None:
    """The summary keeps its whole room unless recall needs it for a question."""
    memory = await make_engine(summary_no_query_max_tokens=80, summary_recent_turns=2)
    await memory.summarize("c", force=True)
    context = await memory.get_context("c", budget_tokens=1000)
    facts, summary = context.part("facts"), context.part("summary")
    assert facts is not None and summary is not None and facts.tokens > 80
    assert 60 < summary.tokens <= 80  # were the facts charged to it, only its last sentence


async def test_without_a_question_the_facts_may_take_their_whole_share() -> None:
    """Nothing is recalled without a question: the cap for recall's sake does not apply."""
    memory = await make_engine(facts_max_tokens=40, facts_share=0.3)
    asked = await memory.get_context("c", "What does Ana eat?", budget_tokens=600)
    told = await memory.get_context("c", budget_tokens=600)
    asked_facts, told_facts = asked.part("facts"), told.part("facts")
    assert asked_facts is not None and told_facts is not None
    assert asked_facts.tokens <= 40 < told_facts.tokens <= 180
    assert told.dropped_facts < asked.dropped_facts


async def test_a_question_naming_the_holder_finds_the_fact_not_the_name() -> None:
    """Every fact of Ana shares her name with the question; the meaning must decide."""
    memory = await make_engine(facts_max_tokens=40, facts_share=1.0)
    context = await memory.get_context(
        "c", "In which city is Ana's sibling based?", budget_tokens=600
    )
    facts = context.part("facts")
    assert facts is not None and "Rotterdam" in facts.text, facts
    assert context.dropped_facts > 0


def test_names_are_put_as_they_for_the_comparison() -> None:
    from longtalk.engine.durable import names_pattern, without_names

    names = names_pattern({"Ana", "Ben Lima", "Ben"})
    assert without_names("Ana's sister met Ben Lima.", names) == "their sister met they."
    assert without_names("Anabel is here.", names) == "Anabel is here."
    assert without_names("Ana is here.", names_pattern(set())) == "Ana is here."


def test_the_unnamed_user_is_put_as_they_with_the_article() -> None:
    from longtalk.engine.durable import names_pattern, without_names

    names = names_pattern({"user", "Tom"})
    assert without_names("The user is Maya.", names) == "they is Maya."
    assert (
        without_names("The user's partner Tom is allergic.", names)
        == "their partner they is allergic."
    )
    assert (
        without_names("Which places are safe for the user?", names)
        == "Which places are safe for they?"
    )
    assert without_names("The username is taken.", names) == "The username is taken."


async def test_a_fact_naming_the_one_asked_about_goes_before_anothers_alike() -> None:
    # names are put as "they" before the comparison, so the two partners' facts read the
    # same in meaning: only that the question names Maya, and one of them names her, decides
    facts = [
        DurableFact(
            "constraint", "allergic:peanut", "Tom", "Maya's partner Tom is allergic to peanuts."
        ),
        DurableFact(
            "constraint", "allergic:peanut", "Eli", "Sam's partner Eli is allergic to peanuts."
        ),
        DurableFact("identity", "job", "Sam", "Sam is a nurse."),
        DurableFact("identity", "job", "Maya", "Maya is a nurse."),
    ]
    part = DurablePart(MemoryConfig(), resolve_counter(), MiniLMEmbedder())
    kept_last = await part.least_needed_first("What is Maya's partner allergic to?", facts)
    # equal needs keep the given order: without the bonus Tom's fact would go first
    assert kept_last.index(facts[0]) > kept_last.index(facts[1]), [f.text for f in kept_last]


async def test_a_fact_the_one_asked_about_told_of_another_goes_before_anothers_alike() -> None:
    facts = [
        DurableFact(
            "constraint", "allergic:peanut", "Tom", "Tom is allergic to peanuts.", said_by="Maya"
        ),
        DurableFact(
            "constraint", "allergic:peanut", "Eli", "Eli is allergic to peanuts.", said_by="Sam"
        ),
    ]
    part = DurablePart(MemoryConfig(), resolve_counter(), MiniLMEmbedder())
    kept_last = await part.least_needed_first("What is Maya's partner allergic to?", facts)
    assert kept_last.index(facts[0]) > kept_last.index(facts[1]), [f.text for f in kept_last]


def test_a_relation_the_question_names_by_its_owner_is_whom_it_asks_about() -> None:
    from longtalk.engine.durable import HOLDER_WEIGHT, MENTION_WEIGHT, asked_about, names_pattern

    own = DurableFact("constraint", "allergic:gluten", "Maya", "Maya avoids gluten.")
    told = DurableFact(
        "constraint", "allergic:peanut", "Tom", "Tom is allergic to peanuts.", said_by="Maya"
    )
    sams = DurableFact("constraint", "allergic:sesame", "Sam", "Sam is allergic to sesame.")
    names = names_pattern({"Maya", "Tom", "Sam"})

    partner = asked_about("What must Maya's partner keep away from?", names)
    assert partner.weight(told, names) == partner.weight(own, names) == HOLDER_WEIGHT

    friend = asked_about("What should Maya's friend Sam never eat?", names)
    assert friend.weight(sams, names) == HOLDER_WEIGHT
    assert friend.weight(own, names) == MENTION_WEIGHT

    job = asked_about("What is Maya's job?", names)  # her own thing: the others are hers to tell
    assert job.weight(own, names) == HOLDER_WEIGHT
    assert job.weight(told, names) == MENTION_WEIGHT
    assert job.weight(sams, names) == 0.0

    plain = asked_about("Which restaurants are safe for Tom?", names)
    assert (plain.people, plain.circles, plain.pointers) == ({"tom"}, set(), set())


def test_the_unnamed_users_relation_is_asked_about_through_the_user() -> None:
    from longtalk.engine.durable import HOLDER_WEIGHT, asked_about, names_pattern

    told = DurableFact(
        "constraint", "allergic:peanut", "Tom", "Tom is allergic to peanuts.", said_by="user"
    )
    names = names_pattern({"user", "Tom"})
    asked = asked_about("What must the user's partner keep away from?", names)
    assert asked.weight(told, names) == HOLDER_WEIGHT


def test_the_relations_a_question_asks_about_are_read_from_its_parse() -> None:
    from longtalk.language.questions import RelationAsked, relations_asked

    assert relations_asked("What should Maya's friend Sam never eat?") == (
        RelationAsked("Maya", "friend", "Sam"),
    )
    assert relations_asked("What do Melanie's kids like?") == (RelationAsked("Melanie", "kid", ""),)
    assert relations_asked("What is Caroline's identity?") == ()
