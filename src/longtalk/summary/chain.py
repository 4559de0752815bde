"""Summary chains: rows read as summaries, and the chain rendered within a token cap.

A chain is shown oldest first: the digest (older rows consolidated) and the rows after it.
:func:`shown_summary` renders it within ``max_tokens``; when it must be cut, the least salient
detail goes first (:data:`CUT_ORDER`: mentions and topics, then things, then the story, and
the durable items last) and, within each, the oldest first, never the newest row's last
sentence; the rows it reports are exactly those still shown. The story is cut level: a
sentence goes from the row that still tells the most, its oldest first, so every period of
the chain keeps its last lines instead of the oldest periods going whole.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import reduce

from longtalk.core.tokens import TokenCounter
from longtalk.core.truncation import split_sentences
from longtalk.storage.base import SummaryFormat, SummaryRow
from longtalk.summary.model import LIST_FIELDS, ConversationSummary, SummaryEntity


def row_summary(row: SummaryRow) -> ConversationSummary:
    """The summary a row stores: parsed JSON, or narrative-only for plain text."""
    if row.format == "json":
        return ConversationSummary.parse(row.summary_text)
    return ConversationSummary(narrative=row.summary_text)


def stored_form(summary: ConversationSummary, *, structured: bool) -> tuple[str, SummaryFormat]:
    """The text and format a row stores for ``summary``."""
    if structured:
        return summary.to_json(), "json"
    return summary.narrative, "text"


def render_chain(rows: Sequence[SummaryRow]) -> str:
    """One text for a whole chain (no cap): see :func:`render_summaries`."""
    return render_summaries(list(rows), [row_summary(row) for row in rows])


def render_summaries(rows: Sequence[SummaryRow], summaries: Sequence[ConversationSummary]) -> str:
    """Each row's narrative with its episode range, then the sections merged across rows."""
    if not rows:
        return ""
    if len(rows) == 1:
        return summaries[0].to_context_string()
    narratives = [
        f"Episodes {row.episode_range}{_period(summary)}: {summary.narrative}"
        for row, summary in zip(rows, summaries, strict=True)
        if summary.narrative
    ]
    combined = reduce(lambda a, b: a.merge(b), summaries)
    sections = combined.model_copy(
        update={"narrative": "", "since": None, "until": None}
    ).to_context_string()
    return "\n".join([*narratives, sections] if sections else narratives)


@dataclass(frozen=True, slots=True)
class ShownSummary:
    """The summary as shown: its text, the rows it draws on, whether detail was cut."""

    text: str
    rows: tuple[SummaryRow, ...] = ()
    truncated: bool = False


LineSalience = Callable[[Sequence[str]], Sequence[float]]
"""How salient each told line is (higher: kept longer); the writer of the lines knows."""


def shown_summary(
    rows: Sequence[SummaryRow],
    *,
    max_tokens: int,
    counter: TokenCounter,
    salience: LineSalience | None = None,
) -> ShownSummary:
    """The chain within ``max_tokens``: the least salient and oldest detail is cut first.

    With ``salience``, a told story loses its least salient lines first, each row level;
    without it, its oldest.
    """
    summaries = [row_summary(row) for row in rows]
    text = render_summaries(rows, summaries)
    if counter.count(text) <= max_tokens:
        return ShownSummary(text, tuple(rows))
    sentences = [story_pieces(summary.narrative) for summary in summaries]
    orders = [
        _cut_order(summary.narrative, pieces, salience)
        for summary, pieces in zip(summaries, sentences, strict=True)
    ]
    tiers, units = _detail_units(summaries, sentences, orders)

    def fits(cut: Sequence[_Unit]) -> bool:
        return counter.count(_render_without(rows, summaries, sentences, cut)) <= max_tokens

    low, high = 0, len(units)  # the fewest oldest units to cut so that the text fits
    while low < high:
        middle = (low + high) // 2
        if fits(units[:middle]):
            high = middle
        else:
            low = middle + 1
    last = tiers[low - 1] if low else None
    same_tier = [unit for tier, unit in zip(tiers[:low], units, strict=False) if tier == last]
    cut = _put_back(units[:low], same_tier, fits)
    kept_rows, kept = _without(rows, summaries, sentences, cut)
    return ShownSummary(render_summaries(kept_rows, kept), tuple(kept_rows), truncated=True)


TOLD_LINE = re.compile(r'^(?P<speaker>[^":]+?)(?: \((?P<day>[^()"]*)\)| said): "(?P<quote>.*)"$')
"""A told line: a quote with its speaker and day (``Name (8 May 2023): "their words"``)."""


QUOTE_JOINT = '" "'
"""Between two quotes of one told line (a quote holds no double quote: it cannot occur in one)."""
SENTENCE_END = ('."', '!"', '?"', ']"')
"""A quote that ends so ends a sentence (or a bracketed note closes it, ``[shares a photo]``):
the next quote of its speaker and day may follow it on its line, and a reader still sees two
sentences."""


def story_pieces(narrative: str) -> list[str]:
    """The pieces a narrative is cut by: its quotes when it tells quotes, else its sentences.

    A told quote is one piece however many sentences it holds; cutting it at a sentence end
    would leave half a quote (``[shares a photo…]"``) under no speaker. A line telling
    several quotes of one speaker and day gives one piece a quote, each with its speaker and
    day (``Name (8 May 2023): "first." "second."`` is two).
    """
    if is_told(narrative):
        return told_pieces(narrative)
    return split_sentences(narrative)


def told_pieces(narrative: str) -> list[str]:
    """Each quote of a told narrative as a line of its own, with its speaker and day."""
    pieces: list[str] = []
    for line in narrative.splitlines():
        line = line.strip()
        match = TOLD_LINE.match(line)
        if match is None:
            pieces += [line] if line else []
            continue
        head = line[: match.start("quote")]
        pieces += [f'{head}{quote}"' for quote in match["quote"].split(QUOTE_JOINT)]
    return pieces


def join_told(pieces: Sequence[str]) -> str:
    """Told quotes one a line, the next quote of the same speaker and day on the same line.

    A speaker's sentences of one day make one line (``Name (8 May 2023): "first." "second."``)
    instead of repeating the name and date for each: the same words in fewer tokens. A quote
    joins the line before only when that line ends a sentence, so the two stay two sentences.
    """
    lines: list[str] = []
    last_head = ""
    for piece in pieces:
        match = TOLD_LINE.match(piece)
        head = piece[: match.start("quote")] if match else ""
        if head and head == last_head and lines[-1].endswith(SENTENCE_END):
            lines[-1] = f'{lines[-1]} "{piece[len(head) :]}'
        else:
            lines.append(piece)
        last_head = head
    return "\n".join(lines)


def _cut_order(narrative: str, pieces: Sequence[str], salience: LineSalience | None) -> list[int]:
    """Per piece, its place in the order a row's story is cut.

    The least salient told line goes first when ``salience`` is known, else the oldest
    piece. The last piece stays last: the newest row keeps its last line whatever it says.
    """
    if salience is None or not is_told(narrative) or len(pieces) < 2:
        return list(range(len(pieces)))
    scores = list(salience(pieces[:-1]))
    ranked = sorted(range(len(pieces) - 1), key=lambda pos: (scores[pos], pos))
    order = [0] * len(pieces)
    for place, pos in enumerate(ranked):
        order[pos] = place
    order[-1] = len(pieces) - 1
    return order


def is_told(narrative: str) -> bool:
    """Whether a narrative is told lines, one quote a line (the offline summarizer's)."""
    lines = [line.strip() for line in narrative.splitlines() if line.strip()]
    return bool(lines) and all(TOLD_LINE.match(line) for line in lines)


PUT_BACK_TRIES = 24
"""How many cut pieces of the last one's tier are tried again in the room it left."""


def _put_back(
    cut: Sequence[_Unit], tier: Sequence[_Unit], fits: Callable[[Sequence[_Unit]], bool]
) -> list[_Unit]:
    """``cut`` less the pieces of ``tier`` (the last cut piece's) that fit back, newest first.

    Cutting stops at the first piece that makes the text fit; when that piece was a long
    one, the room it leaves can hold shorter pieces of the same tier cut before it (an
    older sentence of the story). Putting them back fills the cap instead of leaving it
    half empty; a less salient tier (topics, mentions) never comes back while it is cut.
    """
    kept_cut = list(cut)
    for unit in list(reversed(tier))[1:PUT_BACK_TRIES]:
        trial = [other for other in kept_cut if other != unit]
        if fits(trial):
            kept_cut = trial
    return kept_cut


class ShownSummaries:
    """:func:`shown_summary` with a bounded memo: a chain is cut to size once per cap.

    A chat's context is read every turn while its chain changes only when the summary is
    extended, and cutting a chain to its cap renders it several times. The memo is keyed by
    the rows themselves (their text and version included) and the cap, so a changed chain
    is simply a new key; the least recently used entries go past ``size``.
    """

    def __init__(
        self, counter: TokenCounter, *, size: int = 1024, salience: LineSalience | None = None
    ) -> None:
        self.counter = counter
        self.size = size
        self.salience = salience
        self._memo: OrderedDict[tuple[tuple[SummaryRow, ...], int], ShownSummary] = OrderedDict()

    def __call__(self, rows: Sequence[SummaryRow], *, max_tokens: int) -> ShownSummary:
        """The chain within ``max_tokens`` (see :func:`shown_summary`)."""
        key = (tuple(rows), max_tokens)
        shown = self._memo.pop(key, None)
        if shown is None:
            shown = shown_summary(
                rows, max_tokens=max_tokens, counter=self.counter, salience=self.salience
            )
        self._memo[key] = shown
        while len(self._memo) > self.size:
            self._memo.popitem(last=False)
        return shown


_Unit = tuple[int, str, int, int]
"""A piece of detail: (row index, field, position in the field, part of an entity's details).

A narrative's positions are its sentences; an entity's details split on ``;`` into parts
(the last number; -1 for the whole entity or any other field's item). :data:`_MENTIONS`
stands for every name listed without details, in every row at once.
"""

_MENTIONS: _Unit = (-1, "mentions", -1, -1)

CUT_ORDER = (
    "mentions",
    "topics",
    "things",
    "narrative",
    "questions",
    "plans",
    "profiles",
    "lasting",
    "persons",
)
"""What a summary over its cap loses first, by salience: the names merely mentioned (all at
once: the line goes whole) and the topics, then what is said of things (places, objects:
each whole), then the story (the recent window retells the newest of it), and last the
durable items: open questions (the recent window or recall brings a live one back), actions
and decisions, the parts of each person's profile, then what lasts (preferences and
constraints, a person's relations and constraints), and at the very end the people's names.
Within a tier, older rows first and, in a row, older items first; the story alone is cut
level (a sentence from the row that still tells the most), so every period keeps its last."""

LASTING = re.compile(
    r"^[^()]*'s \w+$|\b(?:allergic|vegetarian|vegan|intolerant|diabetic|pescatarian|kosher"
    r"|halal|gluten|pregnant|wheelchair)\b",
    re.IGNORECASE,
)
"""A detail that says who a person is: a relation (``Maya's partner``) or a constraint
(``allergic to peanuts``)."""

_DURABLE_LISTS = LIST_FIELDS[1:]  # every list but the topics
_TIER_OF_LIST = {
    "topics": "topics",
    "open_questions": "questions",
    "actions_taken": "plans",
    "decisions": "plans",
    "user_preferences": "lasting",
}


def _detail_units(
    summaries: Sequence[ConversationSummary],
    sentences: Sequence[Sequence[str]],
    orders: Sequence[Sequence[int]],
) -> tuple[list[int], list[_Unit]]:
    """Every cuttable piece and its tier, in the order :data:`CUT_ORDER` says.

    ``sentences`` are the narratives' pieces, ``orders`` each piece's place in its row's cut.

    The newest row's last narrative sentence is never listed: the newest thing the summary
    says stays.
    """
    tier = {name: rank for rank, name in enumerate(CUT_ORDER)}
    ranked: list[tuple[int, int, float, _Unit]] = [(tier["mentions"], -1, 0.0, _MENTIONS)]
    last = len(summaries) - 1
    for index, summary in enumerate(summaries):
        told = len(sentences[index])
        size = told - 1 if index == last else told
        order = orders[index]
        ranked += [
            (tier["narrative"], place - told, index + place / told, (index, "narrative", pos, -1))
            for pos in range(told)
            if (place := order[pos]) < size
        ]
        for name in ("topics", *_DURABLE_LISTS):
            count = len(getattr(summary, name))
            rank = tier[_TIER_OF_LIST[name]]
            ranked += [(rank, index, pos / count, (index, name, pos, -1)) for pos in range(count)]
        ranked += _entity_units(index, summary.entities, tier)
    ranked.sort(key=lambda item: item[:3])
    return [item[0] for item in ranked], [unit for *_, unit in ranked]


def _entity_units(
    index: int, entities: Sequence[SummaryEntity], tier: dict[str, int]
) -> list[tuple[int, int, float, _Unit]]:
    """A thing goes whole; a person's details go part by part (oldest first), then the name."""
    units: list[tuple[int, int, float, _Unit]] = []
    count = len(entities)
    for pos, entity in enumerate(entities):
        whole = (index, "entities", pos, -1)
        if entity.type != "person":
            if entity.details:
                units.append((tier["things"], index, pos / count, whole))
            continue
        parts = _parts(entity.details)
        units += [
            (tier[_person_tier(said)], index, part / len(parts), (index, "entities", pos, part))
            for part, said in enumerate(parts)
        ]
        units.append((tier["persons"], index, pos / count, whole))
    return units


def _person_tier(part: str) -> str:
    return "lasting" if LASTING.search(part) else "profiles"


def _parts(details: str) -> list[str]:
    return [part.strip() for part in details.split(";") if part.strip()]


def _without(
    rows: Sequence[SummaryRow],
    summaries: Sequence[ConversationSummary],
    sentences: Sequence[Sequence[str]],
    cut: Sequence[_Unit],
) -> tuple[list[SummaryRow], list[ConversationSummary]]:
    drop: dict[int, dict[str, dict[int, set[int]]]] = {}
    for index, name, pos, part in cut:
        drop.setdefault(index, {}).setdefault(name, {}).setdefault(pos, set()).add(part)
    mentions = _MENTIONS in cut
    kept_rows: list[SummaryRow] = []
    kept: list[ConversationSummary] = []
    for index, (row, summary) in enumerate(zip(rows, summaries, strict=True)):
        trimmed = _trim(summary, sentences[index], drop.get(index, {}))
        if mentions:
            described = tuple(e for e in trimmed.entities if e.details)
            trimmed = trimmed.model_copy(update={"entities": described})
        if not trimmed.is_empty or index == len(rows) - 1:
            kept_rows.append(row)
            kept.append(trimmed)
    return kept_rows, kept


def _trim(
    summary: ConversationSummary,
    sentences: Sequence[str],
    drop: dict[str, dict[int, set[int]]],
) -> ConversationSummary:
    if not drop:
        return summary
    updates: dict[str, object] = {}
    for name, positions in drop.items():
        if name == "narrative":
            kept = [s for pos, s in enumerate(sentences) if pos not in positions]
            told = is_told(summary.narrative)
            updates["narrative"] = join_told(kept) if told else " ".join(kept)
        elif name == "entities":
            updates["entities"] = tuple(
                entity.model_copy(update={"details": _kept_parts(entity.details, parts)})
                for pos, entity in enumerate(summary.entities)
                if -1 not in (parts := positions.get(pos, set()))
            )
        else:
            values = getattr(summary, name)
            updates[name] = tuple(v for pos, v in enumerate(values) if pos not in positions)
    return summary.model_copy(update=updates)


def _kept_parts(details: str, cut: set[int]) -> str:
    if not cut:
        return details
    return "; ".join(part for pos, part in enumerate(_parts(details)) if pos not in cut)


def _render_without(
    rows: Sequence[SummaryRow],
    summaries: Sequence[ConversationSummary],
    sentences: Sequence[Sequence[str]],
    cut: Sequence[_Unit],
) -> str:
    kept_rows, kept = _without(rows, summaries, sentences, cut)
    return render_summaries(kept_rows, kept)


def _period(summary: ConversationSummary) -> str:
    return f" ({summary.period})" if summary.period else ""


def message_span(row: SummaryRow, rows: Sequence[SummaryRow]) -> tuple[int, int]:
    """The first and last message sequence ``row`` covers, among the chain's ``rows``.

    A row ends at its ``turn_number`` (the last message it folded) and begins after the
    last message of the rows whose episodes come before its own.
    """
    before = [r.turn_number for r in rows if r.episode_last < row.episode_first]
    return max(before, default=0) + 1, row.turn_number
