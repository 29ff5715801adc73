"""The referee process: accept, handshake, per-connection tasks, heartbeats, shutdown.

All game decisions are the `Table`'s; this module only moves frames. Each
connection has one reader task and one heartbeat task. Every change to the
table is followed by one broadcast of fresh snapshots to every connected seat.
A misbehaving peer gets an `error` frame and, where the protocol says so, its
connection closed; nothing it sends can raise out of its own task.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import time
from collections import deque
from dataclasses import dataclass, fields
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

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


class Connection:
    """One client's socket: a decoder on the way in, a bounded buffer on the way out."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, limits: Limits
    ) -> None:
        self.reader, self.writer, self.limits = reader, writer, limits
        self.decoder = FrameDecoder()
        self.rate = RateLimiter(limits.messages_per_second, limits.burst)
        self.peer = "{}:{}".format(*(writer.get_extra_info("peername") or ("?", "?"))[:2])
        self.seat: int | None = None
        self.strikes = 0
        self.closed = False
        self.last_heard = time.monotonic()
        self._queue: deque[dict] = deque()
        self._frame_started: float | None = None

    def send(self, message: Message) -> None:
        self.send_frames(message.encode())

    def send_frames(self, data: bytes) -> None:
        """Queue already encoded frames (one or more, whole) for this peer."""
        if self.closed:
            return
        transport = self.writer.transport
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

    def close_soon(self) -> None:
        """Close after what is already queued (an error frame, say) has been sent."""
        self.closed = True
        self.writer.transport.close()

    def abort(self) -> None:
        self.closed = True
        self.writer.transport.abort()

    async def close(self, reason: str | None = None, code: str = "shutdown") -> None:
        if self.closed:
            return
        if reason:
            self.send(Bye(reason=reason, code=code))
        self.closed = True
        with contextlib.suppress(Exception):
            self.writer.close()
            await asyncio.wait_for(self.writer.wait_closed(), 1.0)

    async def read_message(self, timeout: float) -> Message:
        """The next client message. Raises ProtocolError (bad input), TimeoutError (silence)
        or ConnectionError (gone)."""
        while not self._queue:
            wait = timeout
            if self.decoder.pending:
                started = self._frame_started = self._frame_started or time.monotonic()
                left = started + self.limits.partial_frame_seconds - time.monotonic()
                if left <= 0:
                    raise ProtocolError("slow_frame", "A frame arrived too slowly.", fatal=True)
                wait = min(wait, left)
            else:
                self._frame_started = None
            try:
                async with asyncio.timeout(wait):  # a timer, not a task per read
                    data = await self.reader.read(16384)
            except TimeoutError:
                if wait < timeout:
                    continue  # the partial-frame deadline, checked above
                raise
            if not data:
                raise ConnectionResetError("peer closed the connection")
            self.last_heard = time.monotonic()
            before = len(self._queue)
            self._queue.extend(self.decoder.feed(data))
            if len(self._queue) > before:
                self._frame_started = None  # what is left is a new frame, started now
        return parse_client_message(self._queue.popleft())


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
        try:
            self._server = await asyncio.start_server(
                self._on_connect, self.config.interface, self.port, reuse_address=True
            )
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE or self.port == 0:
                raise
            log.warning("port %d is taken; using a free one", self.port)
            self._server = await asyncio.start_server(self._on_connect, self.config.interface, 0)
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

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = Connection(reader, writer, self.limits)
        if self._closed.is_set() or not self._admit(conn):
            conn.abort()
            return
        log.info("connection from %s", conn.peer)
        self.anonymous.add(conn)
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        heartbeat = self._spawn(self._heartbeat(conn))
        try:
            await self._serve(conn)
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError) as exc:
            log.info("%s gone: %s", conn.peer, str(exc) or type(exc).__name__)
        except ProtocolError as exc:
            log.info("%s refused: %s (%s)", conn.peer, exc.message, exc.code)
            conn.error(exc.code, exc.message, fatal=True)
        except JournalError as exc:
            log.error("journal write failed: %s", exc)
            conn.error("journal", "The host cannot record the game right now.", fatal=True)
        except asyncio.CancelledError:
            pass
        except Exception:
            log.exception("unexpected error on %s", conn.peer)
        finally:
            heartbeat.cancel()
            self.anonymous.discard(conn)
            await conn.close()
            self._forget(conn)

    def _admit(self, conn: Connection) -> bool:
        live = [*self.connections.values(), *self.anonymous]
        if len(live) >= self.limits.max_connections:
            log.warning("refusing %s: too many connections", conn.peer)
            return False
        address = conn.peer.rsplit(":", 1)[0]
        same = sum(c.peer.rsplit(":", 1)[0] == address for c in live)
        if same >= self.limits.max_per_address:
            log.warning("refusing %s: too many connections from that address", conn.peer)
            return False
        return True

    async def _serve(self, conn: Connection) -> None:
        hello = await self._handshake(conn)
        seat = self.table.join(hello)
        old = self.connections.get(seat)
        if old is not None and old is not conn:
            log.info("seat %d taken over by %s", seat, conn.peer)
            old.seat = None
            await old.close("Your seat was taken over by a new connection.", code="replaced")
        self.anonymous.discard(conn)
        conn.seat = seat
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
        self._after_change()
        while not conn.closed:
            try:
                msg = await conn.read_message(self.limits.dead_after)
            except ProtocolError as exc:
                if exc.fatal:
                    raise
                self._strike(conn, exc.code, exc.message)
                continue
            self._on_message(conn, seat, msg)

    async def _handshake(self, conn: Connection) -> Hello:
        deadline = time.monotonic() + self.limits.handshake_seconds
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ProtocolError("handshake", "No hello in time.", fatal=True)
            try:
                msg = await conn.read_message(remaining)
            except TimeoutError:
                raise ProtocolError("handshake", "No hello in time.", fatal=True) from None
            if not conn.rate.allow():
                raise ProtocolError("rate_limited", "Too many messages; slow down.", fatal=True)
            if isinstance(msg, Hello):
                return msg
            if isinstance(msg, Ping):
                conn.send(Pong(t=msg.t))
                continue
            if isinstance(msg, Pong):
                continue  # an answer to our own ping, which may cross the client's hello
            raise ProtocolError("handshake", "The first message must be hello.", fatal=True)

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

    async def _heartbeat(self, conn: Connection) -> None:
        while not conn.closed:
            conn.send(Ping(t=time.time()))
            await asyncio.sleep(HEARTBEAT)
            # Before hello the handshake deadline applies; after it, silence means gone.
            seated = conn.seat is not None
            if seated and time.monotonic() - conn.last_heard > self.limits.dead_after:
                log.info("%s silent for %.0f s; dropping it", conn.peer, self.limits.dead_after)
                conn.abort()

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
        from host.advertise import Advert

        info = self.table.info()
        return Advert(
            table_id=self.table_id,
            name=self.name,
            taken=info.taken,
            seats=info.players,
            state=info.state,
            password=info.password,
        )


def _describe(event: dict) -> str:
    if event["kind"] == "match":
        return f"match over, side {event['winner']} wins"
    return "match started"
