"""A table's state in the wire's form: the `TableInfo` and every seat's `state` frame.

The table (host/table.py) holds the game as domain state and knows nothing of frames;
the referee asks this module to pack it after every change. Packing runs after every
move, so the parts that rarely change are kept packed between broadcasts: the table's
`TableInfo` (most moves change nothing in it) and, through `PackedEntries`, each seat's
private part of the view and the public entries that last a trick.
"""

from __future__ import annotations

import operator
from typing import Any

from host.table import Table
from pitchnet.events import Event
from pitchnet.protocol import PackedEntries, SeatInfo, TableInfo, pack_map, state_frames
from pitchnet.views import spectator_private, split_views

_SEAT_SHOWN = operator.attrgetter(
    "name", "kind", "token", "connected", "substitute", "ready", "rotate", "claim_name"
)
"""What of a seat `table_info` shows, or picks the table's `starter` by (the token): a
change to any of these rebuilds the packed table. Not `last_id`, which every action
moves on, nor `claim_token` (unseen); `away_since` is checked apart."""


def table_info(table: Table) -> TableInfo:
    """The public facts of `table` as a `state` frame carries them, at the table's `now`
    (the waits and the time each player has been away are counted to it)."""
    now = table.now
    deadline = table.ready_deadline()
    waits = table.state == "lobby" or table.between_hands()
    settings, options = table.settings, table.options
    return TableInfo(
        id=table.id,
        name=table.name,
        state=table.state,
        players=settings.players,
        partnership=settings.partnership,
        target=settings.target,
        rules=settings.rules.to_wire(),
        bot_level=options.bot_level,
        coach=options.coach,
        turn_timer=options.turn_timer,
        reactions=options.reactions,
        spectator_reactions=options.spectator_reactions,
        seats=[
            SeatInfo(
                name=s.name,
                kind=s.kind,
                connected=s.connected,
                substitute=s.substitute,
                away=round(now - s.away_since, 1) if s.away_since is not None else 0.0,
                ready=s.ready,
                claimed_by=s.claim_name,
                rotate=s.rotate,
            )
            for s in table.seats
        ],
        starter=table.starter,
        password=options.password is not None,
        grace=options.grace,
        substitute=options.substitute,
        waiting_for=table.waiting_for(),
        waiting=round(now - table.waiting_since, 1) if waits else 0.0,
        ready_left=None if deadline is None else round(max(0.0, deadline - now), 1),
        spectators=table.spectators,
        match=table.matches_started,
        pitchers=list(table.pitchers),
    )


class Snapshots:
    """The frames of one table's broadcasts, with what is kept packed between them.
    One per table (the referee's): the kept parts are that table's."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._table_key: tuple[Any, ...] = ()
        self._table_packed = b""
        """The table's packed `table_info` and what it was built from (`_packed_table`)."""
        self._packed_views = PackedEntries()
        """Each seat's private part of the view, packed, while it stays the same."""

    def _packed_table(self) -> bytes:
        """`table_info(...).to_wire()`, packed (msgpack), rebuilt only when something it
        shows has changed since the last broadcast (most moves change nothing in it), or
        while the table waits or someone is away (the clocks it shows move on)."""
        table = self.table
        if table.state == "lobby" or table.between_hands():
            return pack_map(table_info(table).to_wire())
        if any(seat.away_since is not None for seat in table.seats):
            return pack_map(table_info(table).to_wire())
        key = (
            table.state,
            table.spectators,
            table.matches_started,
            len(table.pitchers),
            table.creator_token,
            *map(_SEAT_SHOWN, table.seats),
        )
        if key != self._table_key:
            self._table_key, self._table_packed = key, pack_map(table_info(table).to_wire())
        return self._table_packed

    def frames(self, events: list[Event], *, spectators: bool = True) -> list[bytes]:
        """Every seat's encoded snapshot for one broadcast, then one more: the
        spectators' (also what a newcomer waiting for the next hand gets in place of the
        bot's cards), left out with `spectators=False` (nobody watches). The table, the
        events and the public part of the views are built and packed once, not once per
        seat: this runs after every change."""
        table = self.table
        packed, wire = self._packed_table(), [event.to_wire() for event in events]
        count = len(table.seats) + (1 if spectators else 0)
        if table.match is None:
            return state_frames(table.seq, packed, wire, None, [{}] * count)
        settled, public, private = split_views(table.match)
        watching = spectator_private()
        private = [
            watching if s.claim_token else p for s, p in zip(table.seats, private, strict=True)
        ]
        if spectators:
            private.append(watching)
        return state_frames(table.seq, packed, wire, public, private, self._packed_views, settled)
