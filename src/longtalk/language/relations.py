"""The nouns that name a person (or a pet) by their relation to someone: a closed class.

``my sister``, ``Maya's partner``, ``our corgi``: a possessed noun of this class is a person
in the owner's life, not the owner's thing (``my budget``, ``Maya's job``).
"""

from __future__ import annotations

__all__ = ["PEOPLE_NOUNS"]

PEOPLE_NOUNS = frozenset(
    """sister brother sibling mother mom mum father dad parent son daughter kid child baby
    wife husband spouse partner boyfriend girlfriend fiance fiancee companion friend cousin
    aunt uncle grandma grandpa grandmother grandfather niece nephew colleague coworker boss
    teammate classmate roommate neighbour neighbor dog cat puppy kitten pet""".split()
)
"""Lemmas (the parse's, lower case) of the nouns that name someone by relation."""
