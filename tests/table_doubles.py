"""Test doubles for `host.table.Table`, and its snapshot built the slow, obvious way."""

from __future__ import annotations

from typing import Any

from host.entries import Entry
from host.table import Table
from pitchnet.protocol import PROTOCOL_VERSION, Challenge, Hello, State, answer
from pitchnet.views import seat_view


def hello_at(table: Table, name: str, nonce: str = "", **secrets: Any) -> Hello:
    """The `hello` a client would answer `table`'s challenge `nonce` with (`token`,
    `password` as `protocol.answer` takes them): for `table.join(hello, nonce)`."""
    return answer(Challenge(PROTOCOL_VERSION, nonce, table.id), name, **secrets)


class RecordingJournal:
    """A journal in memory: `entries` is every entry the table recorded, in order, and
    `meta` what the referee noted about the table (its `finished` flag)."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.meta: dict[str, Any] = {}

    def record_all(self, entries: list[Entry]) -> None:
        """One change's entries, one transaction (host/table.py `one_change`)."""
        self.entries.extend(entries)

    def set_meta(self, **values: Any) -> None:
        self.meta.update(values)


def state_for(table: Table, seat: int | None, events: list[Any]) -> State:
    """The `state` message `seat` should receive: what `Table.state_frames` must encode
    (`seat` None, or a seat a newcomer waits to take: the spectators' view)."""
    view = None
    if table.match is not None:
        watching = seat is None or table.claimed(seat)
        view = table.spectator_view() if watching else seat_view(table.match, seat)
    wire = [event.to_wire() for event in events]
    return State(seq=table.seq, table=table.info(), view=view, events=wire)
