"""One seat's snapshot built the slow, obvious way, to check the host's packed broadcast."""

from __future__ import annotations

from typing import Any

from host.table import Table
from pitchnet.protocol import State
from pitchnet.views import seat_view


def state_for(table: Table, seat: int, events: list[Any]) -> State:
    """The `state` message `seat` should receive: what `Table.state_frames` must encode."""
    view = seat_view(table.match, seat).to_wire() if table.match else None
    wire = [event.to_wire() for event in events]
    return State(seq=table.seq, table=table.info().to_wire(), view=view, events=wire)
