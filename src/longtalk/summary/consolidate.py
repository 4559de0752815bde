"""Consolidation: older chain rows become one digest, so the shown summary stays flat.

When the rows since the last digest, past the newest ones that fill ``summary_max_tokens``,
hold more than ``summary_consolidate_tokens`` (default: four times ``summary_max_tokens``),
they are folded, with the old digest, into one new *digest* row covering their episodes; the
folded rows stay in storage as ``archived`` (provenance, web view). By default the rows are
merged structurally (entities deduplicated, every kept list kept, a thing's details capped
to what it is, a person's profile kept whole, the story's opening and newest sentences):
the model already read every message once, and re-reading its own rows would cost about a
seventh of the transcript again. With ``summary_consolidation = "model"`` a writer that can
consolidate (an LLM: merge, drop what later messages contradicted, keep dates) is asked.
Either way the digest is checked: every entity, preference, decision and open question of
the inputs that the digest lost is put back, so consolidation has no information cliff.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import reduce
from typing import Protocol, runtime_checkable

from longtalk.core.tokens import TokenCounter, TokenUsage
from longtalk.errors import LLMError
from longtalk.storage.base import SummaryRow
from longtalk.summary.chain import (
    LASTING,
    is_told,
    join_told,
    row_summary,
    stored_form,
    story_pieces,
)
from longtalk.summary.model import ConversationSummary, SummaryEntity, dedupe, merge_entities
from longtalk.summary.writer import SummaryDraft

log = logging.getLogger(__name__)

KEPT_LISTS = ("user_preferences", "decisions", "open_questions")
"""The lists whose items must survive a consolidation (with every entity)."""
DIGEST_LIST_ITEMS = 20
"""Topics and actions a merged digest keeps (the newest): they carry no survival promise."""


@runtime_checkable
class Consolidator(Protocol):
    """A writer that can fold several summaries, oldest first, into one."""

    async def consolidate(
        self, summaries: Sequence[ConversationSummary], *, max_tokens: int, structured: bool
    ) -> SummaryDraft:
        """One summary for all of ``summaries`` (about ``max_tokens`` long)."""
        ...


@dataclass(frozen=True, slots=True)
class Consolidation:
    """What a consolidation writes: the digest and the rows it archives.

    ``folded`` chain rows were consolidated (the old digest among them, which the new one
    replaces in place: its content is all in the new digest, so keeping it would only
    store the same facts again and again). ``by_writer``: the writer (its model) wrote the
    digest; otherwise it is the structural merge.
    """

    digest: SummaryRow
    archived: tuple[SummaryRow, ...]
    usage: TokenUsage
    restored: int = 0
    folded: int = 0
    by_writer: bool = False

    @property
    def rows(self) -> tuple[SummaryRow, ...]:
        """What to write (archived rows first, then the digest)."""
        return (*self.archived, self.digest)


def split(
    chain: Sequence[SummaryRow], keep_tokens: int
) -> tuple[list[SummaryRow], list[SummaryRow]]:
    """The rows to fold and the newest rows to keep: enough to fill ``keep_tokens``.

    Rows are kept, newest first, until they hold ``keep_tokens`` (at least the newest), so
    after a consolidation the newest detail alone still fills the shown summary.
    """
    kept: list[SummaryRow] = []
    held = 0
    for row in reversed(chain):
        if held >= keep_tokens or row.kind == "digest":
            break
        kept.append(row)
        held += row.token_count
    kept.reverse()
    return list(chain[: len(chain) - len(kept)]), kept


def due(chain: Sequence[SummaryRow], keep_tokens: int, threshold: int) -> bool:
    """True when the rows to fold, the digest aside, hold more than ``threshold`` tokens.

    The digest does not count: a digest near its cap would otherwise make every new row a
    consolidation that re-reads it.
    """
    older, _ = split(chain, keep_tokens)
    rows = [row for row in older if row.kind != "digest"]
    return bool(rows) and sum(row.token_count for row in rows) > threshold


def merged(summaries: Sequence[ConversationSummary]) -> ConversationSummary:
    """The structural merge of ``summaries`` (oldest first), narratives joined."""
    combined = reduce(lambda a, b: a.merge(b), summaries)
    told = [s.narrative for s in summaries if s.narrative]
    if told and all(is_told(t) for t in told):
        narrative = join_told([piece for t in told for piece in story_pieces(t)])
    else:
        narrative = " ".join(told)
    turns = sum(s.covered_turns for s in summaries)
    return combined.model_copy(update={"narrative": narrative, "covered_turns": turns})


def restore_lost(
    digest: ConversationSummary, inputs: Sequence[ConversationSummary]
) -> tuple[ConversationSummary, int]:
    """``digest`` with every entity and kept list item of ``inputs`` it lost put back."""
    union = reduce(lambda a, b: a.merge(b), inputs)
    known = {_key(entity.name) for entity in digest.entities}
    lost: list[SummaryEntity] = [e for e in union.entities if _key(e.name) not in known]
    updates: dict[str, object] = {"entities": merge_entities((*digest.entities, *lost))}
    restored = len(lost)
    for name in KEPT_LISTS:
        present = {_key(item) for item in getattr(digest, name)}
        missing = [item for item in getattr(union, name) if _key(item) not in present]
        restored += len(missing)
        updates[name] = dedupe((*missing, *getattr(digest, name)))
    return digest.model_copy(update=updates), restored


async def consolidate(
    chain: Sequence[SummaryRow],
    writer: object,
    *,
    max_tokens: int,
    counter: TokenCounter,
    structured: bool,
) -> Consolidation:
    """Fold the older rows of ``chain`` (the digest among them) into one digest row.

    The newest rows that fill ``max_tokens`` stay as they are. ``writer`` is asked when it
    can consolidate (see :class:`Consolidator`); None or any other writer: the merge.
    """
    older, _ = split(chain, max_tokens)
    inputs = [row_summary(row) for row in older]
    digest, usage, by_writer = await _digest(
        inputs, writer, max_tokens=max_tokens, structured=structured, counter=counter
    )
    digest, restored = restore_lost(digest, inputs)
    if restored:
        log.info("consolidation put back %d items the digest had lost", restored)
    text, fmt = stored_form(digest, structured=structured)
    row = SummaryRow(
        chat_id=older[-1].chat_id,
        summary_text=text,
        format=fmt,
        episode_first=older[0].episode_first,
        episode_last=older[-1].episode_last,
        turn_number=older[-1].turn_number,
        token_count=counter.count(text),
        kind="digest",
    )
    if older[0].kind == "digest":  # the new digest replaces the old one in place
        row = replace(row, id=older[0].id, sequence=older[0].sequence)
    archived = tuple(replace(old, kind="archived") for old in older if old.kind != "digest")
    return Consolidation(row, archived, usage, restored, folded=len(older), by_writer=by_writer)


async def _digest(
    inputs: Sequence[ConversationSummary],
    writer: object,
    *,
    max_tokens: int,
    structured: bool,
    counter: TokenCounter,
) -> tuple[ConversationSummary, TokenUsage, bool]:
    """The digest of ``inputs``, what writing it cost, and whether the writer wrote it."""
    if isinstance(writer, Consolidator):
        try:
            draft = await writer.consolidate(inputs, max_tokens=max_tokens, structured=structured)
            return draft.summary, draft.usage, True
        except LLMError as exc:
            log.warning("consolidation by the model failed, merging instead: %s", exc)
    digest = merged(inputs)
    update = {
        # a thing keeps what it is; a person's profile is kept whole (the shown cut trims it)
        "entities": tuple(e if e.type == "person" else capped_details(e) for e in digest.entities),
        "narrative": story(digest.narrative, max_tokens // 2, counter),
        # what is not promised to survive keeps only its newest items
        "topics": digest.topics[-DIGEST_LIST_ITEMS:],
        "actions_taken": digest.actions_taken[-DIGEST_LIST_ITEMS:],
    }
    return digest.model_copy(update=update), TokenUsage(), False


def story(text: str, max_tokens: int, counter: TokenCounter) -> str:
    """The opening sentence of ``text``, then its newest whole sentences, within ``max_tokens``.

    A digest merged again and again keeps how the conversation began; the rest of its room
    goes to what happened last (the middle stays in the archived rows and in recall). An
    opening longer than half the room gives way to the newest sentences.
    """
    sentences = story_pieces(text)
    joint = join_told if is_told(text) else " ".join
    opening = sentences[:1]
    room = max_tokens - sum(counter.count(s) + 1 for s in opening)
    if len(sentences) < 2 or room < max_tokens // 2:
        return joint(_newest(sentences, max_tokens, counter))
    return joint([*opening, *_newest(sentences[1:], room, counter)])


def _newest(sentences: Sequence[str], max_tokens: int, counter: TokenCounter) -> list[str]:
    """The newest of ``sentences`` within ``max_tokens``, in their order."""
    kept: list[str] = []
    used = 0
    for sentence in reversed(sentences):
        cost = counter.count(sentence) + 1
        if used + cost > max_tokens:
            break
        kept.append(sentence)
        used += cost
    return kept[::-1]


MAX_ENTITY_DETAILS = 200
"""Characters of details an entity keeps, cut at a ``;`` boundary."""
MAX_THING_DETAILS = 2
"""Details a place, organisation or thing keeps: what it is, not every time it came up."""


def capped_details(entity: SummaryEntity) -> SummaryEntity:
    """``entity`` with its details bounded within :data:`MAX_ENTITY_DETAILS` characters.

    A thing keeps its first :data:`MAX_THING_DETAILS` details (what it is); a person keeps
    who they are (relations, constraints) and then the newest (their profile goes on).
    """
    parts = [p.strip() for p in entity.details.split(";") if p.strip()]
    if not parts:
        return entity
    if entity.type == "person":
        lasting = [p for p in parts if LASTING.search(p)]
        kept = _within([*lasting, *reversed([p for p in parts if p not in lasting])])
        kept = [p for p in parts if p in kept]  # in their order
    else:
        kept = _within(parts[:MAX_THING_DETAILS])
    details = "; ".join(kept) or entity.details[: MAX_ENTITY_DETAILS - 1] + "…"
    return entity if details == entity.details else entity.model_copy(update={"details": details})


def _within(parts: Sequence[str]) -> list[str]:
    kept: list[str] = []
    for part in parts:
        if len("; ".join([*kept, part])) > MAX_ENTITY_DETAILS:
            break
        kept.append(part)
    return kept


def _key(text: str) -> str:
    return " ".join(text.casefold().split())
