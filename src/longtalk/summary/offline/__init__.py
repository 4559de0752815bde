"""The offline summarizer: a real summary with no network and no LLM (the embedded default).

It tells a conversation's threads in the participants' own words: each line quotes one
sentence with the speaker's name and the day it was said, chosen by a learned salience
model and by how often the speaker comes back to it (:mod:`.threads`). Extending a summary
re-selects from the lines already told and the new sentences under one budget, so the
summary is consolidated as the chat grows rather than a replay of single turns.
"""

from longtalk.summary.offline.threads import Line, NarrativeConfig
from longtalk.summary.offline.transcript import parse_transcript
from longtalk.summary.offline.writer import (
    OfflineSummarizer,
    OfflineSummaryWriter,
    default_embedder,
)

__all__ = [
    "Line",
    "NarrativeConfig",
    "OfflineSummarizer",
    "OfflineSummaryWriter",
    "default_embedder",
    "parse_transcript",
]
