"""What a table's journal holds: one frozen dataclass per accepted change.

`host.table.Table` writes these (before anyone hears of the change) and replays them
on `--resume`; `pitchnet history` reads the same classes back. On disk each is a
small JSON map, `{"op": "bid", "seat": 1, "value": 2, "id": 7}`: `to_json` and
`entry_from_json` are the one writer and the one reader of that form, and the field
annotations are its schema, checked by the protocol's validator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from pitchnet.protocol import ProtocolError, from_map
from pitchnet.schema import tagged_map


class EntryError(ValueError):
    """A journal entry that is not one this version wrote."""


@dataclass(frozen=True, slots=True)
class Entry:
    """Base of every entry; `OP` is the value of the `op` key on disk."""

    OP: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        return tagged_map(self, "op", self.OP)


@dataclass(frozen=True, slots=True)
class BotSeated(Entry):
    """A bot took `seat` (at creation, or when `start` filled the table)."""

    OP: ClassVar[str] = "bot"
    seat: int
    name: str = ""
    """The bot's name as the table showed it; journals before 2026-11-29 have none."""


@dataclass(frozen=True, slots=True)
class HumanSeated(Entry):
    """A player sat down; `token` is their seat's secret (why the journal stays private)."""

    OP: ClassVar[str] = "join"
    seat: int
    name: str
    token: str


@dataclass(frozen=True, slots=True)
class StartAsked(Entry):
    """The first player started early (bots fill the empty seats)."""

    OP: ClassVar[str] = "start"
    seat: int
    id: int | None = None


@dataclass(frozen=True, slots=True)
class MatchBegun(Entry):
    OP: ClassVar[str] = "match"
    dealer: int


@dataclass(frozen=True, slots=True)
class HandDealt(Entry):
    """Hand number `hand`, dealt by `dealer` from `deck` (the whole deck, in order)."""

    OP: ClassVar[str] = "deal"
    deck: list[str]
    hand: int = 0
    dealer: int = 0


@dataclass(frozen=True, slots=True)
class BidMade(Entry):
    """A bid (`value` None is a pass); `id` is the client's action id (None for a bot)."""

    OP: ClassVar[str] = "bid"
    seat: int
    value: int | None
    id: int | None = None


@dataclass(frozen=True, slots=True)
class CardPlayed(Entry):
    """A card played, in its text form (`value`: "QS")."""

    OP: ClassVar[str] = "play"
    seat: int
    value: str
    id: int | None = None


@dataclass(frozen=True, slots=True)
class ReadySaid(Entry):
    """Ready for the next hand or match; `rotate`: with partners rotated (match end)."""

    OP: ClassVar[str] = "ready"
    seat: int
    id: int | None = None
    rotate: bool = False


@dataclass(frozen=True, slots=True)
class PartnersRotated(Entry):
    """Before a new partnership match the players changed seats: new seat i is taken by
    whoever sat in seat `order[i]` (`pitchnet.protocol.ROTATION`)."""

    OP: ClassVar[str] = "rotate"
    order: list[int]


@dataclass(frozen=True, slots=True)
class SeatLeft(Entry):
    """A seat was given up (in the lobby it empties; in a match a bot takes it)."""

    OP: ClassVar[str] = "leave"
    seat: int


@dataclass(frozen=True, slots=True)
class SeatClaimed(Entry):
    """A newcomer claimed a bot-played seat during a match: they sit at the next deal
    (at once between hands), with `token` as the seat's new secret."""

    OP: ClassVar[str] = "claim"
    seat: int
    name: str
    token: str


@dataclass(frozen=True, slots=True)
class ClaimDropped(Entry):
    """The newcomer who claimed `seat` went before sitting down: the bot plays on."""

    OP: ClassVar[str] = "unclaim"
    seat: int


@dataclass(frozen=True, slots=True)
class SeatReclaimed(Entry):
    """The away player of `seat` got it back on another device, another player having
    vouched for them (host/referee.py): `token` is the seat's new secret, the old one is
    void from now on."""

    OP: ClassVar[str] = "reclaim"
    seat: int
    token: str


@dataclass(frozen=True, slots=True)
class SeatMoved(Entry):
    """In the lobby the player in `seat` moved to the open seat `to`."""

    OP: ClassVar[str] = "move"
    seat: int
    to: int


ENTRIES: dict[str, type[Entry]] = {
    cls.OP: cls
    for cls in (
        BotSeated,
        HumanSeated,
        StartAsked,
        MatchBegun,
        HandDealt,
        BidMade,
        CardPlayed,
        ReadySaid,
        PartnersRotated,
        SeatLeft,
        SeatClaimed,
        ClaimDropped,
        SeatMoved,
        SeatReclaimed,
    )
}


def entry_from_json(data: Any) -> Entry:
    """The entry a journal holds; raises EntryError (with the reason) for anything else."""
    if not isinstance(data, dict) or not isinstance(data.get("op"), str):
        raise EntryError("an entry must be a map with an operation")
    cls = ENTRIES.get(data["op"])
    if cls is None:
        raise EntryError(f"unknown journal operation {data['op'][:32]!r}")
    try:
        entry: Entry = from_map(cls, data)
    except ProtocolError as exc:
        raise EntryError(exc.message) from None
    return entry
