"""The client's side of one table connection: the asyncio shell around `ClientSession`.

Everything the connection decides (the handshake and its proofs, the seat tokens, the
action ids and their resending, when the host counts as dead, whether and when to
reconnect) is in client/session.py, which does no I/O. This module only opens TCP,
reads and writes frames, ticks the session's clock, sleeps between tries and looks a
moved table up (zeroconf). It never touches a widget: everything the player should see
is handed to `post` as a plain dataclass (client.messages), so it runs without Textual
(`pitchnet bot`) as well as inside the app.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Collection
from typing import Protocol

from client.messages import News
from client.session import (
    BACKOFF,
    BACKOFF_CAP,
    GIVE_UP_AFTER,
    IMPOSTOR,
    ClientSession,
    HostClosed,
    Lost,
    Moved,
    Refused,
    backoff_delay,
    parse_address,
)
from client.tokens import SavedSeat
from pitchnet.i18n import _
from pitchnet.protocol import FrameDecoder, ProtocolError
from pitchnet.reactions import Reaction

__all__ = [
    "BACKOFF",
    "BACKOFF_CAP",
    "GIVE_UP_AFTER",
    "IMPOSTOR",
    "Connection",
    "HostClosed",
    "Locate",
    "Lost",
    "Moved",
    "Refused",
    "backoff_delay",
    "parse_address",
]

log = logging.getLogger(__name__)

WATCH_TICK = 0.2
"""How often the session's clock is ticked (a silent host is noticed this late at most)."""


class Locate(Protocol):
    """Finds a table's current address by its id (zeroconf), for a host that moved,
    never one of `avoid` (addresses that could not prove they are the table)."""

    def __call__(
        self, table_id: str, *, avoid: Collection[tuple[str, int]] = ...
    ) -> Awaitable[tuple[str, int] | None]: ...


class Connection:
    """One player's connection to one table; `run()` until `close()`."""

    def __init__(
        self,
        host: str,
        port: int,
        name: str,
        post: Callable[[News], object],
        *,
        password: str | None = None,
        table_id: str | None = None,
        token: str | None = None,
        reconnect: bool = True,
        remembered: SavedSeat | None = None,
        dead_after: float = 3.0,
        connect_timeout: float = 5.0,
        locate: Locate | None = None,
        give_up_after: float = GIVE_UP_AFTER,
        watch: bool = False,
    ) -> None:
        self.locate = locate
        self.session = ClientSession(
            self,
            host,
            port,
            name,
            post,
            # Ids start from the clock so a restarted client never reuses an old id.
            first_id=time.time_ns() // 1_000_000,
            password=password,
            table_id=table_id,
            token=token,
            reconnect=reconnect,
            remembered=remembered,
            dead_after=dead_after,
            connect_timeout=connect_timeout,
            give_up_after=give_up_after,
            watch=watch,
        )
        self._writer: asyncio.StreamWriter | None = None

    # ---- what the session knows, read by the app -----------------------------------------

    @property
    def host(self) -> str:
        return self.session.host

    @property
    def port(self) -> int:
        return self.session.port

    @property
    def name(self) -> str:
        return self.session.name

    @property
    def token(self) -> str | None:
        return self.session.token

    @property
    def table_id(self) -> str | None:
        return self.session.table_id

    @property
    def seat(self) -> int | None:
        return self.session.seat

    @property
    def password(self) -> str | None:
        return self.session.password

    @property
    def watch(self) -> bool:
        return self.session.watch

    @property
    def connected(self) -> bool:
        return self.session.connected

    @property
    def refusal(self) -> str | None:
        """The code of the fatal error that ended this connection, if one did."""
        return self.session.refusal

    @property
    def pending(self) -> list[int]:
        """Ids sent but not yet acknowledged (resent after a reconnect)."""
        return self.session.pending

    @property
    def kept_tokens(self) -> tuple[str, ...]:
        """The remembered tokens for this table besides the one we sit with."""
        return self.session.kept_tokens

    # ---- actions ---------------------------------------------------------------------------

    def start(self) -> int:
        return self._flushed(self.session.start())

    def sit(self, seat: int) -> int:
        """Move to another open seat in the lobby (0-based)."""
        return self._flushed(self.session.sit(seat))

    def bid(self, amount: int | None) -> int:
        return self._flushed(self.session.bid(amount))

    def play(self, card: str) -> int:
        return self._flushed(self.session.play(card))

    def ready(self, rotate: bool = False) -> int:
        """Ready for the next hand (`rotate`: partners rotated at a match's end)."""
        return self._flushed(self.session.ready(rotate))

    def reclaim(self, seat: int) -> None:
        """Watching: ask for `seat`, an away player's, as ours from this device."""
        self.session.reclaim(seat)
        self._flush()

    def vouch(self, seat: int, yes: bool) -> None:
        """Answer the host's question: is the watcher asking for `seat` its player?"""
        self.session.vouch(seat, yes)
        self._flush()

    def react(self, reaction: Reaction) -> None:
        """Send a quick reaction (no id, no ack, never resent)."""
        self.session.react(reaction)
        self._flush()

    async def leave(self) -> None:
        """Give the seat up, then close."""
        self.session.leave()
        self._flush()
        await self.close()

    async def away(self) -> None:
        """Go, keeping the seat: a bot plays it at once and the kept token takes it back."""
        self.session.away()
        self._flush()
        await self.close()

    async def close(self) -> None:
        """Stop for good: no more retries, no more messages to the app."""
        self.session.closing = True
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(Exception):
                await writer.drain()
            writer.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.wait_closed(), 1.0)

    # ---- the loop --------------------------------------------------------------------------

    async def run(self) -> None:
        """Open links until the session says stop (it decides every retry)."""
        loop = asyncio.get_running_loop()
        while not self.session.closing:
            ended: BaseException | None = None
            try:
                await self._link()
            except (HostClosed, Moved, Refused, Lost, ProtocolError, OSError, TimeoutError) as exc:
                ended = exc
            then = self.session.after(ended, loop.time())
            if then.stop:
                return
            if then.delay:
                await asyncio.sleep(then.delay)  # a retry pause, not synchronisation
            if then.relocate and self.locate is not None and self.session.table_id:
                with contextlib.suppress(Exception):
                    table_id = self.session.table_id
                    found = await self.locate(table_id, avoid=self.session.impostors)
                    self.session.relocated(found)

    async def _link(self) -> None:
        """One TCP link, served until it ends (the exception says why)."""
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(self.session.host, self.session.port),
            self.session.connect_timeout,
        )
        self._writer = writer
        self.session.opened(asyncio.get_running_loop().time())
        tasks = [asyncio.create_task(self._read(reader)), asyncio.create_task(self._tick())]
        try:
            done, _pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                task.result()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._writer = None
            # The link is over and may be dead: drop the socket at once rather than wait
            # for a goodbye that cannot arrive.
            writer.transport.abort()

    async def _read(self, reader: asyncio.StreamReader) -> None:
        loop = asyncio.get_running_loop()
        decoder = FrameDecoder()
        while True:
            data = await reader.read(65536)
            if not data:
                raise Lost(_("The host closed the connection."))
            now = loop.time()
            self.session.heard(now)
            for payload in decoder.feed(data):
                try:
                    self.session.receive(payload, now)
                finally:
                    self._flush()  # what it answered before ending the link goes out

    async def _tick(self) -> None:
        """Tick the session's clock: pings, resends and the silent host's death."""
        loop = asyncio.get_running_loop()
        while True:
            # A short fixed tick: silence is caught within WATCH_TICK of the limit, and a
            # welcome that arrives mid-sleep starts the pings at most a tick late.
            await asyncio.sleep(WATCH_TICK)
            self.session.tick(loop.time(), time.time())
            self._flush()

    # ---- frames out ------------------------------------------------------------------------

    def _flushed(self, action_id: int) -> int:
        self._flush()
        return action_id

    def _flush(self) -> None:
        data = self.session.data_to_send()
        writer = self._writer
        if not data or writer is None or writer.is_closing():
            return
        try:
            writer.write(data)
        except (OSError, RuntimeError) as exc:
            log.debug("write failed: %s", exc)
