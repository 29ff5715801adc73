"""A table's seats: who holds each, the secret tokens that prove it, and the rules for
who may sit where. Pure functions over the seats; the table (host/table.py) journals
and applies what they decide.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pitchnet.protocol import BOT_SUFFIX, MAX_NAME, SEAT_KEY_BYTES, SeatKind
from pitchnet.text import display_name, look_alike

TOKEN_BYTES = SEAT_KEY_BYTES  # the same size as a newcomer's own seat_key
"""Seat tokens carry 192 random bits from `secrets`."""
TOKEN_CHARS = len(secrets.token_urlsafe(TOKEN_BYTES))
TOKEN_ALPHABET = frozenset(string.ascii_letters + string.digits + "-_")
"""A seat token's length and alphabet (URL-safe base64): what a `seat_key` must be."""


@dataclass
class Seat:
    """A seat and whoever holds it. A human's seat is kept while they are away."""

    name: str = ""
    kind: SeatKind = SeatKind.EMPTY
    token: str = ""
    connected: bool = False
    substitute: bool = False
    ready: bool = False
    rotate: bool = False
    """Said ready at a partnership match's end asking for partners rotated."""
    last_id: int = 0
    away_since: float | None = None
    claim_name: str = ""
    """A newcomer who takes this bot-played seat at the next hand (their name)..."""
    claim_token: str = ""
    """...and the token they were given for it. Until then the bot plays on."""

    @property
    def played_by_bot(self) -> bool:
        return self.kind == SeatKind.BOT or self.substitute

    @property
    def takeable(self) -> bool:
        """A seat a newcomer may take: a bot plays it for nobody (it was empty when the
        match started, or its player left) and nobody has claimed it yet. A seat whose
        player is only away is not: their token alone gets it back."""
        return self.kind == "bot" and not self.claim_token

    @property
    def away(self) -> bool:
        """A person's seat whose player lost the connection (kept for them)."""
        return self.kind == SeatKind.HUMAN and not self.connected


class NoSeat(Exception):
    """A newcomer the table cannot seat (`code` and `params` as a `RulesError`'s): not a
    refused move but a refused arrival, which the referee answers by closing their
    connection (host/dispatch.py `join`)."""

    def __init__(self, code: str, message: str, params: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.params = code, message, params


def new_token(seat_key: str | None, seats: Sequence[Seat]) -> str:
    """A new seat's token: the newcomer's own `seat_key` when it is one (the length and
    alphabet of ours, and no other seat's), so a host that dies before its welcome
    arrives has seated it with a token it holds; else a fresh one."""
    if (
        isinstance(seat_key, str)
        and len(seat_key) == TOKEN_CHARS
        and TOKEN_ALPHABET.issuperset(seat_key)
        and all(seat_key not in (s.token, s.claim_token) for s in seats)
    ):
        return seat_key
    return fresh_token()


def fresh_token() -> str:
    """A token nobody has seen: for a seat taken back on a new device."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def unique_name(name: str, seat: int, seats: Sequence[Seat]) -> str:
    """`name`, numbered if it is, or looks like (a Unicode skeleton in common), another
    seat's: no player can pass for another on screen."""
    taken = [s.name for i, s in enumerate(seats) if i != seat and s.kind != SeatKind.EMPTY]
    candidate, n = name, 2
    while any(look_alike(candidate, other) for other in taken):
        suffix = f" {n}"
        candidate, n = name[: MAX_NAME - len(suffix)] + suffix, n + 1
    return candidate


def starter(seats: Sequence[Seat], creator_token: str) -> int | None:
    """The seat that may start early: the table's creator's (bots fill the rest); if
    they have left, the first person seated."""
    humans = [i for i, s in enumerate(seats) if s.kind == SeatKind.HUMAN]
    for index in humans:
        if creator_token and seats[index].token == creator_token:
            return index
    return humans[0] if humans else None


def free_seat(seats: Sequence[Seat]) -> int | None:
    """The first empty seat (the lobby's), if any."""
    return next((i for i, s in enumerate(seats) if s.kind == SeatKind.EMPTY), None)


def seat_to_take(wanted: str, seats: Sequence[Seat]) -> int:
    """The bot-played seat a newcomer called `wanted` takes during a match: a player who
    left finds their own old seat first. Raises NoSeat if there is none, or if the name
    is an away player's (`_refuse_namesake`)."""
    _refuse_namesake(wanted, seats)
    free = [i for i, s in enumerate(seats) if s.takeable]
    if not free:
        away = sum(s.away for s in seats)
        raise NoSeat("table_full", _full_sentence(away), {"why": "people", "away": away})
    own = [i for i in free if seats[i].name == display_name(wanted + BOT_SUFFIX, "Bot")]
    return (own or free)[0]


def _refuse_namesake(wanted: str, seats: Sequence[Seat]) -> None:
    """A newcomer with the name of a player who lost the connection is most likely that
    player on another device: a free seat given to her would be a second seat ("Carol
    2") beside her own, played by a bot. So she watches, and may ask for her own seat
    back (`reclaim`, vouched for by another person: host/reclaims.py). A name that only
    looks like hers ("Cаrol" with a Cyrillic "а", "CAROL") counts too: a second seat
    under a look-alike name would confuse the table as much."""
    for s in seats:
        if s.away and look_alike(s.name, wanted):
            raise NoSeat(
                "table_full",
                f"{s.name}'s seat is kept for its player, who lost the connection. If it "
                "is yours, watch and ask for it back (another player confirms it); to "
                "sit in a free seat instead, join with another name.",
                {"why": "kept", "name": s.name},
            )


def _full_sentence(away: int) -> str:
    """Why a newcomer cannot sit mid-match, truthfully: every seat is a person's, `away`
    of them kept for a player who lost the connection (the grace period)."""
    if not away:
        return "Every seat at this table is taken by people; you can watch instead."
    kept = "one is kept" if away == 1 else f"{away} are kept"
    return (
        f"Every seat at this table is a person's ({kept} for a player who lost the "
        "connection and may come back); you can watch instead."
    )
