"""A long, plain chat for the real-model tests: 200 messages a small model can summarize."""

from __future__ import annotations

from longtalk.core.messages import Message, assistant, user

PLACES = ("Lisbon", "Porto", "Seville", "Lyon", "Turin", "Bruges", "Ghent", "Bologna")
THINGS = ("a bakery", "a museum", "a market", "a bookshop", "a park", "a river walk")
PEOPLE = ("my sister Marie", "my friend Tom", "my colleague Ana", "my neighbour Luis")


def long_chat(messages: int = 200) -> list[Message]:
    """``messages`` messages (user and assistant in turn) about planning trips."""
    chat: list[Message] = []
    for number in range(messages // 2):
        place = PLACES[number % len(PLACES)]
        thing = THINGS[number % len(THINGS)]
        person = PEOPLE[number % len(PEOPLE)]
        chat.append(user(f"Day {number + 1}: {place} with {person}?"))
        chat.append(assistant(f"Yes, and see {thing}."))
    return chat
