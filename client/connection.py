"""The client's side of one table connection, in asyncio.

It opens TCP, says hello, decodes frames, answers pings, pings the host every
`heartbeat` seconds and calls the host dead after `dead_after` seconds of silence
(TCP alone would take minutes). It never touches a widget: everything the player
should see is handed to `post` as a plain dataclass (client.messages), so it runs
without Textual (`pitchnet bot`) as well as inside the app.

Once seated it holds the seat token, so a lost link is retried with backoff (capped
near a second) and the same seat comes back. A host that answers "I do not know your
seat" (`bad_token`, `wrong_table`) proves nothing, since an impostor can say it too:
the token is never dropped for it, and a reconnect keeps trying to reach the table.
Actions get increasing ids and stay queued until acknowledged, so an action sent just
before a drop is sent again after the reconnect and the host applies it once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Collection
from typing import Any, Protocol

from client.meanings import bye_words, error_words
from client.messages import (
    Disconnected,
    HostError,
    News,
    ReactionHeard,
    Reclaiming,
    StateReceived,
    Welcomed,
)
from client.tokens import SavedSeat
from pitchnet.events import events_from_wire
from pitchnet.i18n import N_, _, ngettext
from pitchnet.protocol import (
    DEFAULT_PORT,
    NONCE_BYTES,
    SEAT_KEY_BYTES,
    Ack,
    Away,
    BidMsg,
    Bye,
    Challenge,
    ErrorMsg,
    FrameDecoder,
    Leave,
    Message,
    Ping,
    PlayMsg,
    Pong,
    ProtocolError,
    Purpose,
    React,
    Reacted,
    Ready,
    Reclaim,
    ReclaimAsked,
    ReclaimStatus,
    Sit,
    Start,
    State,
    TableState,
    Vouch,
    Welcome,
    answer,
    parse_host_message,
    proves,
)
from pitchnet.reactions import Reaction, reaction_of

log = logging.getLogger(__name__)

# The sentences below are marked with `N_` and translated where they are said (`_`).
IMPOSTOR = N_("This is not the table you were sitting at (it could not prove it knows your seat).")
BACK_TO_OUR_TABLE = N_("Trying the table's own address again.")
UNKNOWN_SEAT = N_(
    "The host answering as this table did not know your seat: it may not be your table."
)
STILL_TRYING = N_("Still trying to reach your table.")
LOBBY_SEAT_FREED = N_(
    "The lobby gave your seat away while you were disconnected: you are back at the "
    "table as a new player."
)
AS_A_NEWCOMER = N_(
    "You sit there as a new player; your old seat is still remembered, and the table "
    "that knows it gives it back when you join it again."
)
UNPROVEN_REFUSALS = ("bad_token", "wrong_table")
"""Refusals that say "I do not know your seat": anyone can send them, so they prove
nothing and never make us drop a token a host welcomed."""
OLD_HOST = N_(
    "That host runs an older pitchnet, which would take your seat token and password in "
    "clear: ask its host to update pitchnet."
)

BACKOFF = (0.1, 0.2, 0.4, 0.8)
BACKOFF_CAP = 1.0
"""Retry delays: quick first tries, then about once a second (capped near 1 s)."""
JOURNAL_RESEND = 1.0
"""Seconds before a move the host could not record (`journal`: its disk full, say) is
sent again: the host changed nothing, applies an id once, and writes again when it can."""
WATCH_TICK = 0.2
"""How often the watchdog looks at the clock (a silent host is noticed this late at most)."""


class Locate(Protocol):
    """Finds a table's current address by its id (zeroconf), for a host that moved,
    never one of `avoid` (addresses that could not prove they are the table)."""

    def __call__(
        self, table_id: str, *, avoid: Collection[tuple[str, int]] = ...
    ) -> Awaitable[tuple[str, int] | None]: ...


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """Split "HOST[:PORT]" (or "[v6]:PORT"); raises ValueError with a sentence."""
    text = text.strip()
    if not text:
        raise ValueError(_("no address was given."))
    host, port_text = text, ""
    if text.startswith("["):
        host, _sep, rest = text[1:].partition("]")
        port_text = rest.removeprefix(":")
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    if not host:
        raise ValueError(_("{address} names no computer before the port.", address=repr(text)))
    if not port_text:
        return host, default_port
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError(
            _("{port} is not a port number (a number from 1 to 65535).", port=repr(port_text))
        )
    return host, int(port_text)


def backoff_delay(attempt: int) -> float:
    """The pause before retry number `attempt` (0-based), with a little jitter so a
    table of clients does not reconnect in lockstep."""
    base = BACKOFF[attempt] if attempt < len(BACKOFF) else BACKOFF_CAP
    return base * random.uniform(0.9, 1.1)


class Refused(Exception):
    """The host said no for good (fatal error or a bye we must not retry after)."""


class Lost(Exception):
    """The link broke; worth retrying if we hold a seat token."""


class Moved(Exception):
    """The lobby closed in favour of an older table: join that one instead."""

    def __init__(self, host: str, port: int, table_id: str | None) -> None:
        super().__init__(_("The table moved."))
        self.host, self.port, self.table_id = host, port, table_id


class HostClosed(Exception):
    """The host ended the table on purpose: stop, but keep the seat's token (the table
    may be resumed later, and joining it again takes the seat back)."""


GIVE_UP_AFTER = 180.0
"""Seconds of failed reconnecting after which the connection stops trying."""


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
        self.host, self.port, self.name = host, port, name
        self.password, self.table_id, self.token = password, table_id, token
        self.reconnect, self.dead_after, self.connect_timeout = (
            reconnect,
            dead_after,
            connect_timeout,
        )
        self.locate = locate
        self.give_up_after = give_up_after
        self.watch = watch
        """A spectator: sits nowhere, sees what is public."""
        self._asked_table_id = table_id
        self._stored = False
        """The token came from disk and no host has welcomed us yet: if the host does
        not know it, try the next remembered one, then join as a newcomer."""
        self._remembered: tuple[str, ...] = ()
        """The tokens remembered on disk for `_remembered_table`, in the order tried."""
        self._remembered_table: str | None = None
        self._seat_held = False
        """The remembered entry holds a seat (not only tokens kept after giving one up)."""
        if remembered is not None and token is None and table_id in (None, remembered.table_id):
            self._remembered = remembered.tokens
            if self._remembered:
                self.table_id = self._remembered_table = remembered.table_id
                self.token, self._stored = self._remembered[0], True
                self._seat_held = bool(remembered.token)
        self._held: str | None = None
        """The token a welcome gave us or proved in this run: our seat. A host that
        refuses it later is not believed (it proves nothing): we keep trying."""
        self._claimed_table: str | None = None
        """The table id the host of the last connection claimed in its challenge."""
        self._note = ""
        """A sentence for the next welcome (why we sit as a newcomer)."""
        self._in_lobby = False
        """The last snapshot showed the table's lobby (no match dealt yet)."""
        self.seat: int | None = None
        self.refusal: str | None = None
        """The code of the fatal error that ended this connection, if one did."""
        self.heartbeat = 1.0
        self.connected = False
        self._post = post
        self._writer: asyncio.StreamWriter | None = None
        self._closing = False
        self._seq = -1
        self._next_id = time.time_ns() // 1_000_000
        """Ids start from the clock so a restarted client never reuses an old id."""
        self._unacked: dict[int, Message] = {}
        self._turn: tuple[int | None, int | None] = (None, None)
        self._last_heard = 0.0
        self._challenge = ""
        """This connection's nonce, which the host's `welcome` must prove our token over."""
        self._proved_seat: tuple[str, str] | None = None
        """(token or "", table id) this connection's hello proved; None before it."""
        self._seen: list[int] | None = None
        """How far we saw the game at this table (`hello.seen`), from the last state."""
        self._table_at: tuple[str, int] | None = None
        """Where our table welcomed us (proving our token, or giving us a new one)."""
        self._impostors: set[tuple[str, int]] = set()
        """Addresses that took our proof and could not prove our seat back: never again."""
        self._proposed: str | None = None
        """The seat token we offered as a newcomer (`hello.seat_key`), until a welcome: if
        the link drops first, the host may have seated us with it, so we prove it next."""

    # ---- actions ---------------------------------------------------------------------------

    def start(self) -> int:
        return self._act(lambda i: Start(id=i))

    def sit(self, seat: int) -> int:
        """Move to another open seat in the lobby (0-based)."""
        return self._act(lambda i: Sit(id=i, seat=seat))

    def bid(self, amount: int | None) -> int:
        hand, step = self._turn
        return self._act(lambda i: BidMsg(id=i, bid=amount, hand=hand, step=step))

    def play(self, card: str) -> int:
        hand, step = self._turn
        return self._act(lambda i: PlayMsg(id=i, card=card, hand=hand, step=step))

    def ready(self, rotate: bool = False) -> int:
        """Ready for the next hand; at a partnership match's end `rotate` asks to play
        the next match with partners rotated."""
        return self._act(lambda i: Ready(id=i, rotate=rotate))

    def reclaim(self, seat: int) -> None:
        """Watching: ask for `seat`, an away player's, as ours from this new device
        (another person at the table must vouch; the answer comes as `Reclaiming`)."""
        self._send(Reclaim(seat=seat))

    def vouch(self, seat: int, yes: bool) -> None:
        """Answer the host's question: is the watcher asking for `seat` its player?"""
        self._send(Vouch(seat=seat, yes=yes))

    def _act(self, make: Callable[[int], Message]) -> int:
        self._next_id += 1
        message = make(self._next_id)
        self._unacked[self._next_id] = message
        self._send(message)
        return self._next_id

    @property
    def pending(self) -> list[int]:
        """Ids sent but not yet acknowledged (resent after a reconnect)."""
        return sorted(self._unacked)

    def react(self, reaction: Reaction) -> None:
        """Send a quick reaction: not an action (no id, no ack, never resent)."""
        self._send(React(reaction=str(reaction)))

    async def leave(self) -> None:
        """Give the seat up, then close."""
        self._send(Leave())
        self.token = None
        await self.close()

    async def away(self) -> None:
        """Go, keeping the seat: a bot plays it at once, and the token (kept) takes it
        back later. What a browser session does when its tab closes (or reloads)."""
        self._send(Away())
        await self.close()

    async def close(self) -> None:
        """Stop for good: no more retries, no more messages to the app."""
        self._closing = True
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(Exception):
                await writer.drain()
            writer.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.wait_closed(), 1.0)

    # ---- the loop --------------------------------------------------------------------------

    async def run(self) -> None:
        """Connect and serve; on a lost link retry with backoff while we hold a token."""
        attempt = 0
        lost_at: float | None = None
        while not self._closing:
            try:
                await self._session()
                reason = _("The host closed the connection.")
            except (HostClosed, Moved, Refused) as exc:
                if self._lobby_seat_freed():
                    self._rejoin_lobby()
                    continue
                if self._reconnecting() and self.refusal != "impostor":
                    # Coming back to our seat, a host that has proven nothing yet says
                    # no (or "closed", "moved"): anyone can say that, so we keep trying.
                    reason = self._not_believed(str(exc))
                elif isinstance(exc, HostClosed):
                    self.connected = False
                    self._emit(Disconnected(self, str(exc), retrying=False, closed=True))
                    return
                elif isinstance(exc, Moved):
                    self.connected = False
                    moved = (exc.host, exc.port, exc.table_id)
                    self._emit(Disconnected(self, str(exc), retrying=False, moved=moved))
                    return
                elif self.refusal in UNPROVEN_REFUSALS and self._stored:
                    self._next_remembered_or_newcomer()
                    continue
                elif self._back_to_our_table():
                    reason = f"{exc} {_(BACK_TO_OUR_TABLE)}"
                else:
                    self._emit(Disconnected(self, str(exc), retrying=False))
                    return
            except (Lost, ProtocolError, OSError, TimeoutError) as exc:
                reason = _reason(exc, self.host, self.port)
                self._keep_offered_key()
            if self._closing:
                return
            now = time.monotonic()
            if self.connected or lost_at is None:
                attempt, lost_at = 0, now
            self.connected = False
            # A seat comes back with its token; a spectator only to a table that let it
            # watch in this run (an address with no table there is not a loss).
            watched = self.watch and self._table_at is not None
            if not self.reconnect or (self.token is None and not watched):
                self._emit(Disconnected(self, reason, retrying=False))
                return
            trying_for = now - lost_at
            if trying_for >= self.give_up_after:
                minutes = max(1, round(self.give_up_after / 60))
                if self.watch:
                    reason = ngettext(
                        "Stopped trying after {n} minute: the table did not come back. "
                        "Watch it again from the finder when it is back.",
                        "Stopped trying after {n} minutes: the table did not come back. "
                        "Watch it again from the finder when it is back.",
                        minutes,
                    )
                else:
                    reason = ngettext(
                        "Stopped trying after {n} minute: the table did not come back. Your "
                        "seat is remembered; join the table again from the finder when it "
                        "is back.",
                        "Stopped trying after {n} minutes: the table did not come back. Your "
                        "seat is remembered; join the table again from the finder when it "
                        "is back.",
                        minutes,
                    )
                self._emit(Disconnected(self, reason, retrying=False, trying_for=trying_for))
                return
            delay = backoff_delay(attempt)
            self._emit(
                Disconnected(self, reason, retrying=True, delay=delay, trying_for=trying_for)
            )
            await asyncio.sleep(delay)  # a retry pause, not synchronisation
            attempt += 1
            if self.locate is not None and self.table_id and attempt % 3 == 0:
                await self._relocate()

    def _keep_offered_key(self) -> None:
        """The link dropped after our hello as a newcomer and before any welcome: the host
        may have seated us with the key we offered (and died before saying so), so the
        next hello proves it, as a stored token: a host that does not know it makes us a
        newcomer again."""
        if self._proposed is not None and self.token is None and not self.connected:
            self.token, self._stored = self._proposed, True
            self.table_id = self.table_id or self._claimed_table

    def _back_to_our_table(self) -> bool:
        """After an impostor (a host found by our table's id that could not prove our
        seat): leave it for good and go back to where our table welcomed us, if that was
        elsewhere. False when there is nowhere else to go."""
        if self.refusal != "impostor":
            return False
        here = (self.host, self.port)
        self._impostors.add(here)
        if self._table_at is None or self._table_at in self._impostors:
            return False
        self.host, self.port = self._table_at
        return True

    def _reconnecting(self) -> bool:
        """This connection was refused before any welcome while coming back to the seat
        a host welcomed us to in this run."""
        return not self.connected and self._held is not None and self.token == self._held

    def _lobby_seat_freed(self) -> bool:
        """Back from a drop while the table was in its lobby, the table's own address
        says it does not know our seat: a lobby frees the seat of whoever drops off
        (PROTOCOL.md), so this is the expected answer. Believed there only: anywhere
        else, or once a match is on, a refusal proves nothing."""
        return (
            self._reconnecting()
            and self._in_lobby
            and self.refusal in UNPROVEN_REFUSALS
            and (self.host, self.port) == self._table_at
        )

    def _rejoin_lobby(self) -> None:
        """Sit down again in the lobby that freed our seat, as a newcomer, and say so."""
        self.refusal, self._held, self._seen = None, None, None
        self.token, self.table_id = None, self._asked_table_id or self.table_id
        self._note = _(LOBBY_SEAT_FREED)

    def _not_believed(self, said: str) -> str:
        """A host refused, before proving anything, the seat a host welcomed us to in
        this run: anyone can send a refusal, so we keep the token and keep trying (the
        give-up time ends it if the table really lost the seat). A host found elsewhere
        by our table's id that did so is never tried again."""
        said = _(UNKNOWN_SEAT) if self.refusal in UNPROVEN_REFUSALS else said
        self.refusal = None
        here = (self.host, self.port)
        if self._table_at is not None and here != self._table_at:
            self._impostors.add(here)
            self.host, self.port = self._table_at
            return f"{said} {_(BACK_TO_OUR_TABLE)}"
        return f"{said} {_(STILL_TRYING)}"

    def _next_remembered_or_newcomer(self) -> None:
        """A remembered token was refused before any welcome (the table may have lost the
        seat, or another table may answer here): try the next one, else join as a
        newcomer. The refused tokens stay remembered (`kept_tokens`)."""
        self.refusal = None
        tried = self._remembered.index(self.token) + 1 if self.token in self._remembered else 0
        if self.token is not None and self.token == self._proposed:
            tried = len(self._remembered)  # the key we offered was not taken: a newcomer
        self._proposed = None
        if tried < len(self._remembered):
            self.token = self._remembered[tried]
            return
        if self._seat_held and self._claimed_table == self._remembered_table:
            self._note = f"{_(UNKNOWN_SEAT)} {_(AS_A_NEWCOMER)}"  # it claims our table's id
        self._stored, self._seen = False, None
        self.token, self.table_id = None, self._asked_table_id

    @property
    def kept_tokens(self) -> tuple[str, ...]:
        """The remembered tokens for this table id besides the one we sit with, newest
        first: only refusals set them aside, and those prove nothing, so they are kept."""
        if self.table_id is None or self.table_id != self._remembered_table:
            return ()
        return tuple(t for t in self._remembered if t != self.token)

    async def _relocate(self) -> None:
        assert self.locate is not None and self.table_id
        with contextlib.suppress(Exception):
            found = await self.locate(self.table_id, avoid=frozenset(self._impostors))
            if found is not None and found not in self._impostors:
                self.host, self.port = found

    async def _session(self) -> None:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(self.host, self.port), self.connect_timeout
        )
        self._writer = writer
        self._last_heard = asyncio.get_running_loop().time()
        # The hello waits for the host's challenge: its proofs must cover that nonce.
        self._challenge = secrets.token_hex(NONCE_BYTES)
        self._proved_seat = None
        tasks = [asyncio.create_task(self._read(reader)), asyncio.create_task(self._watch())]
        try:
            done, _pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                task.result()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._writer = None
            # The session is over and the link may be dead: drop the socket at once
            # rather than wait for a goodbye that cannot arrive.
            writer.transport.abort()

    async def _read(self, reader: asyncio.StreamReader) -> None:
        decoder = FrameDecoder()
        while True:
            data = await reader.read(65536)
            if not data:
                raise Lost(_("The host closed the connection."))
            self._last_heard = asyncio.get_running_loop().time()
            for payload in decoder.feed(data):
                self._handle_payload(payload)

    async def _watch(self) -> None:
        """Ping every heartbeat; a silent host is dead after `dead_after` seconds (or
        `connect_timeout` before the welcome, when the host owes us nothing yet)."""
        loop = asyncio.get_running_loop()
        next_ping = 0.0
        while True:
            # A short fixed tick: silence is caught within WATCH_TICK of the limit, and a
            # welcome that arrives mid-sleep starts the pings at most a tick late.
            await asyncio.sleep(WATCH_TICK)
            now = loop.time()
            limit = self.dead_after if self.connected else self.connect_timeout
            silent = now - self._last_heard
            if silent > limit:
                raise Lost(_("No word from the host for {seconds} seconds.", seconds=round(silent)))
            if self.connected and now >= next_ping:
                self._send(Ping(t=time.time()))
                next_ping = now + self.heartbeat

    # ---- frames in -------------------------------------------------------------------------

    def _handle_payload(self, payload: dict[str, Any]) -> None:
        try:
            message = parse_host_message(payload)
        except ProtocolError as exc:
            if payload.get("type") == "state":
                said = _("The host sent a bad table: {reason}", reason=str(exc))
            else:
                said = _("The host sent a bad message: {reason}", reason=str(exc))
            self._emit(HostError(self, "bad_host", said, False))
            return
        if self._proved_seat is None and not self.connected and not isinstance(message, Challenge):
            # A host of this protocol sends its challenge first; an older one waits for
            # a hello with our secrets in clear, which we never send.
            self.refusal = "version"
            raise Refused(_(OLD_HOST))
        if isinstance(message, Ping):
            self._send(Pong(t=message.t))
        elif isinstance(message, Challenge):
            self._answer(message)
        elif isinstance(message, Welcome):
            self._welcomed(message)
        elif isinstance(message, State):
            self._state(message)
        elif isinstance(message, Ack):
            self._unacked.pop(message.id, None)
        elif isinstance(message, ErrorMsg):
            self._error(message)
        elif isinstance(message, Reacted):
            reaction = reaction_of(message.reaction)
            if reaction is not None:  # one from a newer pitchnet is left out
                self._emit(ReactionHeard(self, reaction, message.seat, message.name))
        elif isinstance(message, ReclaimAsked | ReclaimStatus):
            self._emit(Reclaiming(self, message))
        elif isinstance(message, Bye):
            if message.code == "closed":
                raise HostClosed(_("The host closed the table."))
            if message.code == "moved" and message.address:
                try:
                    host, port = parse_address(message.address)
                except ValueError:
                    raise Lost(_("The host moved the table to an unreadable address.")) from None
                raise Moved(host, port, message.table_id)
            if message.code != "shutdown":
                raise Refused(_("The host closed this seat: {reason}", reason=bye_words(message)))
            raise Lost(_("The host is restarting the table; it will be back."))

    def _answer(self, challenge: Challenge) -> None:
        """Send `hello`, proving the seat token and the password over the host's nonce
        (neither is sent: what this host receives is no use on another connection)."""
        if self._proved_seat is not None or self.connected:
            return  # one hello per connection
        token = None if self.watch else self.token  # a spectator proves no seat
        table = self._claimed_table = challenge.table_id
        self._proved_seat = (token, table) if token else ("", table)
        if token is None and not self.watch:  # a newcomer offers its own seat token
            self._proposed = secrets.token_urlsafe(SEAT_KEY_BYTES)
        self._send(
            answer(
                challenge,
                self.name,
                token=token,
                password=self.password,
                table_id=self.table_id,
                nonce=self._challenge,
                watch=self.watch,
                seen=self._seen,
                seat_key=self._proposed if token is None else None,
            )
        )

    def _welcomed(self, welcome: Welcome) -> None:
        token, table = self._proved_seat or ("", welcome.table_id)
        first = not self.connected  # a later welcome (after `sit`) answers no hello
        if (
            first
            and token
            and not proves(welcome.proof, token, self._challenge, table, Purpose.HOST)
        ):
            # It took our proof but cannot show it knows the token: not our table.
            self.refusal = "impostor"
            raise Refused(_(IMPOSTOR))
        self.connected, self._stored, self._proposed = True, False, None
        if self.watch and not welcome.spectator:
            self.watch = False  # a seat taken back on this device: we play from now on
        if first:
            self._table_at = (self.host, self.port)
        self.token = welcome.token or self.token or token or None
        self._held = None if self.watch else self.token
        self.seat, self.table_id = welcome.seat, welcome.table_id
        # A host's word, so bounded: a tiny interval from a hostile host must not spin us.
        self.heartbeat = min(max(welcome.heartbeat, 0.1), 30.0)
        last_id = getattr(welcome, "last_id", 0)  # newer hosts say which id they applied last
        if type(last_id) is int and last_id > self._next_id:
            self._next_id = last_id
        self._seq = -1  # a fresh snapshot follows every welcome, even from a resumed host
        note, self._note = (self._note, "") if first else ("", self._note)
        self._emit(Welcomed(self, welcome, note))
        for action_id in self.pending:
            self._send(self._unacked[action_id])

    def _state(self, state: State) -> None:
        if state.seq <= self._seq:
            return
        self._seq, view = state.seq, state.view
        self._in_lobby = state.table.state == TableState.LOBBY
        if view is not None and not view.spectator:
            # How far we saw the game: a host that is behind it when we come back has
            # lost part of its record, and says so (hello.seen).
            self._seen = [state.table.match, *view.progress]
        if view is not None:
            # The turn our moves answer: a move resent after a reconnect that lands in a
            # later turn is refused by the host ("stale") instead of played there.
            self._turn = (view.hand_number, view.step)
        events = events_from_wire(state.events)
        self._emit(StateReceived(self, state.seq, state.table, view, events))

    def _error(self, error: ErrorMsg) -> None:
        unrecorded = error.code == "journal" and not error.fatal
        if unrecorded and error.id in self._unacked:
            # Not refused, only not recorded: the move stays pending and goes again, so
            # every client (bot, terminal, browser) goes on once the host can write.
            asyncio.get_running_loop().call_later(JOURNAL_RESEND, self._resend, error.id)
        elif error.id is not None:
            self._unacked.pop(error.id, None)
        said = error_words(error)
        self._emit(HostError(self, error.code, said, error.fatal))
        if error.fatal:
            self.refusal = error.code  # the token stays: a refusal proves nothing (run())
            raise Refused(said)

    # ---- frames out ------------------------------------------------------------------------

    def _resend(self, action_id: int) -> None:
        """Send a pending move again (a reconnect's welcome resends it anyway)."""
        message = self._unacked.get(action_id)
        if message is not None and self.connected:
            self._send(message)

    def _send(self, message: Message) -> None:
        writer = self._writer
        if writer is None or writer.is_closing():
            return
        try:
            writer.write(message.encode())
        except (OSError, RuntimeError) as exc:
            log.debug("write failed: %s", exc)

    def _emit(self, message: News) -> None:
        if not self._closing:
            self._post(message)


def _reason(exc: BaseException, host: str | None = None, port: int | None = None) -> str:
    if isinstance(exc, Lost):
        return str(exc)
    if isinstance(exc, ProtocolError):
        return _("The host sent something unreadable: {reason}", reason=exc.message)
    if isinstance(exc, TimeoutError):
        return _("The host did not answer in time.")
    if isinstance(exc, OSError):
        from pitchnet.errors import describe_os_error

        return describe_os_error(exc, host=host, port=port)
    return str(exc)
