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
from typing import TYPE_CHECKING, Any

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


Said = tuple[str, dict[str, Any]]
"""A sentence in English (for older clients) and its meaning (`ReclaimStatus.params`),
which each client words in its own player's language (client/meanings.py)."""


def waiting(name: str, asked: str | None) -> Said:
    """Told to the watcher who asked: `asked` (the creator's name; None: every player
    here) must confirm it."""
    who = asked or "Another player here"
    return (
        f"You asked for {name}'s seat. {who} must confirm that you are {name}; you watch "
        f"until then (at most {WAIT:.0f} s). If nobody says yes, you go on watching.",
        {"name": name, "asked": asked, "seconds": round(WAIT)},
    )


def nobody(name: str) -> Said:
    return (
        f"Nobody else at this table is here to confirm that you are {name}, so the seat "
        f"stays {name}'s and a bot plays it meanwhile. Ask again once another player is "
        "back, or come back from the device that sat there.",
        {"why": "nobody", "name": name},
    )


def refused(name: str, why: str, code: str, **params: Any) -> Said:
    """Refused: `why` in English, `code` its meaning (PROTOCOL.md, `reclaim_status`)."""
    return (
        f"{why} You go on watching; {name}'s seat stays theirs and a bot plays it meanwhile.",
        {"why": code, "name": name, **params},
    )


def granted(name: str) -> Said:
    return (
        f"You have {name}'s seat back, with its score and hand. Your old device no longer "
        "holds it.",
        {"name": name},
    )


def settled(name: str) -> Said:
    """Told to the people asked: the question is over."""
    return f"The request for {name}'s seat is settled.", {"name": name}
