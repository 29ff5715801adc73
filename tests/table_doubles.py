"""Test doubles for `host.table.Table`, and its snapshot built the slow, obvious way."""

from __future__ import annotations

from typing import Any

from host import dispatch
from host.entries import Entry
from host.snapshots import table_info
from host.table import Table
from pitchnet.protocol import PROTOCOL_VERSION, BidMsg, Challenge, Hello, PlayMsg, State, answer
from pitchnet.rules import Hand, Match, Phase
from pitchnet.views import seat_view, spectator_view


def hello_at(table: Table, name: str, nonce: str = "", **secrets: Any) -> Hello:
    """The `hello` a client would answer `table`'s challenge `nonce` with (`token`,
    `password` as `protocol.answer` takes them): for `dispatch.join(table, hello, nonce)`."""
    return answer(Challenge(PROTOCOL_VERSION, nonce, table.id), name, **secrets)


class RecordingJournal:
    """A journal in memory (a `host.table.Journal`): `written` is every entry the table
    recorded, in order, and `meta` what the referee noted about the table (its
    `finished` flag)."""

    def __init__(self) -> None:
        self.written: list[Entry] = []
        self.meta: dict[str, Any] = {}

    def record_all(self, entries: list[Entry]) -> None:
        """One change's entries, one transaction (host/table.py `one_change`)."""
        self.written.extend(entries)

    def entries(self) -> list[Entry]:
        """What a roll-back replays (host/table.py reads it as any journal's)."""
        return list(self.written)

    def set_meta(self, **values: Any) -> None:
        self.meta.update(values)


def state_for(table: Table, seat: int | None, events: list[Any]) -> State:
    """The `state` message `seat` should receive: what `Snapshots.frames` must encode
    (`seat` None, or a seat a newcomer waits to take: the spectators' view)."""
    view = None
    if table.match is not None:
        if seat is None or table.claimed(seat):
            view = spectator_view(table.match)
        else:
            view = seat_view(table.match, seat)
    wire = [event.to_wire() for event in events]
    return State(seq=table.seq, table=table_info(table), view=view, events=wire)


def match_of(table: Table) -> Match:
    """The table's match, read afresh each time (so a test that moved the table on sees
    its new phase): the test fails here if no match has begun."""
    assert table.match is not None, "no match has begun at this table"
    return table.match


def dealt_hand(table: Table) -> Hand:
    """The hand being played at the table, read afresh: the test fails if none is dealt."""
    hand = match_of(table).hand
    assert hand is not None, "no hand has been dealt at this table"
    return hand


def phase_of(match: Match) -> Phase:
    """The match's phase read afresh: mypy keeps `match.phase` narrowed to what an
    earlier assert saw, across the moves that change it."""
    return match.phase


def play_out_hand(table: Table, *, bid_high: bool = False) -> None:
    """Play the current hand out: bots act for their seats; a person's seat passes where
    it may (with `bid_high`, bids the most it may) and plays its first legal card."""
    match = table.match
    assert match is not None
    while match.hand is not None and not match.hand.complete:
        seat = match.turn
        assert seat is not None
        if table.seats[seat].played_by_bot:
            assert table.act_for_bot()
            continue
        view = seat_view(match, seat)
        next_id = table.seats[seat].last_id + 1
        if view.phase == Phase.BIDDING:
            passing = None in view.legal_bids and not bid_high
            dispatch.act(
                table, seat, BidMsg(id=next_id, bid=None if passing else view.legal_bids[-1])
            )
        else:
            dispatch.act(table, seat, PlayMsg(id=next_id, card=view.legal_plays[0]))
