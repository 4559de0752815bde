"""Durable-facts benchmark: does what a person says about themselves once reach every context?

    python bench/durable_facts.py --data PATH [--budgets 1000,2000,4000] [--json OUT]
                                  [--min-turns 500] [--limit N]

Ten personal facts (an allergy, a diet, a sister's city, a pet's name, a car budget and its
later change, a seat preference, a birthday, a decision, a dislike, a calling-hours
constraint) are planted into every LoCoMo-format conversation of ``--data`` with at least
``--min-turns`` messages (the long ones, ~600 messages). Each is said once, early (within
the first 15 % of the conversation), by the conversation's user-role speaker, and answered
with a short acknowledgement by the other speaker; the budget is raised once, later (at 40 %).
Messages are appended one by one through the public front door (``AsyncMemory("memory:")``:
the DEFAULT configuration, the offline summarizer, summaries inline), then, after
``chat.summarize()`` has nothing left to do, every fact is asked for with a question that
shares no word (nor word stem) with its statements ("What food should Joanna avoid?" for
"I'm allergic to shellfish"), once per budget: ``chat.context(question, budget_tokens=B)``.

How "reaches" is judged: each fact has key phrases (``shellfish``; ``29th of february`` or
``29 february`` or ``february 29``; ``4,200``); a text holds the fact when every key group
has one of its phrases in it, compared case-insensitively with whitespace collapsed and
thousands separators removed (``4,200`` = ``4200``). The key phrases never occur in the
unplanted conversation (checked: the run stops if one does), so a hit comes from the plant.

Per budget:

* ``in_context``: the share of facts whose key phrases reach the rendered context
  (``context.text``).
* ``in_memory``: the same over the parts that survive without recall: every part but the
  recalled turns and the recent window (``context.parts`` of kinds other than ``recalled``
  and ``verbatim``: today ``summary`` and ``user``, and the durable-facts part).
* ``baseline_recency``: the share a plain chat reaches in the same run: the newest messages
  that fit the budget (no memory). ``in_context_vs_recency`` is the ratio (null at 0).
* ``stale_in_memory``: questions whose memory parts still show the superseded car budget.
* ``missed``: ``{"context": [...], "memory": [...]}``, each miss as ``conversation/fact``.
* ``tokens_mean``: the mean tokens of the contexts.

The varied set (``--set varied`` or ``both``, the default): ``bench/data/durable_facts.json``
holds 82 statements of 45 kinds in natural, often indirect, phrasings, said by the user-role
speaker or by the other participant, some updated later (the old value must go), some
retracted, and distractors (hypotheticals, questions, advice, someone else's trait,
sarcasm, instructions to the assistant) that must never become a fact. Its halves are
fixed in the file: ``tune`` (the statement-kind model saw it) and ``report`` (never used
for fitting or tuning). Each half is planted into one long conversation (``tune`` into the
first, ``report`` into the last long one): statements spread over the first 60 %, updates
and retractions at 70-80 %. Per half and budget (``varied.<half>.<budget>``):

* ``in_context`` / ``in_memory``: as above, over the half's facts still current (its
  updates' new values; not the retracted ones).
* ``supersession_current``: the share of updated facts whose new value reaches the memory
  parts; ``stale_shown``: how many still show their old value there (on a line that does
  not also show the new value: ``switched from tennis to padel`` tells the change).
* ``retraction_ok``: the share of retracted facts no current fact (``chat.facts()``) shows.
* ``other_speaker_ok``: the share of the other participant's facts kept as theirs (a
  current fact held by them shows the value).
* ``false_facts``: distractors (and a nickname asked for) that a current fact shows.

JSON: ``data``, ``budgets``, ``conversations`` (ids and messages), ``facts`` (the planted
set: key, statement, question), ``extraction`` (per conversation, what
``longtalk.facts.extract_facts`` finds in all its messages: ``facts``, the ``tokens`` they
take rendered, the ``planted`` keys among them, ``stale`` superseded values still shown),
``seconds``, and ``results`` ``{budget: report}``.
"""

from __future__ import annotations

import os

# One BLAS thread: on a shared 2-core box, OpenBLAS threads spinning against each other made
# the numpy MiniLM forward much slower (see bench/locomo_recall.py).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import asyncio
import json
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from longtalk import AsyncMemory, Message, Role
from longtalk.core.tokens import HeuristicTokenCounter
from longtalk.facts import extract_facts, render_facts
from longtalk.tools.datasets.locomo import Conversation, load_locomo

sys.path.insert(0, str(Path(__file__).resolve().parent))
import durable_varied as varied  # noqa: E402
from durable_varied import holds, normal, speakers  # noqa: E402

DEFAULT_DATA = Path("/work/shared/data/locomo/locomo_dev.json")
DEFAULT_BUDGETS = (1000, 2000, 4000)
COUNTER = HeuristicTokenCounter(4.0)  # the default configuration's counter
MEMORY_FREE_KINDS = frozenset({"recalled", "verbatim"})
EARLY_SHARE = 0.15  # every fact is first said within this share of the conversation
UPDATE_SHARE = 0.40  # where the car budget changes
WORD = re.compile(r"[a-z0-9]+")
QUESTION_WORDS = frozenset(
    """a an the is are was were be do does did what which who whom where when how why can
    could should would will to of in on at for from by with about as it its into than
    that this these those there their they them he she his her him has have had""".split()
)


@dataclass(frozen=True, slots=True)
class PlantedFact:
    """One fact: what is said (once; ``update`` changes it later), asked, and looked for.

    ``keys`` are groups of alternative phrases; every group must be found. ``stale`` are the
    phrases of the value the update superseded.
    """

    key: str
    statement: str
    reply: str
    question: str
    keys: tuple[tuple[str, ...], ...]
    update: str = ""
    stale: tuple[str, ...] = ()


FACTS: tuple[PlantedFact, ...] = (
    PlantedFact(
        "allergy",
        "Oh, before I forget: I'm allergic to shellfish, so no shrimp or crab when you cook.",
        "Good to know, thanks for telling me!",
        "What food should {name} avoid?",
        (("shellfish",),),
    ),
    PlantedFact(
        "diet",
        "I went vegetarian last spring and honestly I don't miss meat at all.",
        "That's great, good for you!",
        "Which diet does {name} follow?",
        (("vegetarian",),),
    ),
    PlantedFact(
        "sister_city",
        "My sister Lena moved to Rotterdam over the winter, I miss her already.",
        "Aw, I hope you get to visit her soon.",
        "In which city is {name}'s sibling based?",
        (("rotterdam",),),
    ),
    PlantedFact(
        "pet_name",
        "We adopted a little tabby cat last month, we named him Biscuit.",
        "So cute, congrats on the new family member!",
        "What is {name}'s pet called?",
        (("biscuit",),),
    ),
    PlantedFact(
        "car_budget",
        "For the used car I'm saving for, I can spend at most 3,500 dollars.",
        "Makes sense, good luck with the search!",
        "How much money can {name} put toward a vehicle?",
        (("4,200",),),
        update="Update on the car hunt: my limit is now 4,200, my uncle chipped in.",
        stale=("3,500",),
    ),
    PlantedFact(
        "seat",
        "Whenever I fly I book an aisle seat so I can stretch my legs.",
        "Smart, I should do that too.",
        "Where does {name} like to sit on a plane?",
        (("aisle seat",),),
    ),
    PlantedFact(
        "birthday",
        "My birthday is on the 29th of February, so I only get a real one every four years!",
        "Ha, that's a fun one!",
        "On which day was {name} born?",
        (("29th of february", "29 february", "february 29"),),
    ),
    PlantedFact(
        "decision",
        "I've decided to sell my motorbike and take the train to work from now on.",
        "Sounds like a good call.",
        "What vehicle is {name} getting rid of?",
        (("motorbike",),),
    ),
    PlantedFact(
        "dislike",
        "I can't stand cilantro, it tastes like soap to me.",
        "Ha, lots of people say that!",
        "Which herb does {name} hate?",
        (("cilantro",),),
    ),
    PlantedFact(
        "calling_hours",
        "Please never ring me before 10 am, I work late and sleep in.",
        "Noted, I'll keep that in mind.",
        "What is the earliest time to phone {name}?",
        (("10 am", "10am", "10 a.m."),),
    ),
)


# -- judging --------------------------------------------------------------------------------


def stem(word: str) -> str:
    """A crude stem, enough to catch ``named``/``name`` and ``flies``/``fly``."""
    for suffix in ("ing", "ies", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def stems(text: str, names: Sequence[str] = ()) -> set[str]:
    skip = QUESTION_WORDS | {n.casefold() for n in names}
    return {stem(w) for w in WORD.findall(text.casefold()) if w not in skip}


def shared_words(fact: PlantedFact, name: str) -> set[str]:
    """Word stems a fact's question shares with its statements (must be none)."""
    said = stems(f"{fact.statement} {fact.update}", [name])
    return said & stems(fact.question.format(name=name), [name])


# -- planting -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Plan:
    """A conversation with the facts planted, and who says them."""

    sample_id: str
    speaker: str
    other: str
    messages: tuple[Message, ...]


def check_absent(conv: Conversation, facts: Sequence[PlantedFact]) -> None:
    """Stop when a key or stale phrase already occurs in the unplanted conversation."""
    text = normal("\n".join(m.content for m in conv.messages))
    for fact in facts:
        for phrase in [p for group in fact.keys for p in group] + list(fact.stale):
            if normal(phrase) in text:
                raise ValueError(f"{conv.sample_id}: {phrase!r} ({fact.key}) is already in it")


def plant(conv: Conversation, facts: Sequence[PlantedFact] = FACTS) -> Plan:
    """The conversation with each fact said once early, and the budget update later.

    Each statement (with its reply) goes after a message of the other speaker, so turns
    still alternate; it takes that message's timestamp.
    """
    check_absent(conv, facts)
    user, other = speakers(conv)
    messages = list(conv.messages)
    inserts: dict[int, list[str]] = {}
    count = len(messages)
    for index, fact in enumerate(facts):
        at = int(count * EARLY_SHARE * (index + 1) / (len(facts) + 1))
        inserts.setdefault(_after_other(messages, at), []).append(fact.statement)
        if fact.update:
            inserts.setdefault(_after_other(messages, int(count * UPDATE_SHARE)), []).append(
                fact.update
            )
    replies = {f.statement: f.reply for f in facts} | {f.update: "Nice!" for f in facts}
    planted: list[Message] = []
    for index, message in enumerate(messages):
        planted.append(message)
        for statement in inserts.get(index, []):
            stamp = message.timestamp
            planted.append(Message(role=Role.USER, content=statement, name=user, timestamp=stamp))
            reply = replies[statement]
            planted.append(Message(role=Role.ASSISTANT, content=reply, name=other, timestamp=stamp))
    return Plan(conv.sample_id, user, other, tuple(planted))


def _after_other(messages: Sequence[Message], at: int) -> int:
    """The index of the first message at or after ``at`` not said by the user role."""
    for index in range(max(0, at), len(messages)):
        if messages[index].role != Role.USER:
            return index
    return len(messages) - 1


# -- one conversation -----------------------------------------------------------------------


@dataclass
class Asked:
    """One question at one budget and what reached its context."""

    conversation: str
    fact: str
    budget: int
    in_context: bool
    in_memory: bool
    stale_in_memory: bool
    recency: bool
    tokens: int


def recency_text(messages: Sequence[Message], budget: int) -> str:
    """A plain chat's context: the newest messages that fit the budget."""
    kept: list[str] = []
    used = 0
    for message in reversed(messages):
        line = f"{message.speaker()}: {message.content}"
        cost = COUNTER.count(line) + 1
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    return "\n".join(reversed(kept))


async def run_conversation(
    plan: Plan, budgets: Sequence[int], facts: Sequence[PlantedFact] = FACTS
) -> list[Asked]:
    """Append the planted conversation through the front door, then ask every question."""
    asked: list[Asked] = []
    async with AsyncMemory("memory:") as memory:
        chat = await memory.chat(f"durable-{plan.sample_id}")
        for message in plan.messages:
            await chat.append(
                message.role, message.content, name=message.name, timestamp=message.timestamp
            )
        while (await chat.summarize()).changed:
            pass  # settle: nothing the trigger still wants is left undone
        for budget in budgets:
            plain = recency_text(plan.messages, budget)
            for fact in facts:
                context = await chat.context(
                    fact.question.format(name=plan.speaker), budget_tokens=budget
                )
                memory_text = "\n".join(
                    p.text for p in context.parts if p.kind not in MEMORY_FREE_KINDS
                )
                asked.append(
                    Asked(
                        conversation=plan.sample_id,
                        fact=fact.key,
                        budget=budget,
                        in_context=holds(context.text, fact.keys),
                        in_memory=holds(memory_text, fact.keys),
                        stale_in_memory=bool(fact.stale) and holds(memory_text, [fact.stale]),
                        recency=holds(plain, fact.keys),
                        tokens=context.tokens,
                    )
                )
    return asked


def extraction(plan: Plan, facts: Sequence[PlantedFact] = FACTS) -> dict[str, Any]:
    """What the offline extractor finds in the whole planted conversation (no budget).

    The durable part the engine shows is at most this: ``facts`` found, the ``tokens`` all
    of them take rendered, which ``planted`` facts they hold (the current car budget, not
    the superseded one: ``stale``).
    """
    found = extract_facts(list(enumerate(plan.messages, start=1)))
    part = render_facts(found, 10**9, COUNTER)
    return {
        "facts": len(found),
        "tokens": part.tokens,
        "planted": [f.key for f in facts if holds(part.text, f.keys)],
        "stale": [f.key for f in facts if f.stale and holds(part.text, [f.stale])],
    }


# -- the report -----------------------------------------------------------------------------


def report(asked: Sequence[Asked], budget: int) -> dict[str, Any]:
    """The per-budget figures (see the module docstring)."""
    rows = [a for a in asked if a.budget == budget]
    n = max(1, len(rows))
    in_context = sum(a.in_context for a in rows) / n
    recency = sum(a.recency for a in rows) / n
    return {
        "n": len(rows),
        "in_context": round(in_context, 4),
        "in_memory": round(sum(a.in_memory for a in rows) / n, 4),
        "baseline_recency": round(recency, 4),
        "in_context_vs_recency": round(in_context / recency, 3) if recency else None,
        "stale_in_memory": sum(a.stale_in_memory for a in rows),
        "tokens_mean": round(sum(a.tokens for a in rows) / n, 1),
        "missed": {
            "context": [f"{a.conversation}/{a.fact}" for a in rows if not a.in_context],
            "memory": [f"{a.conversation}/{a.fact}" for a in rows if not a.in_memory],
        },
    }


def print_report(results: dict[str, Any], out: Any = sys.stdout) -> None:
    print(
        f"{'budget':>7} {'n':>4} {'in_context':>11} {'in_memory':>10} {'recency':>8} "
        f"{'ratio':>6} {'stale':>6} {'tokens':>7}",
        file=out,
    )
    for budget, row in results["results"].items():
        ratio = row["in_context_vs_recency"]
        print(
            f"{budget:>7} {row['n']:>4} {row['in_context']:>11.3f} {row['in_memory']:>10.3f} "
            f"{row['baseline_recency']:>8.3f} {ratio if ratio is not None else '-':>6} "
            f"{row['stale_in_memory']:>6} {row['tokens_mean']:>7}",
            file=out,
        )
    print("\noffline extraction over each conversation (what a durable part can show):", file=out)
    for conv, row in results["extraction"].items():
        print(
            f"  {conv}: {row['facts']} facts, {row['tokens']} tokens, planted "
            f"{len(row['planted'])}/{len(FACTS)}, stale {row['stale'] or '-'}",
            file=out,
        )
    for budget, row in results["results"].items():
        print(f"\nmissed at {budget}:", file=out)
        print(f"  context: {', '.join(row['missed']['context']) or '-'}", file=out)
        print(f"  memory:  {', '.join(row['missed']['memory']) or '-'}", file=out)


async def evaluate(
    data: Path,
    budgets: Sequence[int],
    min_turns: int,
    limit: int | None,
    log: Callable[[str], None],
) -> dict[str, Any]:
    conversations = [c for c in load_locomo(data, captions=False) if len(c.turns) >= min_turns]
    if limit is not None:
        conversations = conversations[:limit]
    if not conversations:
        raise ValueError(f"{data}: no conversation has {min_turns} messages or more")
    asked: list[Asked] = []
    plans = []
    extracted = {}
    for conv in conversations:
        plan = plant(conv)
        for fact in FACTS:
            if shared := shared_words(fact, plan.speaker):
                raise ValueError(f"the question of {fact.key} repeats {sorted(shared)}")
        plans.append(plan)
        extracted[plan.sample_id] = extraction(plan)
        log(f"{plan.sample_id}: {len(plan.messages)} messages, facts said by {plan.speaker}")
        asked += await run_conversation(plan, budgets)
    return {
        "data": str(data),
        "budgets": list(budgets),
        "conversations": [
            {"id": p.sample_id, "messages": len(p.messages), "speaker": p.speaker} for p in plans
        ],
        "facts": [asdict(f) for f in FACTS],
        "extraction": extracted,
        "results": {str(b): report(asked, b) for b in budgets},
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo-format JSON")
    parser.add_argument("--budgets", default=",".join(map(str, DEFAULT_BUDGETS)))
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--min-turns", type=int, default=500, help="the long conversations")
    parser.add_argument("--limit", type=int, default=None, help="at most N conversations")
    parser.add_argument(
        "--set",
        choices=("classic", "varied", "both"),
        default="both",
        help="the ten classic facts, the varied set, or both",
    )
    args = parser.parse_args(argv)
    try:
        budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    except ValueError:
        parser.error(f"--budgets takes numbers separated by commas, not {args.budgets!r}")
    started = time.perf_counter()
    log = lambda s: print(s, file=sys.stderr)  # noqa: E731
    results: dict[str, Any] = {}
    if args.set != "varied":
        results = asyncio.run(evaluate(args.data, budgets, args.min_turns, args.limit, log))
        print_report(results)
    if args.set != "classic":
        results["varied"] = asyncio.run(varied.evaluate(args.data, budgets, args.min_turns, log))
        varied.print_report(results["varied"])
    results["seconds"] = round(time.perf_counter() - started, 1)
    print(f"\n{results['seconds']:.1f} s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
