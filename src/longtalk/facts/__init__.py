"""Durable facts: what people say about themselves that outlives the moment.

Found without an LLM by cue patterns (:func:`extract_facts`), or taken from a structured
LLM summary (:func:`facts_from_summary`); merged so duplicates unite and a later fact on the
same subject supersedes the earlier (:func:`merge_facts`); rendered as the context's
durable part under a token allowance, least durable left out first (:func:`render_facts`).
Pure: values in, values out; storage keeps :meth:`DurableFact.to_dict`'s JSON.
"""

from longtalk.facts.durable_fact import DURABILITY, DurableFact, FactKind, FactSource
from longtalk.facts.from_summary import episode_sequences, facts_from_summary
from longtalk.facts.merge import merge_facts
from longtalk.facts.offline import extract_facts
from longtalk.facts.render import FACTS_HEADER, RenderedFacts, cut_order, render_facts

__all__ = [
    "DURABILITY",
    "FACTS_HEADER",
    "DurableFact",
    "FactKind",
    "FactSource",
    "RenderedFacts",
    "cut_order",
    "episode_sequences",
    "extract_facts",
    "facts_from_summary",
    "merge_facts",
    "render_facts",
]
