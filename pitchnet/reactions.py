"""The quick reactions a player can send the table: a fixed set of ids, no free text.

A reaction is an id from `Reaction`, never words the sender typed, so there is nothing
to moderate and nothing a client must escape. The host checks the id, rate-limits it per
connection (`Limits.reactions_per_second`) and relays it to everyone at the table; it is
not game state and is not journaled (PROTOCOL.md section on `react`). Clients choose how
to draw each id (client/widgets/reactions.py).
"""

from __future__ import annotations

from enum import StrEnum


class Reaction(StrEnum):
    """Every reaction there is, in the order the picker offers them (keys 1-6)."""

    NICE = "nice"
    OOPS = "oops"
    WELL_BID = "well_bid"
    HURRY = "hurry"
    GG = "gg"
    LAUGH = "laugh"


REACTIONS = tuple(Reaction)


def reaction_of(value: str) -> Reaction | None:
    """The reaction named `value`, or None for an id this side does not know."""
    try:
        return Reaction(value)
    except ValueError:
        return None
