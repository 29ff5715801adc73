"""The client's side of one table connection, with no I/O: what `Connection` decides.

h11's shape, for our end of the wire: this object is fed what happened (a link opened
with its nonce, a frame's payload arrived, the clock moved, the link ended and why) and
answers with bytes to send (`data_to_send`), news for the player (`post`), and, when a
link ends, what to do next (`after`). It never opens a socket, sleeps or reads a clock:
`now` (monotonic seconds) and `wall` (epoch seconds, for pings) are handed in, and the
random keys come from `make_key`. So the handshake, the proofs, the token keeping and
the reconnect decisions are tested against the real `Referee` through the same
in-memory pair as the host (tests/test_client_session.py), with no sockets and no waits.

Once seated it holds the seat token, so a lost link is retried with backoff and the same
seat comes back. A host that answers "I do not know your seat" (`bad_token`,
`wrong_table`) proves nothing, since an impostor can say it too: the token is never
dropped for it. Actions get increasing ids and stay queued until acknowledged, so an
action sent just before a drop is sent again after the reconnect and applied once.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from client.connection import Connection

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
GIVE_UP_AFTER = 180.0
"""Seconds of failed reconnecting after which the connection stops trying."""


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


@dataclass(frozen=True)
class After:
    """What to do once a link has ended: stop for good, or open a new link after
    `delay` seconds (0: at once), having first looked the table up again if `relocate`."""

    stop: bool
    delay: float = 0.0
    relocate: bool = False


STOP = After(stop=True)
AT_ONCE = After(stop=False)


class ClientSession:
    """Everything one player's connection to one table decides, fed events by a shell."""

    def __init__(
        self,
        owner: Connection,
        host: str,
        port: int,
        name: str,
        post: Callable[[News], object],
        *,
        first_id: int,
        password: str | None = None,
        table_id: str | None = None,
        token: str | None = None,
        reconnect: bool = True,
        remembered: SavedSeat | None = None,
        dead_after: float = 3.0,
        connect_timeout: float = 5.0,
        give_up_after: float = GIVE_UP_AFTER,
        watch: bool = False,
        make_key: Callable[[int], str] = secrets.token_urlsafe,
    ) -> None:
        self.owner = owner
        """The `Connection` the news carries (the app ignores news from one it left)."""
        self.host, self.port, self.name = host, port, name
        self.password, self.table_id, self.token = password, table_id, token
        self.reconnect, self.dead_after = reconnect, dead_after
        self.connect_timeout, self.give_up_after = connect_timeout, give_up_after
        self.watch = watch
        """A spectator: sits nowhere, sees what is public."""
        self.make_key = make_key
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
        self._open = False
        """A link is open: what is sent goes out (nothing is queued across links)."""
        self._out: list[bytes] = []
        self.closing = False
        self._seq = -1
        self._next_id = first_id
        """Ids start from the clock (the shell's) so a restarted client never reuses one."""
        self._unacked: dict[int, Message] = {}
        self._resend_at: dict[int, float] = {}
        """Moves the host could not record, by id: when to send each again."""
        self._turn: tuple[int | None, int | None] = (None, None)
        self._last_heard = 0.0
        self._next_ping = 0.0
        self._challenge = ""
        """This link's nonce, which the host's `welcome` must prove our token over."""
        self._proved_seat: tuple[str, str] | None = None
        """(token or "", table id) this link's hello proved; None before it."""
        self._seen: list[int] | None = None
        """How far we saw the game at this table (`hello.seen`), from the last state."""
        self._table_at: tuple[str, int] | None = None
        """Where our table welcomed us (proving our token, or giving us a new one)."""
        self._impostors: set[tuple[str, int]] = set()
        """Addresses that took our proof and could not prove our seat back: never again."""
        self._proposed: str | None = None
        """The seat token we offered as a newcomer (`hello.seat_key`), until a welcome: if
        the link drops first, the host may have seated us with it, so we prove it next."""
        self._attempt = 0
        self._lost_at: float | None = None

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

    def react(self, reaction: Reaction) -> None:
        """Send a quick reaction: not an action (no id, no ack, never resent)."""
        self._send(React(reaction=str(reaction)))

    def leave(self) -> None:
        """Give the seat up (the shell closes the link after sending it)."""
        self._send(Leave())
        self.token = None
        self.closing = True

    def away(self) -> None:
        """Go, keeping the seat: a bot plays it at once, and the token (kept) takes it
        back later. What a browser session does when its tab closes (or reloads)."""
        self._send(Away())
        self.closing = True

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

    @property
    def kept_tokens(self) -> tuple[str, ...]:
        """The remembered tokens for this table id besides the one we sit with, newest
        first: only refusals set them aside, and those prove nothing, so they are kept."""
        if self.table_id is None or self.table_id != self._remembered_table:
            return ()
        return tuple(t for t in self._remembered if t != self.token)

    @property
    def impostors(self) -> frozenset[tuple[str, int]]:
        """Addresses never to try again (a relocation must avoid them)."""
        return frozenset(self._impostors)

    # ---- a link's life ---------------------------------------------------------------------

    def opened(self, now: float, nonce: str | None = None) -> None:
        """A new link to `host`/`port` is open; the hello waits for the host's challenge,
        since its proofs must cover that challenge's nonce and ours (`nonce`)."""
        self._open, self._out = True, []
        self._last_heard, self._next_ping = now, 0.0
        self._challenge = nonce if nonce is not None else secrets.token_hex(NONCE_BYTES)
        self._proved_seat = None

    def closed(self) -> None:
        """The link is gone: nothing more goes out on it."""
        self._open, self._out = False, []

    def data_to_send(self) -> bytes:
        """The frames to write on the open link, in order (each taken once)."""
        data, self._out = b"".join(self._out), []
        return data

    def tick(self, now: float, wall: float) -> None:
        """The clock moved: ping every heartbeat, send again the moves the host could not
        record, and call the host dead after `dead_after` seconds of silence (or
        `connect_timeout` before the welcome, when the host owes us nothing yet)."""
        limit = self.dead_after if self.connected else self.connect_timeout
        silent = now - self._last_heard
        if silent > limit:
            raise Lost(_("No word from the host for {seconds} seconds.", seconds=round(silent)))
        if self.connected and now >= self._next_ping:
            self._send(Ping(t=wall))
            self._next_ping = now + self.heartbeat
        for action_id, due in list(self._resend_at.items()):
            if now >= due:
                del self._resend_at[action_id]
                message = self._unacked.get(action_id)
                if message is not None and self.connected:
                    self._send(message)

    def heard(self, now: float) -> None:
        """Bytes arrived: the host is alive."""
        self._last_heard = now

    def after(self, ended: BaseException | None, now: float) -> After:
        """A link ended (`ended`: why, None for the host closing it plainly): decide
        whether to stop or try again and when, and tell the player."""
        self.closed()
        reason = _("The host closed the connection.")
        if isinstance(ended, HostClosed | Moved | Refused):
            if self._lobby_seat_freed():
                self._rejoin_lobby()
                return AT_ONCE
            if self._reconnecting() and self.refusal != "impostor":
                # Coming back to our seat, a host that has proven nothing yet says no (or
                # "closed", "moved"): anyone can say that, so we keep trying.
                reason = self._not_believed(str(ended))
            elif isinstance(ended, HostClosed):
                self.connected = False
                self._emit(Disconnected(self.owner, str(ended), retrying=False, closed=True))
                return STOP
            elif isinstance(ended, Moved):
                self.connected = False
                moved = (ended.host, ended.port, ended.table_id)
                self._emit(Disconnected(self.owner, str(ended), retrying=False, moved=moved))
                return STOP
            elif self.refusal in UNPROVEN_REFUSALS and self._stored:
                self._next_remembered_or_newcomer()
                return AT_ONCE
            elif self._back_to_our_table():
                reason = f"{ended} {_(BACK_TO_OUR_TABLE)}"
            else:
                self._emit(Disconnected(self.owner, str(ended), retrying=False))
                return STOP
        elif ended is not None:
            reason = _reason(ended, self.host, self.port)
            self._keep_offered_key()
        if self.closing:
            return STOP
        if self.connected or self._lost_at is None:
            self._attempt, self._lost_at = 0, now
        self.connected = False
        # A seat comes back with its token; a spectator only to a table that let it watch
        # in this run (an address with no table there is not a loss).
        watched = self.watch and self._table_at is not None
        if not self.reconnect or (self.token is None and not watched):
            self._emit(Disconnected(self.owner, reason, retrying=False))
            return STOP
        trying_for = now - self._lost_at
        if trying_for >= self.give_up_after:
            minutes = max(1, round(self.give_up_after / 60))
            self._emit(
                Disconnected(
                    self.owner, _gave_up(minutes, self.watch), retrying=False, trying_for=trying_for
                )
            )
            return STOP
        delay = backoff_delay(self._attempt)
        self._emit(
            Disconnected(self.owner, reason, retrying=True, delay=delay, trying_for=trying_for)
        )
        self._attempt += 1
        relocate = bool(self.table_id) and self._attempt % 3 == 0
        return After(stop=False, delay=delay, relocate=relocate)

    def relocated(self, found: tuple[str, int] | None) -> None:
        """The table was looked up by its id: go there next, unless it is an impostor."""
        if found is not None and found not in self._impostors:
            self.host, self.port = found

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
        """This link was refused before any welcome while coming back to the seat a host
        welcomed us to in this run."""
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

    # ---- frames in -------------------------------------------------------------------------

    def receive(self, payload: dict[str, Any], now: float) -> None:
        """One decoded frame from the host. Raises `Refused`, `Lost`, `HostClosed` or
        `Moved` when it ends the link (`after` says what follows)."""
        try:
            message = parse_host_message(payload)
        except ProtocolError as exc:
            if payload.get("type") == "state":
                said = _("The host sent a bad table: {reason}", reason=str(exc))
            else:
                said = _("The host sent a bad message: {reason}", reason=str(exc))
            self._emit(HostError(self.owner, "bad_host", said, False))
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
            self._error(message, now)
        elif isinstance(message, Reacted):
            reaction = reaction_of(message.reaction)
            if reaction is not None:  # one from a newer pitchnet is left out
                self._emit(ReactionHeard(self.owner, reaction, message.seat, message.name))
        elif isinstance(message, ReclaimAsked | ReclaimStatus):
            self._emit(Reclaiming(self.owner, message))
        elif isinstance(message, Bye):
            _said_bye(message)

    def _answer(self, challenge: Challenge) -> None:
        """Send `hello`, proving the seat token and the password over the host's nonce
        (neither is sent: what this host receives is no use on another connection)."""
        if self._proved_seat is not None or self.connected:
            return  # one hello per link
        token = None if self.watch else self.token  # a spectator proves no seat
        table = self._claimed_table = challenge.table_id
        self._proved_seat = (token, table) if token else ("", table)
        if token is None and not self.watch:  # a newcomer offers its own seat token
            self._proposed = self.make_key(SEAT_KEY_BYTES)
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
        self._emit(Welcomed(self.owner, welcome, note))
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
        self._emit(StateReceived(self.owner, state.seq, state.table, view, events))

    def _error(self, error: ErrorMsg, now: float) -> None:
        unrecorded = error.code == "journal" and not error.fatal
        if unrecorded and error.id in self._unacked:
            # Not refused, only not recorded: the move stays pending and goes again, so
            # every client (bot, terminal, browser) goes on once the host can write.
            self._resend_at[error.id] = now + JOURNAL_RESEND
        elif error.id is not None:
            self._unacked.pop(error.id, None)
        said = error_words(error)
        self._emit(HostError(self.owner, error.code, said, error.fatal))
        if error.fatal:
            self.refusal = error.code  # the token stays: a refusal proves nothing (`after`)
            raise Refused(said)

    # ---- frames out ------------------------------------------------------------------------

    def _send(self, message: Message) -> None:
        if self._open:
            self._out.append(message.encode())

    def _emit(self, message: News) -> None:
        if not self.closing:
            self._post(message)


def _said_bye(message: Bye) -> None:
    """The host's goodbye, as the exception that ends the link."""
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


def _gave_up(minutes: int, watching: bool) -> str:
    """The last word after trying for the give-up time: the table could not be reached,
    which says nothing of whose network failed (it may be this player's own Wi-Fi, and
    the table still playing), so it never says the table went away."""
    if watching:
        return ngettext(
            "Stopped trying after {n} minute: the table could not be reached. "
            "Watch it again from the finder when it shows there.",
            "Stopped trying after {n} minutes: the table could not be reached. "
            "Watch it again from the finder when it shows there.",
            minutes,
        )
    return ngettext(
        "Stopped trying after {n} minute: the table could not be reached. Your "
        "seat is remembered; join the table again from the finder when it "
        "shows there.",
        "Stopped trying after {n} minutes: the table could not be reached. Your "
        "seat is remembered; join the table again from the finder when it "
        "shows there.",
        minutes,
    )


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
