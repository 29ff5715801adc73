"""Textual messages the connection posts to the app.

The connection never touches a widget: it only posts these, and the app (on its own
message queue) decides what the screen shows. Each carries the `Connection` that sent
it, so messages from a connection the player already left are ignored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from pitchnet.events import Event
from pitchnet.protocol import TableInfo, Welcome
from pitchnet.views import SeatView

if TYPE_CHECKING:
    from client.connection import Connection


class ConnectionMessage(Message):
    def __init__(self, connection: Connection) -> None:
        super().__init__()
        self.connection = connection


class Welcomed(ConnectionMessage):
    """The host seated us (first join or a reconnect with the token)."""

    def __init__(self, connection: Connection, welcome: Welcome) -> None:
        super().__init__(connection)
        self.welcome = welcome


class StateReceived(ConnectionMessage):
    """A fresh snapshot of the table and our view, newer than any before."""

    def __init__(
        self,
        connection: Connection,
        seq: int,
        table: TableInfo,
        view: SeatView | None,
        events: list[Event],
    ) -> None:
        super().__init__(connection)
        self.seq, self.table, self.view, self.events = seq, table, view, events


class HostError(ConnectionMessage):
    """The host refused something; `message` is its sentence (untrusted text)."""

    def __init__(self, connection: Connection, code: str, message: str, fatal: bool) -> None:
        super().__init__(connection)
        self.code, self.message, self.fatal = code, message, fatal


class Disconnected(ConnectionMessage):
    """The link is gone. `retrying` says whether the connection will try again, in
    `delay` seconds; if not, `reason` is the last word."""

    def __init__(
        self, connection: Connection, reason: str, *, retrying: bool, delay: float = 0.0
    ) -> None:
        super().__init__(connection)
        self.reason, self.retrying, self.delay = reason, retrying, delay
