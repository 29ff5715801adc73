"""The table on the network: an asyncio adapter around the sans-IO `Referee`.

This module only moves bytes and carries out what the referee decides (the flow of one
action is told in host/referee.py). Each connection is an `asyncio.Protocol`: the bytes
the loop reads are decoded in the same callback, with no reader task to wake, and
handed to the referee at once; its effects (write, close, abort, "the table changed")
are carried out in order. The referee's deadlines are kept by ONE timer. Shutdown runs
in clear phases: stop listening, tell every connection `bye`, wait for them with a
timeout, cut the rest, unregister the advert, close the journal.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from host.journal import SqliteJournal
from host.limits import DecodeBudget, Limits
from host.referee import (
    HEARTBEAT,
    Changed,
    Close,
    Closed,
    Effect,
    Opened,
    Pacing,
    Received,
    Referee,
    Seated,
    Send,
    Think,
    read_frames,
)
from host.table import BotTurn, TableOptions
from host.tables import new_table, resume_table
from pitchnet.bots import DEFAULT_LEVEL, make_bot
from pitchnet.errors import describe_os_error
from pitchnet.events import Event
from pitchnet.house_rules import HouseRules
from pitchnet.protocol import (
    DEFAULT_PORT,
    MAX_CLIENT_CONTAINER,
    MAX_CLIENT_FRAME,
    MAX_HELLO_FRAME,
    PROTOCOL_VERSION,
    FrameDecoder,
    SeatKind,
    TableState,
)

if TYPE_CHECKING:
    from host.advertise import Advert, Advertiser

log = logging.getLogger("pitchnet.host")

READ_BYTES = 256 * 1024
"""Most bytes read from a socket at a time (as much as asyncio's own protocols read: a
peer refused mid-burst has the rest of its burst read, not reset with the refusal unread)."""
READ_SLICE = 16384
"""Bytes fed to a connection's decoder at a time."""
SHUTDOWN_WAIT = 1.0
"""How long shutdown waits for the connections told `bye` to go before cutting them."""
TRICK_PAUSE_FACTOR = 2.5
"""Unless set, a bot waits this many `bot_delay`s before leading after a finished trick."""

__all__ = ["HEARTBEAT", "Connection", "HostConfig", "HostServer", "HostedFacts"]


@dataclass(frozen=True)
class HostConfig(TableOptions):
    """How to run one table: the table's own options (`TableOptions`, declared there
    once: what the journal keeps) and the process's (network, pacing, state folder)."""

    name: str | None = None
    port: int = DEFAULT_PORT
    port_fallback: bool = True
    """Take a free port if `port` is in use (only the default port may: one a person
    chose must be that one, or an error)."""
    interface: str | None = None
    seed: int | None = None
    bot_delay: float = 0.6
    trick_pause: float | None = None
    """Seconds before a bot leads after a finished trick; None: 2.5 x `bot_delay`."""
    advertise: bool = True
    state_dir: Path | None = None
    resume: str | None = None
    stand_in: tuple[int, ...] = ()
    """Seats (from 0) whose players went on purpose: on a resume a bot plays them at once
    instead of after the grace period (the hosting window's own, kept running)."""
    limits: Limits | None = None
    journal: bool = True

    def table_options(self) -> TableOptions:
        """The table's part of this config, as a table (and its journal) keeps it."""
        return TableOptions(**{f.name: getattr(self, f.name) for f in fields(TableOptions)})


@dataclass(frozen=True)
class HostedFacts:
    """What the window that hosts a table may know of it, as of now: the facts the
    table shows anyone (its advert, its lobby) and the options it was opened with, so
    that the window asks the table like any other reader and never reaches into it
    (client/hosting.py, the one seam between client/ and host/)."""

    table_id: str
    name: str
    port: int
    born: int
    """When the table opened (ms since the epoch): the younger of two lone lobbies yields."""
    password: str | None
    """The table's own password (a resumed table's from its journal): its window's player
    never types it."""
    lobby_unstarted: bool
    """Still a lobby where no match has started."""
    people: int
    """Seats held by people (not bots, not empty)."""
    players: int
    target: int
    rules: HouseRules
    bot_level: str
    journal: Path | None
    """The table's journal (None: a table that keeps none)."""
    resumable: bool
    """Once closed, the table can be carried on with `--resume` (a match started, not over)."""


def hello_decoder(limits: Limits, clock: Callable[[], float]) -> FrameDecoder:
    """A new connection's decoder: a hello's frame limit and decode budget."""
    budget = limits.hello_decode_budget
    return FrameDecoder(
        MAX_HELLO_FRAME,
        max_container=MAX_CLIENT_CONTAINER,
        budget=DecodeBudget(budget / 16, budget, clock),
    )


def seat_decoder(decoder: FrameDecoder, limits: Limits, clock: Callable[[], float]) -> None:
    """Once a connection is welcomed (`Seated`): a player's frame limit and budget."""
    decoder.max_frame = MAX_CLIENT_FRAME
    decoder.budget = DecodeBudget(limits.decode_per_second, limits.decode_burst, clock)


class Connection(asyncio.BufferedProtocol):
    """One client's socket, driven by the event loop's callbacks: bytes that arrive are
    decoded and handed to the server's referee at once (no reader task and no timer per
    read), and frames go out through a bounded buffer. It holds no game or protocol
    state: only its decoder and its transport.

    The loop reads into the server's one read buffer (a buffered protocol; what a read
    brings is copied out at once): a plain protocol gets a new 256 KiB bytes object for
    every read, cut down to the few hundred bytes a client sends, and a block that size
    costs three system calls (mmap, mremap, munmap) wherever the C library maps it."""

    def __init__(self, server: HostServer, conn_id: int) -> None:
        self.server, self.id = server, conn_id
        self.decoder = hello_decoder(server.limits, asyncio.get_running_loop().time)
        self.transport: asyncio.Transport | None = None
        self.peer = "?:?"
        self.closed = False
        """True once the referee closed or cut it (or the transport went)."""

    # ---- asyncio.Protocol ----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.peer = "{}:{}".format(*(transport.get_extra_info("peername") or ("?", "?"))[:2])
        self.server.deliver(self, Opened(self.peer))

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.server.read_buffer

    def buffer_updated(self, nbytes: int) -> None:
        self.data_received(self.server.read_buffer[:nbytes].tobytes())

    def data_received(self, data: bytes) -> None:
        """Decode what arrived, a slice at a time (the decoder must never hold more
        than one frame), and hand each slice's frames to the referee."""
        for start in range(0, len(data), READ_SLICE):
            if self.closed:
                self.decoder.discard()  # the rest of a closing peer's bytes
                return
            self.server.deliver(self, read_frames(self.decoder, data[start : start + READ_SLICE]))

    def seated(self) -> None:
        """Welcomed at a seat: a player's frame limit and decode budget from now on."""
        seat_decoder(self.decoder, self.server.limits, asyncio.get_running_loop().time)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        # The host's log is read by a person: a sentence, not "[Errno 104] Connection reset".
        why = None if exc is None else describe_os_error(exc, host="its computer")
        self.server.deliver(self, Closed(why))

    # ---- what the referee asks for -----------------------------------------------------------

    def write(self, data: bytes) -> None:
        """Queue already encoded frames (one or more, whole) for this peer."""
        transport = self.transport
        if self.closed or transport is None:
            return
        if transport.is_closing():
            self.closed = True
            return
        if transport.get_write_buffer_size() > self.server.limits.max_send_buffer:
            log.warning("%s is not reading; closing it", self.peer)
            self.abort()
            return
        transport.write(data)

    def close(self) -> None:
        """Close after what is already queued (an error frame, say) has been sent."""
        self.closed = True
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def abort(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.abort()


class HostServer:
    """A table on the network. Use `async with HostServer(config) as server:`."""

    def __init__(self, config: HostConfig) -> None:
        self.config = config
        self.limits = config.limits or Limits()
        options = config.table_options()
        self.journal: SqliteJournal | None
        if config.resume is not None:
            self.table, self.journal, old_port = resume_table(config.resume, config.state_dir)
            # Back on its own port, unless the person chose one (`--port`, 0 too).
            chosen = not config.port_fallback
            self.port = config.port if chosen or not old_port else old_port
        else:
            self.table, self.journal = new_table(
                options, config.name, config.seed, config.state_dir, config.journal
            )
            self.port = config.port
        self.table_id = self.table.id
        self.name = self.table.name
        self.host = config.interface or "0.0.0.0"
        pause = config.trick_pause
        pacing = Pacing(
            bot_delay=config.bot_delay,
            trick_pause=TRICK_PAUSE_FACTOR * config.bot_delay if pause is None else pause,
        )
        self.referee = Referee(self.table, self.limits, pacing, self.journal)
        self.born = int(time.time() * 1000)
        """When the table opened, in its advert: the younger of two lone tables yields."""
        self.read_buffer = memoryview(bytearray(READ_BYTES))
        """Where every connection's reads land: one read at a time is copied out of it
        before the loop does anything else (`Connection.buffer_updated`)."""
        self.links: dict[int, Connection] = {}
        """Every open connection by its id (the referee's name for it)."""
        self.on_broadcast: list[Callable[[list[Event]], None]] = []
        self._ids = itertools.count(1)
        self._server: asyncio.base_events.Server | None = None
        self._advertiser: Advertiser | None = None
        self._last_advert: Advert | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None
        """The loop this host runs on, once looked up (see `_running_loop`)."""
        self._closed = asyncio.Event()
        """Set as closing starts (a second close does nothing)."""
        self._shut = asyncio.Event()
        """Set once closing has finished: everyone told, advert gone, journal closed."""
        self.closed_on_purpose = False
        """Set as the host closes the table on purpose (its person ended it)."""
        self._all_gone = asyncio.Event()

    # ---- what the referee knows, by connection -----------------------------------------------

    @property
    def connections(self) -> dict[int, Connection]:
        """Seat -> the connection acting for it."""
        return {seat: self.links[conn] for seat, conn in self.referee.seated().items()}

    @property
    def anonymous(self) -> set[Connection]:
        """Connections let in but not (yet) welcomed at a seat."""
        return {self.links[conn] for conn in self.referee.unseated() if conn in self.links}

    @property
    def resumable(self) -> bool:
        """The table can be carried on with `--resume` (a match started, not over)."""
        return self.table.state != TableState.OVER and bool(self.table.matches_started)

    def facts(self) -> HostedFacts:
        """What the window that hosts this table may know of it now (`HostedFacts`)."""
        table, config = self.table, self.config
        return HostedFacts(
            table_id=self.table_id,
            name=self.name,
            port=self.port,
            born=self.born,
            password=table.options.password,
            lobby_unstarted=table.state == TableState.LOBBY and table.matches_started == 0,
            people=sum(seat.kind == SeatKind.HUMAN for seat in table.seats),
            players=config.players,
            target=config.target,
            rules=config.rules,
            bot_level=config.bot_level,
            journal=self.journal.path if self.journal is not None else None,
            resumable=self.resumable,
        )

    # ---- phases: startup, serve, shutdown ----------------------------------------------------

    async def start(self) -> None:
        loop = self._running_loop()
        try:
            self._server = await loop.create_server(
                self.new_connection, self.config.interface, self.port, reuse_address=True
            )
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE or self.port == 0 or not self.config.port_fallback:
                raise
            log.warning("port %d is taken; using a free one", self.port)
            self._server = await loop.create_server(self.new_connection, self.config.interface, 0)
        self.port = self._server.sockets[0].getsockname()[1]
        if self.journal is not None:
            self.journal.set_meta(port=self.port)
        if self.config.advertise:
            from host.advertise import Advertiser  # zeroconf loads only when advertising

            self._advertiser = Advertiser(self.config.interface, self.port)
            self._last_advert = self._advert()
            # Registering probes the network for a name clash (about a second): the table
            # is open to host:port at once, and the advert appears when zeroconf is done.
            self._spawn(self._advertiser.start(self._last_advert))
        log.info("table %r (id %s) open on %s:%d", self.name, self.table_id, self.host, self.port)
        self._carry_out(self.referee.start(loop.time(), stand_in=self.config.stand_in))

    async def __aenter__(self) -> HostServer:
        await self.start()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def wait_closed(self) -> None:
        """Until the table is closed and its shutdown done: `pitchnet host` returns after
        this, and returning while `close` still ran cut it short (its advert left up, its
        journal not closed, seen as a missing "closed" line under load in CI)."""
        await self._shut.wait()

    async def close(
        self,
        *,
        on_purpose: bool = False,
        moved_to: tuple[str, str] | None = None,
        handing_over: bool = False,
    ) -> None:
        """Shut down in phases: stop listening; tell every connection `bye`; wait for
        them (at most SHUTDOWN_WAIT); cut the rest; unregister; close the journal.
        `on_purpose` (the host's person ended the table: Ctrl+C on `pitchnet host`, or
        "end the table" in the window that hosts) tells every client "The host closed
        the table" so they stop trying; otherwise they are told to expect it back.
        `moved_to` ("host:port", table id): this lobby yields to an older table, and
        everyone here is told to join that one. `handing_over`: a detached host resumes
        this table from its journal (keep it running in the background), so the journal
        is kept even for a lobby where no match has started."""
        if self._closed.is_set():
            return
        self.closed_on_purpose = on_purpose
        self._closed.set()
        try:
            await self._shut_down(on_purpose, moved_to, handing_over)
        finally:
            self._shut.set()

    async def _shut_down(
        self, on_purpose: bool, moved_to: tuple[str, str] | None, handing_over: bool
    ) -> None:
        loop = asyncio.get_running_loop()
        if self._server:
            self._server.close()
        self._carry_out(
            self.referee.shutdown(loop.time(), on_purpose=on_purpose, moved_to=moved_to)
        )
        if self.links:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._all_gone.wait(), SHUTDOWN_WAIT)
        for conn in list(self.links.values()):
            conn.abort()
        await asyncio.sleep(0)  # their connection_lost callbacks run now
        if self._timer is not None:
            self._timer.cancel()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._advertiser:
            await self._advertiser.close()
        if self.journal is not None:
            self.journal.close()
            # A resumed lobby ended on purpose has nothing to carry on either.
            fresh = self.config.resume is None or on_purpose
            if self.table.matches_started == 0 and fresh and not handing_over:
                # Nobody ever played here (a lobby that closed, or moved to an older
                # table): nothing to resume or look back on, so no journal is kept.
                for path in (
                    self.journal.path,
                    self.journal.path.with_name(self.journal.path.name + ".lock"),
                ):
                    with contextlib.suppress(OSError):
                        path.unlink()
        log.info("table %s closed", self.table_id)

    # ---- connections: in to the referee, effects out -----------------------------------------

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        """The loop this host runs on, looked up once: `asyncio.get_running_loop()` asks
        the system for the process id at every call, which was one system call a read."""
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        return loop

    def new_connection(self) -> Connection:
        """The protocol factory for the listener: one `Connection` per accepted socket."""
        conn = Connection(self, next(self._ids))
        self.links[conn.id] = conn
        return conn

    def deliver(self, conn: Connection, event: Opened | Received | Closed) -> None:
        """Hand one thing that happened on `conn` to the referee and do what it says.
        Nothing a peer sends can raise out of here into the loop's callback."""
        now = self._running_loop().time()
        if type(event) is Closed:
            self.links.pop(conn.id, None)
            if self._closed.is_set() and not self.links:
                self._all_gone.set()
        try:
            effects = self.referee.handle(conn.id, event, now)
        except Exception:
            log.exception("unexpected error on %s", conn.peer)
            conn.abort()
            return
        self._carry_out(effects)

    def _carry_out(self, effects: list[Effect]) -> None:
        links = self.links
        for effect in effects:
            if isinstance(effect, Send):
                conn = links.get(effect.conn)
                if conn is not None:
                    conn.write(effect.data)
            elif isinstance(effect, Changed):
                self._changed(effect.events)
            elif isinstance(effect, Seated):
                if (conn := links.get(effect.conn)) is not None:
                    conn.seated()
            elif isinstance(effect, Think):
                self._spawn(self._think(effect.turn))
            elif (conn := links.get(effect.conn)) is not None:
                if isinstance(effect, Close):
                    conn.close()
                else:
                    conn.abort()
        self._arm()

    def _arm(self) -> None:
        """Keep the one timer at the referee's next deadline. A later deadline leaves an
        earlier timer in place: waking early costs one empty `wake`, rescheduling on
        every read would cost more."""
        deadline = self.referee.next_deadline
        if deadline is None or (self._timer is not None and self._timer_at <= deadline):
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = deadline
        self._timer = self._running_loop().call_at(deadline, self._wake)

    async def _think(self, turn: BotTurn) -> None:
        """Run a slow bot's decision in a worker thread, so the loop keeps serving every
        connection meanwhile, then hand it to the referee."""
        try:
            action = await asyncio.to_thread(turn.bot.decide, turn.view)
        except Exception:
            log.exception("a bot failed to decide; the normal level plays this turn")
            action = make_bot(DEFAULT_LEVEL).decide(turn.view)
        self._carry_out(self.referee.thought(turn, action, self._running_loop().time()))

    def _wake(self) -> None:
        self._timer = None
        try:
            effects = self.referee.wake(self._running_loop().time())
        except Exception:
            log.exception("unexpected error in the host's timer")
            return
        self._carry_out(effects)

    # ---- after every change ------------------------------------------------------------------

    def _changed(self, events: list[Event]) -> None:
        """The table changed (its snapshots are already queued): tell the listeners and
        refresh the advert."""
        for listener in self.on_broadcast:
            listener(events)
        if self._advertiser:
            advert = self._advert()
            if advert != self._last_advert:
                self._last_advert = advert
                self._spawn(self._advertiser.update(advert))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _advert(self) -> Advert:
        """What the advert says now. Built after every change, so from the table's own
        fields rather than a whole `TableInfo`."""
        from host.advertise import Advert

        seats = self.table.seats
        return Advert(
            table_id=self.table_id,
            name=self.name,
            taken=sum(seat.kind != SeatKind.EMPTY for seat in seats),
            seats=len(seats),
            state=self.table.state,
            password=self.table.options.password is not None,
            open=self.table.open_seats(),
            born=self.born,
            target=self.table.settings.target,
            rules=self.table.settings.rules.short(),
            bots=self.table.options.bot_level,
            timer=round(self.table.options.turn_timer),
            version=PROTOCOL_VERSION,
        )
