"""The referee process: accept, handshake, heartbeats, shutdown.

All game decisions are the `Table`'s; this module only moves frames. Each connection
is an `asyncio.Protocol`: the bytes the loop reads are decoded and acted on in the same
callback, with no reader task to wake (this path runs for every move of every table).
Every change to the table is followed by one broadcast of fresh snapshots to every
connected seat. A misbehaving peer gets an `error` frame and, where the protocol says
so, its connection closed; nothing it sends can raise out of its own callback.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from host.journal import JournalError, SqliteJournal
from host.limits import Limits, RateLimiter
from host.table import TableOptions
from host.tables import new_table, resume_table
from pitchnet.protocol import (
    PROTOCOL_VERSION,
    Ack,
    Bye,
    ErrorMsg,
    FrameDecoder,
    Hello,
    Leave,
    Message,
    Ping,
    Pong,
    ProtocolError,
    Welcome,
    parse_client_message,
)
from pitchnet.rules import RulesError

if TYPE_CHECKING:
    from host.advertise import Advert, Advertiser

log = logging.getLogger("pitchnet.host")

READ_SLICE = 16384
"""Bytes fed to a connection's decoder at a time."""
HEARTBEAT = 1.0
"""Seconds between pings; a peer silent for `Limits.dead_after` is taken as gone."""


@dataclass
class HostConfig:
    name: str | None = None
    port: int = 7373
    interface: str | None = None
    players: int = 4
    partnership: bool = False
    target: int = 7
    bots: int = 0
    seed: int | None = None
    grace: float = 60.0
    substitute: bool = True
    password: str | None = None
    bot_delay: float = 0.6
    advertise: bool = True
    state_dir: Path | None = None
    resume: str | None = None
    limits: Limits | None = None
    journal: bool = True


class Connection(asyncio.Protocol):
    """One client's socket, driven by the event loop's callbacks: bytes that arrive are
    decoded and handed to the server at once (no reader task and no timer per read),
    and frames go out through a bounded buffer. Its timers are the handshake deadline,
    the partial-frame deadline, the silence limit and the heartbeat."""

    def __init__(self, server: HostServer) -> None:
        self.server, self.limits = server, server.limits
        self.decoder = FrameDecoder()
        self.rate = RateLimiter(self.limits.messages_per_second, self.limits.burst)
        self.transport: asyncio.Transport | None = None
        self.peer = "?:?"
        self.seat: int | None = None
        self.accepted = False
        """Within the host's connection limits (a refused one is reset at once)."""
        self.seated = False
        """True from the welcome on (`seat` goes back to None if the player leaves)."""
        self.strikes = 0
        self.closed = False
        self.last_heard = time.monotonic()
        self._frame_started: float | None = None
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._lost: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    # ---- asyncio.Protocol ----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.peer = "{}:{}".format(*(transport.get_extra_info("peername") or ("?", "?"))[:2])
        if not self.server._accept(self):
            self.abort()
            return
        self.accepted = True
        self._later("handshake", self.limits.handshake_seconds, self._handshake_over)
        self._ping()

    def data_received(self, data: bytes) -> None:
        if self.closed:
            return
        now = self.last_heard = time.monotonic()
        try:
            completed = False
            for payload in self._payloads(data):
                completed = True
                try:
                    message = parse_client_message(payload)
                except ProtocolError as exc:
                    if exc.fatal or not self.seated:  # before hello, any bad frame ends it
                        raise
                    self.server._strike(self, exc.code, exc.message)
                else:
                    self.server._received(self, message)
                if self.closed:
                    self.decoder.discard()  # the rest of a closing peer's bytes
                    return
        except ProtocolError as exc:
            self.refuse(exc.code, exc.message)
            return
        except JournalError as exc:
            log.error("journal write failed: %s", exc)
            self.refuse("journal", "The host cannot record the game right now.")
            return
        except Exception:
            log.exception("unexpected error on %s", self.peer)
            self.abort()
            return
        if not self.decoder.pending:
            self._frame_started = None
        elif completed or self._frame_started is None:
            self._frame_started = now  # what is left is a new frame, started now
            self._later("frame", self.limits.partial_frame_seconds, self._frame_check)

    def _payloads(self, data: bytes) -> Iterator[dict[str, Any]]:
        """The frames in `data`, fed to the decoder a slice at a time: the loop may hand
        over 256 KiB at once, and the decoder must never hold more than one frame."""
        for start in range(0, len(data), READ_SLICE):
            yield from self.decoder.feed(data[start : start + READ_SLICE])

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        if not self._lost.done():
            self._lost.set_result(None)
        if self.accepted:  # a refused connection was logged as refused, and holds nothing
            self.server._lost(self, exc)

    # ---- sending ---------------------------------------------------------------------------

    def send(self, message: Message) -> None:
        self.send_frames(message.encode())

    def send_frames(self, data: bytes) -> None:
        """Queue already encoded frames (one or more, whole) for this peer."""
        transport = self.transport
        if self.closed or transport is None:
            return
        if transport.is_closing():
            self.closed = True
            return
        if transport.get_write_buffer_size() > self.limits.max_send_buffer:
            log.warning("%s is not reading; closing it", self.peer)
            self.abort()
            return
        transport.write(data)

    def error(self, code: str, message: str, *, fatal: bool = False, id: int | None = None) -> None:
        self.send(ErrorMsg(code=code, message=message, id=id, fatal=fatal))

    # ---- closing ---------------------------------------------------------------------------

    def refuse(self, code: str, message: str) -> None:
        """A fatal error: say why, then close once it is sent."""
        log.info("%s refused: %s (%s)", self.peer, message, code)
        self.error(code, message, fatal=True)
        self.close_soon()

    def close_soon(self) -> None:
        """Close after what is already queued (an error frame, say) has been sent, or cut
        the connection after `Limits.close_grace`: a peer that does not read would
        otherwise keep a half-closed connection (and its seat) forever."""
        if self.transport is None or self.transport.is_closing():
            self.closed = True
            return
        self.closed = True
        self.transport.close()
        loop = asyncio.get_running_loop()
        self._timers["abort"] = loop.call_later(self.limits.close_grace, self.abort)

    def abort(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.abort()

    async def close(self, reason: str | None = None, code: str = "shutdown") -> None:
        if not self.closed and reason:
            self.send(Bye(reason=reason, code=code))
        self.close_soon()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._lost), 1.0)

    # ---- timers ----------------------------------------------------------------------------

    def _later(self, name: str, delay: float, callback: Callable[[], None]) -> None:
        old = self._timers.pop(name, None)
        if old is not None:
            old.cancel()
        if not self.closed:
            self._timers[name] = asyncio.get_running_loop().call_later(delay, callback)

    def _handshake_over(self) -> None:
        if not self.seated and not self.closed:
            self.refuse("handshake", "No hello in time.")

    def _frame_check(self) -> None:
        started = self._frame_started
        if started is None or not self.decoder.pending or self.closed:
            return
        left = started + self.limits.partial_frame_seconds - time.monotonic()
        if left > 0:
            self._later("frame", left, self._frame_check)
        else:
            self.refuse("slow_frame", "A frame arrived too slowly.")

    def watch_silence(self) -> None:
        """Once seated, a peer silent for `dead_after` (pings answered count) is gone.
        One timer per silence period, re-armed from the last byte heard, not per read."""
        left = self.last_heard + self.limits.dead_after - time.monotonic()
        if self.closed:
            return
        if left > 0:
            self._later("silence", left, self.watch_silence)
            return
        log.info("%s silent for %.0f s; dropping it", self.peer, self.limits.dead_after)
        self.abort()

    def _ping(self) -> None:
        self.send(Ping(t=time.time()))
        self._later("ping", HEARTBEAT, self._ping)


class HostServer:
    """A table on the network. Use `async with HostServer(config) as server:`."""

    def __init__(self, config: HostConfig) -> None:
        self.config = config
        self.limits = config.limits or Limits()
        # The table's options are the config's fields of the same names.
        shared = {f.name for f in fields(TableOptions)} & {f.name for f in fields(HostConfig)}
        options = TableOptions(**{name: getattr(config, name) for name in shared})
        self.journal: SqliteJournal | None
        if config.resume is not None:
            self.table, self.journal, old_port = resume_table(config.resume, config.state_dir)
            self.port = old_port or config.port
        else:
            self.table, self.journal = new_table(
                options, config.name, config.seed, config.state_dir, config.journal
            )
            self.port = config.port
        self.table_id = self.table.id
        self.name = self.table.name
        self.host = config.interface or "0.0.0.0"
        self.connections: dict[int, Connection] = {}
        self.anonymous: set[Connection] = set()
        self._server: asyncio.base_events.Server | None = None
        self._advertiser: Advertiser | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._bot_timer: asyncio.TimerHandle | None = None
        self._grace_timers: dict[int, asyncio.TimerHandle] = {}
        self._closed = asyncio.Event()
        self._last_advert: Advert | None = None
        self.on_broadcast: list = []

    # ---- phases: startup, serve, shutdown -----------------------------------------------------

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            self._server = await loop.create_server(
                self._protocol, self.config.interface, self.port, reuse_address=True
            )
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE or self.port == 0:
                raise
            log.warning("port %d is taken; using a free one", self.port)
            self._server = await loop.create_server(self._protocol, self.config.interface, 0)
        self.port = self._server.sockets[0].getsockname()[1]
        if self.journal is not None:
            self.journal.set_meta(port=self.port)
        if self.config.resume is not None:
            self._start_grace_timers()
        if self.config.advertise:
            from host.advertise import Advertiser  # zeroconf loads only when advertising

            self._advertiser = Advertiser(self.config.interface, self.port)
            self._last_advert = self._advert()
            await self._advertiser.start(self._last_advert)
        log.info("table %r (id %s) open on %s:%d", self.name, self.table_id, self.host, self.port)
        self._after_change()

    async def __aenter__(self) -> HostServer:
        await self.start()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def wait_closed(self) -> None:
        await self._closed.wait()

    async def close(self) -> None:
        """Close the listener, tell every client, unregister, cancel what is left."""
        if self._closed.is_set():
            return
        self._closed.set()
        if self._bot_timer:
            self._bot_timer.cancel()
        for timer in self._grace_timers.values():
            timer.cancel()
        if self._server:
            self._server.close()
        conns = [*self.connections.values(), *self.anonymous]
        await asyncio.gather(*(c.close("The host is shutting down.") for c in conns))
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._advertiser:
            await self._advertiser.close()
        if self.journal is not None:
            self.journal.close()
        log.info("table %s closed", self.table_id)

    # ---- connections ---------------------------------------------------------------------------

    def _spawn(self, coro) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _protocol(self) -> Connection:
        return Connection(self)

    def _accept(self, conn: Connection) -> bool:
        """A new connection, before anything is read: within the limits, or refused."""
        if self._closed.is_set():
            return False
        live = [*self.connections.values(), *self.anonymous]
        if len(live) >= self.limits.max_connections:
            log.warning("refusing %s: too many connections", conn.peer)
            return False
        address = conn.peer.rsplit(":", 1)[0]
        same = sum(c.peer.rsplit(":", 1)[0] == address for c in live)
        if same >= self.limits.max_per_address:
            log.warning("refusing %s: too many connections from that address", conn.peer)
            return False
        log.info("connection from %s", conn.peer)
        self.anonymous.add(conn)
        return True

    def _received(self, conn: Connection, msg: Message) -> None:
        """One message from `conn`, in order; a fatal ProtocolError closes it."""
        if conn.seated:
            if conn.seat is not None:
                self._on_message(conn, conn.seat, msg)
            return
        if not conn.rate.allow():
            raise ProtocolError("rate_limited", "Too many messages; slow down.", fatal=True)
        if isinstance(msg, Hello):
            self._seat(conn, msg)
        elif isinstance(msg, Ping):
            conn.send(Pong(t=msg.t))
        elif not isinstance(msg, Pong):  # a pong may cross the client's hello
            raise ProtocolError("handshake", "The first message must be hello.", fatal=True)

    def _seat(self, conn: Connection, hello: Hello) -> None:
        seat = self.table.join(hello)
        old = self.connections.get(seat)
        if old is not None and old is not conn:
            log.info("seat %d taken over by %s", seat, conn.peer)
            old.seat = None
            self._spawn(old.close("Your seat was taken over by a new connection.", code="replaced"))
        self.anonymous.discard(conn)
        conn.seat, conn.seated = seat, True
        self.connections[seat] = conn
        timer = self._grace_timers.pop(seat, None)
        if timer:
            timer.cancel()
        log.info("%s sits at seat %d as %r", conn.peer, seat, self.table.seats[seat].name)
        conn.send(
            Welcome(
                version=PROTOCOL_VERSION,
                table_id=self.table_id,
                table_name=self.name,
                seat=seat,
                token=self.table.token_of(seat),
                heartbeat=HEARTBEAT,
                last_id=self.table.seats[seat].last_id,
            )
        )
        conn.watch_silence()
        self._after_change()

    def _lost(self, conn: Connection, exc: Exception | None) -> None:
        """A connection is gone (closed by either end, dropped, or refused): its seat, if
        it still holds one, waits for its player with the grace period."""
        if exc is not None:
            log.info("%s gone: %s", conn.peer, str(exc) or type(exc).__name__)
        else:
            log.info("%s closed", conn.peer)
        self.anonymous.discard(conn)
        self._forget(conn)

    def _on_message(self, conn: Connection, seat: int, msg: Message) -> None:
        action_id = getattr(msg, "id", None)
        if not conn.rate.allow():
            self._strike(conn, "rate_limited", "Too many messages; slow down.", id=action_id)
            return
        if isinstance(msg, Ping):
            conn.send(Pong(t=msg.t))
            return
        if isinstance(msg, Pong):
            return
        try:
            applied = self.table.handle(seat, msg)
        except RulesError as exc:
            conn.error(exc.code, exc.message, id=action_id)
            return
        except ProtocolError as exc:
            self._strike(conn, exc.code, exc.message, id=action_id)
            return
        except JournalError as exc:
            log.error("journal write failed: %s", exc)
            conn.error("journal", "The host could not record that; try again.", id=action_id)
            return
        ack = Ack(id=action_id, duplicate=not applied).encode() if action_id is not None else b""
        if applied and not isinstance(msg, Leave):
            self._after_change(lead=(conn, ack))  # the ack rides with the new state
            return
        conn.send_frames(ack)
        if isinstance(msg, Leave):
            # The seat is no longer this connection's (a bot has it, or it is free).
            del self.connections[seat]
            conn.seat = None
            self._spawn(conn.close("You left the table.", code="left"))
        if applied:
            self._after_change()

    def _strike(self, conn: Connection, code: str, message: str, id: int | None = None) -> None:
        """Answer a bad message; too many of them close the connection."""
        conn.strikes += 1
        fatal = conn.strikes >= self.limits.max_strikes
        conn.error(code, message, id=id, fatal=fatal)
        if fatal:
            log.warning("closing %s after %d bad messages", conn.peer, conn.strikes)
            conn.close_soon()

    def _forget(self, conn: Connection) -> None:
        seat = conn.seat
        if seat is None or self.connections.get(seat) is not conn:
            return
        del self.connections[seat]
        log.info("seat %d (%s) disconnected", seat, self.table.seats[seat].name)
        self._guarded(self.table.disconnected, seat)
        self._start_grace(seat)
        self._after_change()

    def _start_grace(self, seat: int) -> None:
        if self.table.state == "playing" and self.table.options.substitute:
            loop = asyncio.get_running_loop()
            self._grace_timers[seat] = loop.call_later(
                self.table.options.grace, self._grace_over, seat
            )

    def _start_grace_timers(self) -> None:
        """After a resume every human is away until they reconnect."""
        for seat, info in enumerate(self.table.seats):
            if info.kind == "human" and not info.connected:
                self._start_grace(seat)

    def _grace_over(self, seat: int) -> None:
        self._grace_timers.pop(seat, None)
        if self.table.substitute_absent(seat):
            log.info("seat %d is away past the grace period; a bot plays it", seat)
            self._after_change()

    def _guarded(self, change, *args):
        """Run a table change the host itself started; a journal failure is logged and
        the change skipped (it is retried on the next trigger), never raised."""
        try:
            return change(*args)
        except JournalError as exc:
            log.error("journal write failed: %s", exc)
            return None

    # ---- after every change ----------------------------------------------------------------------

    def _after_change(self, lead: tuple[Connection, bytes] | None = None) -> None:
        """Send every connected seat its fresh snapshot, refresh the advert, wake the bots.
        `lead` is a frame (an ack) that goes to one connection just before its snapshot,
        in the same write: one send fewer for the seat that acted."""
        if self._closed.is_set():
            if lead:
                lead[0].send_frames(lead[1])
            return
        events = self.table.take_events()
        if self.journal is not None and any(e["kind"] in ("match", "deal") for e in events):
            self.journal.set_meta(finished=self.table.state == "over")
        if self.connections:
            frames = self.table.state_frames(events)
            for seat, conn in list(self.connections.items()):
                if lead and conn is lead[0]:
                    conn.send_frames(lead[1] + frames[seat])
                    lead = None
                else:
                    conn.send_frames(frames[seat])
        if lead:
            lead[0].send_frames(lead[1])
        for listener in self.on_broadcast:
            listener(events)
        for event in events:
            if event["kind"] in ("match", "deal") and event.get("hand", 1) == 1:
                log.info("table %s: %s", self.table_id, _describe(event))
        if self._advertiser:
            advert = self._advert()
            if advert != self._last_advert:
                self._last_advert = advert
                self._spawn(self._advertiser.update(advert))
        self._schedule_bot()

    def _schedule_bot(self) -> None:
        if self._bot_timer is not None or self.table.bot_to_act() is None:
            return
        loop = asyncio.get_running_loop()
        self._bot_timer = loop.call_later(self.config.bot_delay, self._bot_step)

    def _bot_step(self) -> None:
        self._bot_timer = None
        if self._closed.is_set():
            return
        if self._guarded(self.table.act_for_bot):
            self._after_change()

    def _advert(self) -> Advert:
        """What the advert says now. Built after every change, so from the table's own
        fields rather than a whole `TableInfo`."""
        from host.advertise import Advert

        seats = self.table.seats
        return Advert(
            table_id=self.table_id,
            name=self.name,
            taken=sum(seat.kind != "empty" for seat in seats),
            seats=len(seats),
            state=self.table.state,
            password=self.table.options.password is not None,
        )


def _describe(event: dict) -> str:
    if event["kind"] == "match":
        return f"match over, side {event['winner']} wins"
    return "match started"
