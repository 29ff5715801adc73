"""An h11-style pair for the referee: test clients on one side, the real `Referee` on the
other, joined by bytes and an injected clock: the pair's `now` is handed to the referee,
which hands it to the table (`Table.now`), so the three never disagree on the time.

What a client sends is encoded to frames and read back exactly as the adapter reads it
(`read_frames` on that connection's own `FrameDecoder`); what the referee sends back is
decoded frame by frame into host messages (each checked well formed) and kept per
client. Time only moves when a test says so: `advance` wakes the referee at each of its
deadlines in turn, never late, so the tests of timers do not sleep and cannot race.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from host.limits import Limits
from host.referee import (
    Abort,
    Changed,
    Close,
    Closed,
    Effect,
    Opened,
    Pacing,
    Referee,
    Seated,
    Send,
    Think,
    read_frames,
)
from host.server import hello_decoder, seat_decoder
from host.table import Table, TableOptions
from host.tables import deck_source
from pitchnet.events import Event as TableEvent
from pitchnet.protocol import (
    Challenge,
    FrameDecoder,
    Hello,
    Message,
    Pong,
    answer,
    frame,
    parse_host_message,
)
from tests.table_doubles import RecordingJournal

START = 1000.0
"""The pair's clock starts here (any value: the referee only compares times)."""
MAX_WAKES = 10_000
"""The most wakes one `advance` makes: more than a match of bots acting at once needs
(a few hundred), few enough that a deadline stuck in the past fails in a second."""


@dataclass
class PairClient:
    """One connection as its client sees it."""

    conn: int
    peer: str
    closed: tuple[str, str] | None = None
    """("close", code) or ("abort", reason) once the referee ended it."""
    gone: bool = False
    """The referee has been told (`Closed`) that the connection is gone."""
    drains: bool = True
    """A closed connection goes at once (False: it never takes what was queued, so only
    the referee's `Abort` after `close_grace` ends it)."""
    answer_pings: bool = True
    writes: list[bytes] = field(default_factory=list)
    """Each `Send` to it, as one write."""
    decoder: FrameDecoder = field(default_factory=FrameDecoder)
    host_decoder: FrameDecoder = field(default_factory=FrameDecoder)
    """The host side's decoder for this connection, made as the adapter makes it."""
    unanswered: list[float] = field(default_factory=list)
    _payloads: list[dict[str, Any]] = field(default_factory=list)
    _read: int = 0
    """How many of `writes` have been decoded (decoding waits until a test looks)."""

    @property
    def received(self) -> list[dict[str, Any]]:
        """Every payload the referee sent it, in order, each checked well formed."""
        while self._read < len(self.writes):
            data = self.writes[self._read]
            self._read += 1
            for payload in self.decoder.feed(data):
                parse_host_message(payload)  # the referee only sends well-formed frames
                self._payloads.append(payload)
                if payload["type"] == "ping":
                    self.unanswered.append(payload["t"])
        return self._payloads

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [p for p in self.received if p["type"] == kind]

    def errors(self) -> list[tuple[str, bool]]:
        return [(p["code"], p["fatal"]) for p in self.of_type("error")]

    @property
    def last_state(self) -> dict[str, Any]:
        return self.of_type("state")[-1]


class RefereePair:
    """A `Referee` for a fresh table (or the one given) and the clients talking to it."""

    def __init__(
        self,
        table: Table | None = None,
        *,
        players: int = 2,
        bots: int = 0,
        seed: int = 1,
        password: str | None = None,
        limits: Limits | None = None,
        pacing: Pacing | None = None,
        grace: float = 60.0,
    ) -> None:
        self.journal = RecordingJournal()
        if table is None:
            options = TableOptions(players=players, bots=bots, password=password, grace=grace)
            table = Table("pair1", "Pair", options, deck_source(seed), self.journal)
        self.table = table
        self.limits = limits or Limits()
        self.referee = Referee(table, self.limits, pacing or Pacing(0.0, 0.0), self.journal)
        self.now = START
        self.clients: dict[int, PairClient] = {}
        self.changes: list[tuple[float, list[TableEvent]]] = []
        """(time, events) of every broadcast."""
        self.refused_at_door: list[str] = []
        self._ids = itertools.count(1)
        self._apply(self.referee.start(self.now))

    # ---- the client side ---------------------------------------------------------------------

    def open(self, peer: str = "10.0.0.1:40000") -> PairClient:
        """A new connection (refused ones are in `refused_at_door`, and come back closed)."""
        client = PairClient(next(self._ids), peer)
        client.host_decoder = hello_decoder(self.limits, self.clock)
        self.clients[client.conn] = client
        self._apply(self.referee.handle(client.conn, Opened(peer), self.now))
        return client

    def send(
        self, client: PairClient, *items: Message | dict[str, Any] | bytes
    ) -> list[dict[str, Any]]:
        """Send messages (a map is framed as it is, bytes go raw) in one write; returns
        the payloads this client received in answer."""
        data = b"".join(_encode(item) for item in items)
        return self.send_bytes(client, data)

    def send_bytes(self, client: PairClient, data: bytes) -> list[dict[str, Any]]:
        before = len(client.received)
        if not client.gone and client.closed is None:
            event = read_frames(client.host_decoder, data)
            self._apply(self.referee.handle(client.conn, event, self.now))
        return client.received[before:]

    def hello(self, client: PairClient, name: str = "P", **secrets: Any) -> Hello:
        """The `hello` answering `client`'s challenge (`token`, `password`, `table_id`,
        `nonce` as `protocol.answer` takes them)."""
        challenge = parse_host_message(client.of_type("challenge")[0])
        assert isinstance(challenge, Challenge)
        return answer(challenge, name, **secrets)

    def join(self, name: str = "P", peer: str = "10.0.0.1:40000", **secrets: Any) -> PairClient:
        """Open a connection and sit down; fails unless welcomed."""
        client = self.open(peer)
        reply = self.send(client, self.hello(client, name, **secrets))
        assert [p["type"] for p in reply][:1] == ["welcome"], reply
        return client

    def lose(self, client: PairClient, error: str | None = None) -> None:
        """The client's side goes away (it closed, or the link dropped)."""
        if not client.gone:
            client.gone = True
            self._apply(self.referee.handle(client.conn, Closed(error), self.now))

    def pong(self) -> None:
        """Every client that answers pings answers the ones it has not yet."""
        for client in list(self.clients.values()):
            client.received  # noqa: B018 (decoding it collects its pings)
            if client.answer_pings and client.unanswered and client.closed is None:
                pending, client.unanswered = client.unanswered, []
                self.send(client, *(Pong(t=t) for t in pending))

    def clock(self) -> float:
        return self.now

    # ---- time --------------------------------------------------------------------------------

    def advance(self, seconds: float) -> None:
        """Let `seconds` pass: the referee is woken at each deadline on the way (clients
        answer their pings after each wake), then at the end. A deadline that waking
        never clears would loop for ever; after `MAX_WAKES` wakes the test fails instead,
        saying which deadline stayed due."""
        end = self.now + seconds
        for _ in range(MAX_WAKES):
            deadline = self.referee.next_deadline
            if deadline is None or deadline > end:
                break
            self.now = max(self.now, deadline)
            self._apply(self.referee.wake(self.now))
            self.pong()
        else:
            raise AssertionError(
                f"advance({seconds}) woke the referee {MAX_WAKES} times and a deadline was "
                f"still due (next_deadline {self.referee.next_deadline}, now {self.now}): "
                "waking does not clear it"
            )
        self.now = end
        self._apply(self.referee.wake(self.now))

    # ---- carrying out what the referee says --------------------------------------------------

    def _apply(self, effects: Iterable[Effect]) -> None:
        gone: list[PairClient] = []
        for effect in effects:
            if isinstance(effect, Changed):
                self.changes.append((self.now, effect.events))
                continue
            if isinstance(effect, Think):  # the adapter decides in a worker; here, at once
                decision = effect.turn.bot.decide(effect.turn.view)
                self._apply(self.referee.thought(effect.turn, decision, self.now))
                continue
            client = self.clients[effect.conn]
            if isinstance(effect, Seated):
                seat_decoder(client.host_decoder, self.limits, self.clock)
            elif isinstance(effect, Send):
                assert client.closed is None, f"a frame after the close: {effect}"
                client.writes.append(effect.data)
            elif isinstance(effect, Close):
                assert client.closed is None, f"closed twice: {effect}"
                client.closed = ("close", effect.code)
                if client.drains:
                    gone.append(client)
            elif isinstance(effect, Abort):
                if effect.conn not in self.referee.peers:
                    self.refused_at_door.append(effect.reason)
                client.closed = ("abort", effect.reason)
                gone.append(client)
        for client in gone:
            self.lose(client)


def _encode(item: Message | dict[str, Any] | bytes) -> bytes:
    if isinstance(item, bytes):
        return item
    if isinstance(item, dict):
        return frame(item)
    return item.encode()
