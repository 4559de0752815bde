"""Who may state a durable fact, and which messages never become one.

A fact shown in every context must be something a person said of themselves, so only
human speakers count: user messages, and assistant-role messages that carry a person's
name (LoCoMo's second speaker, a named participant of a group chat), never an AI
assistant, an agent, a tool or the system. A message that imitates a role marker
(``System: ...``, ``<|im_start|>``), talks to the assistant about its instructions
("ignore all previous instructions"), or carries a secret (a password, a key, a card
number) is left out whole: it is text to be wary of, not a fact to repeat in every prompt.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from longtalk.core.messages import Message, MessageType, Role

__all__ = ["AI_NAMES", "is_human", "is_suspicious"]

AI_NAMES = frozenset(
    """assistant ai bot chatbot system tool agent supervisor router planner researcher
    writer coder helper model llm gpt chatgpt claude gemini copilot llama mistral
    orchestrator worker executor critic reviewer summarizer summariser""".split()
)
_PERSON_NAME = re.compile(r"^[A-Z][a-zà-ÿ'’-]+(?: [A-Z][a-zà-ÿ'’-]+){0,2}$")
_ROLE_MARKER = re.compile(
    r"(?:^|[\n\r]|[.!?;>]\s*|\s)(?:system|assistant|user|developer|human|ai|bot|admin|root"
    r"|operator|model)\s*:"
    r"|<\|?\s*(?:im_start|im_end|system|endoftext|start_header_id|eot_id)\s*\|?>"
    r"|\[/?(?:INST|SYS)\]|<</?SYS>>|#{2,}\s*(?:system|instruction)",
    re.IGNORECASE,
)
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass|skip)\b(?:\s+\w+){0,3}?\s+"
    r"(?:instructions?|rules|prompts?|guidelines|directives|guardrails|safety)\b"
    r"|\byou are now\b|\bfrom now on,? you\b|\bnew instructions?\b"
    r"|\b(?:system|developer|hidden) (?:prompt|message|instructions?)\b|\bjailbreak"
    r"|\bdo anything now\b|\bact as (?:an? |the )?(?:admin|root|system|developer|unfiltered)"
    r"|\bpretend (?:to be|you are)\b|\byour (?:instructions|programming|rules)\b",
    re.IGNORECASE,
)
_SECRET = re.compile(
    r"\b(?:passwords?|passcodes?|passphrases?|pin (?:code|number)|my pin|api[ _-]?keys?"
    r"|secret keys?|access tokens?|auth tokens?|private keys?|credit card|card number|cvv"
    r"|iban|ssn|social security(?: number)?|login details|credentials)\b"
    r"|\b(?:sk|pk|ghp|xox[abp])[-_][A-Za-z0-9_-]{12,}|\b(?:\d[ -]?){13,19}\b",
    re.IGNORECASE,
)


def is_human(message: Message, people: Collection[str] | None = None) -> bool:
    """True when ``message`` was said by a person.

    With ``people``, only those speakers (by name, case-insensitively; ``user`` for an
    unnamed user message). Without it: user messages whose name is not an AI's, and
    assistant-role messages whose name looks like a person's (``Nate``, ``Ana Lima``), not
    an agent's (``supervisor``, ``research-agent``).
    """
    if message.is_tool or message.type == MessageType.TOOL:
        return False
    if message.role not in (Role.USER, Role.ASSISTANT):
        return False
    name = (message.name or "").strip()
    if people is not None:
        allowed = {person.casefold() for person in people}
        return (name or message.role.value).casefold() in allowed
    if message.role == Role.USER:
        return not name or not _ai_name(name)
    return bool(_PERSON_NAME.match(name)) and not _ai_name(name)


def _ai_name(name: str) -> bool:
    parts = re.split(r"[\s_\-.]+", name.casefold())
    return any(part in AI_NAMES for part in parts)


def is_suspicious(text: str) -> bool:
    """True for text that imitates a role marker, instructs the assistant, or holds a secret."""
    return bool(_ROLE_MARKER.search(text) or _INSTRUCTION.search(text) or _SECRET.search(text))
