"""A table browser whose tables change while a test runs (tests.pilot's `tables_seen`
has a fixed list), and an advert of a real test host's lobby."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from client.discovery import FoundTable
from pitchnet.protocol import PROTOCOL_VERSION


class LiveBrowser:
    """As client.discovery.TableBrowser: `show` is the network changing."""

    def __init__(self, on_change: Any) -> None:
        self.on_change: Callable[[list[Any]], None] = on_change
        self.tables: list[Any] = []

    async def start(self) -> None:
        self.on_change(self.tables)

    async def close(self) -> None:
        pass

    def show(self, tables: list[Any]) -> None:
        self.tables = list(tables)
        self.on_change(self.tables)


def lobby_of(host: Any, name: str) -> FoundTable:
    seats = len(host.table.seats)
    return FoundTable(
        name=name, table_id=host.table_id, host="127.0.0.1", port=host.port,
        version=PROTOCOL_VERSION, taken=seats - host.table.open_seats(), seats=seats,
        state="lobby", password=False, open=host.table.open_seats(), born=1,
    )  # fmt: skip
