"""What happened at a table since the last snapshot: one frozen dataclass per event kind.

The host's table makes these, the referee reads them (to pace bots, to log), the wire
carries them in `state.events` as maps (`{"kind": "bid", "seat": 1, "bid": 2}`, see
PROTOCOL.md §6), and the client turns them back into these classes to write its log.
The annotations are the schema, checked by the protocol's validator, so a field added
here is added everywhere. Events are public: every seat receives the same list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from pitchnet.protocol import ProtocolError, from_map
from pitchnet.rules import HandResult
from pitchnet.schema import tagged_map


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every event; `KIND` is the value of the `kind` key on the wire."""

    KIND: ClassVar[str] = ""

    def to_wire(self) -> dict[str, Any]:
        return tagged_map(self, "kind", self.KIND)

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Event:
        """This kind of event from a host's map (its `kind` already read); raises
        ProtocolError if it is malformed."""
        event: Event = from_map(cls, data)
        return event


@dataclass(frozen=True, slots=True)
class Joined(Event):
    """A human sat down, or `start` seated a bot."""

    KIND: ClassVar[str] = "join"
    seat: int
    name: str


@dataclass(frozen=True, slots=True)
class Left(Event):
    """A seat was given up (`leave`, or a disconnect in the lobby)."""

    KIND: ClassVar[str] = "leave"
    seat: int


@dataclass(frozen=True, slots=True)
class Reconnected(Event):
    KIND: ClassVar[str] = "connected"
    seat: int


@dataclass(frozen=True, slots=True)
class Disconnected(Event):
    KIND: ClassVar[str] = "disconnected"
    seat: int


@dataclass(frozen=True, slots=True)
class StoodIn(Event):
    """The grace period ran out: a bot plays for the absent human in `seat`."""

    KIND: ClassVar[str] = "substitute"
    seat: int


@dataclass(frozen=True, slots=True)
class TimedOut(Event):
    """The turn timer ran out on the person in `seat`: a bot of the table's level made
    this one move for them (the move follows as its own event); the seat stays theirs."""

    KIND: ClassVar[str] = "timed_out"
    seat: int


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    """Hand number `hand` was dealt by `dealer` (hand 1 starts a match)."""

    KIND: ClassVar[str] = "deal"
    hand: int
    dealer: int


@dataclass(frozen=True, slots=True)
class Bid(Event):
    """A bid; `bid` None is a pass."""

    KIND: ClassVar[str] = "bid"
    seat: int
    bid: int | None


@dataclass(frozen=True, slots=True)
class Played(Event):
    KIND: ClassVar[str] = "play"
    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class TrickWon(Event):
    """The card just played completed a trick: its plays as `(seat, card)`, in order (an
    array of two each on the wire)."""

    KIND: ClassVar[str] = "trick"
    winner: int
    cards: list[tuple[int, str]]


@dataclass(frozen=True, slots=True)
class HandScored(Event):
    """The hand was scored (or thrown in: `redeal`, no pitcher, bid or trump). On the
    wire the result's own fields follow the kind, as in a view's `last_result`
    (`HandResult.to_wire`): `{"kind": "hand", "pitcher": 1, ...}`."""

    KIND: ClassVar[str] = "hand"
    result: HandResult

    @classmethod
    def of(cls, result: HandResult) -> HandScored:
        return cls(result)

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.KIND, **self.result.to_wire()}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> HandScored:
        return cls(HandResult.from_wire(data))


@dataclass(frozen=True, slots=True)
class MatchWon(Event):
    """The match was won by side `winner` (a seat, or a team 0/1 in partnership play)."""

    KIND: ClassVar[str] = "match"
    winner: int


@dataclass(frozen=True, slots=True)
class SeatReady(Event):
    """A seat said `ready` after a hand."""

    KIND: ClassVar[str] = "ready"
    seat: int


@dataclass(frozen=True, slots=True)
class Rotated(Event):
    """Partners rotated for the new match: seat i is now whoever sat in `order[i]`."""

    KIND: ClassVar[str] = "rotate"
    order: list[int]


@dataclass(frozen=True, slots=True)
class Claimed(Event):
    """A newcomer `name` takes the bot-played `seat` at the next deal."""

    KIND: ClassVar[str] = "claim"
    seat: int
    name: str


@dataclass(frozen=True, slots=True)
class TookOver(Event):
    """The newcomer `name` now plays `seat` (with its score); `was` is the bot's name."""

    KIND: ClassVar[str] = "takeover"
    seat: int
    name: str
    was: str


@dataclass(frozen=True, slots=True)
class SeatChanged(Event):
    """A lobby seat move: the player in `frm` now sits in `seat`."""

    KIND: ClassVar[str] = "move"
    seat: int
    frm: int


EVENTS: dict[str, type[Event]] = {
    cls.KIND: cls
    for cls in (
        Joined,
        Left,
        Reconnected,
        Disconnected,
        StoodIn,
        TimedOut,
        Dealt,
        Bid,
        Played,
        TrickWon,
        HandScored,
        MatchWon,
        SeatReady,
        Rotated,
        Claimed,
        TookOver,
        SeatChanged,
    )
}


def event_from_wire(data: Any) -> Event | None:
    """The event a host sent, or None for a kind this version does not know (a newer
    host may add kinds). Raises ProtocolError if a known kind is malformed."""
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "an event must be a map")
    kind = data.get("kind")
    cls = EVENTS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        return None
    return cls.from_wire(data)


def events_from_wire(items: Any) -> list[Event]:
    """The events of a `state` a client received, leaving out any it cannot read: they
    only feed the log, and the snapshot itself is the truth."""
    events = []
    for item in items if isinstance(items, list) else ():
        try:
            event = event_from_wire(item)
        except ProtocolError:
            continue
        if event is not None:
            events.append(event)
    return events
