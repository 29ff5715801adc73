"""Taking one's own seat back from another device: who may vouch, and what each side is
told (the referee carries it out; SECURITY.md "A seat on a new device").

A seat is held by its token, and a new device has none. Typing the seat's name proves
nothing, so the host asks a person who saw the player sit: the table's creator if they
are here, otherwise every other player who is here. The first answer settles it: a yes
gives the seat (with a fresh token) to the watcher who asked, a no refuses it, and so
does no answer within `WAIT` seconds. One request per seat at a time, none for `QUIET`
seconds after a refusal, and a connection refused for a seat may not ask for it again,
so nobody can fill the others' screens with questions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from host.referee import Peer

WAIT = 60.0
"""Seconds the people asked have to vouch; silence refuses."""

QUIET = 30.0
"""Seconds after a refusal (a no, or silence) during which nobody may ask for that seat."""


@dataclass(slots=True)
class Request:
    """A watcher's pending request for an away player's seat."""

    seat: int
    claimant: Peer
    asked: list[Peer]
    until: float


def waiting(name: str, asked: str) -> str:
    return (
        f"You asked for {name}'s seat. {asked} must confirm that you are {name}; you watch "
        f"until then (at most {WAIT:.0f} s). If nobody says yes, you go on watching."
    )


def nobody(name: str) -> str:
    return (
        f"Nobody else at this table is here to confirm that you are {name}, so the seat "
        f"stays {name}'s and a bot plays it meanwhile. Ask again once another player is "
        "back, or come back from the device that sat there."
    )


def refused(name: str, why: str) -> str:
    return f"{why} You go on watching; {name}'s seat stays theirs and a bot plays it meanwhile."


def granted(name: str) -> str:
    return (
        f"You have {name}'s seat back, with its score and hand. Your old device no longer holds it."
    )
