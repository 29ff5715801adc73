"""What the connection tells whoever runs it: plain dataclasses, no Textual.

The connection never touches a widget: it hands these to its `post` callback. The
Textual app wraps each in one `ConnectionNews` message (client/app.py) so they reach
it on its own message queue; `pitchnet bot` (client/headless.py) reads them from an
asyncio queue without loading Textual at all. Each carries the `Connection` that
sent it, so news from a connection the player already left is ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pitchnet.events import Event
from pitchnet.protocol import ReclaimAsked, ReclaimStatus, TableInfo, Welcome
from pitchnet.reactions import Reaction
from pitchnet.views import SeatView

if TYPE_CHECKING:
    from client.connection import Connection


@dataclass(frozen=True, eq=False)
class Welcomed:
    """The host seated us (first join or a reconnect with the token)."""

    connection: Connection
    welcome: Welcome
    note: str = ""
    """A sentence for the player about this seat (it is a newcomer's, since the table
    did not know the remembered one), or ""."""


@dataclass(frozen=True, eq=False)
class StateReceived:
    """A fresh snapshot of the table and our view, newer than any before."""

    connection: Connection
    seq: int
    table: TableInfo
    view: SeatView | None
    events: list[Event]


@dataclass(frozen=True, eq=False)
class HostError:
    """The host refused something; `message` is its sentence (untrusted text)."""

    connection: Connection
    code: str
    message: str
    fatal: bool


@dataclass(frozen=True, eq=False)
class Disconnected:
    """The link is gone. `retrying` says whether the connection will try again, in
    `delay` seconds; if not, `reason` is the last word. `closed`: the host ended the
    table on purpose (not a lost link). `trying_for`: seconds since the link was lost."""

    connection: Connection
    reason: str
    retrying: bool
    delay: float = 0.0
    closed: bool = False
    """The host ended the table on purpose (not a lost link)."""
    trying_for: float = 0.0
    """Seconds since the link was lost (while reconnecting)."""
    moved: tuple[str, int, str | None] | None = None
    """(host, port, table id) of the table this lobby moved to: join it."""


@dataclass(frozen=True, eq=False)
class ReactionHeard:
    """Someone at the table reacted (`reaction` checked: one this client knows)."""

    connection: Connection
    reaction: Reaction
    seat: int | None
    name: str


@dataclass(frozen=True, eq=False)
class Reclaiming:
    """A seat taken back on another device (PROTOCOL.md section 9): we are asked to vouch
    for a watcher (`ReclaimAsked`), or told where a request stands (`ReclaimStatus`)."""

    connection: Connection
    message: ReclaimAsked | ReclaimStatus


News = Welcomed | StateReceived | HostError | Disconnected | ReactionHeard | Reclaiming
