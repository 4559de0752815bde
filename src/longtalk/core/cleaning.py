"""Strip chat-template special tokens and reasoning blocks from model output."""

from __future__ import annotations

import re

_PATTERNS = (
    # A whole leaked ChatML turn: <|im_start|>role ... <|im_end|>
    re.compile(r"<\|im_start\|>.*?<\|im_end\|>", re.DOTALL),
    # Reasoning blocks that some models emit before the answer.
    re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE),
    # An unterminated reasoning block swallows everything after it only if nothing follows;
    # a dangling opening tag alone is dropped below.
    re.compile(r"</?(think|thinking|reasoning)>", re.IGNORECASE),
    # Lone special tokens of common templates (ChatML, Llama 3, Gemma, Mistral, GPT-OSS).
    re.compile(
        r"<\|(?:im_start|im_end|im_sep|endoftext|eot_id|begin_of_text|end_of_text|"
        r"start_header_id|end_header_id|eom_id|start|end|message|channel|return)\|>"
        r"|<(?:start_of_turn|end_of_turn)>|</?s>|\[/?INST\]"
    ),
)


# A reply that is wholly one assistant turn (some servers echo the template around it).
_WRAPPED = re.compile(
    r"^\s*<\|im_start\|>[ \t]*(?:assistant[ \t]*\n)?(.*?)(?:<\|im_end\|>)?\s*$", re.DOTALL
)
_OTHER_ROLE = re.compile(r"^\s*<\|im_start\|>[ \t]*(?:user|system|tool)\b", re.IGNORECASE)


def clean_output(text: str) -> str:
    """Remove special tokens and reasoning blocks, then trim.

    Leaked tokens stored in a summary get injected into the next prompt and make the model
    append a new summary instead of replacing the old one; they never reach storage. A
    reply wholly wrapped in one ``<|im_start|>assistant ... <|im_end|>`` turn keeps what
    that turn says; a leaked turn of another role is removed.
    """
    wrapped = _WRAPPED.match(text)
    inner = wrapped.group(1) if wrapped else ""
    if wrapped and "<|im_" not in inner and not _OTHER_ROLE.match(text):
        text = inner
    for pattern in _PATTERNS:
        text = pattern.sub("", text)
    text = re.sub(r"^(?:assistant|system|user)\s*\n", "", text.strip(), flags=re.IGNORECASE)
    return text.strip()
