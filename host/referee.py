"""The referee: the protocol's own rules for one table, as a sans-IO state machine.

The `Table` decides the game; the referee decides everything about the connections
around it: what a connection may send before and after `hello`, pings and silence,
strikes and rate limits, acks and duplicate ids, `leave`, takeover by token, grace
periods and stand-ins, when bots act, and the broadcast of snapshots after every
change. Like h11's `Connection` it never touches a socket, a clock, a task or asyncio:
it is told what happened and when, and answers with what to do.

One action, end to end (`host/server.py` is the adapter that carries it out):

1. The loop hands the adapter bytes; `read_frames` feeds them to the connection's
   `FrameDecoder` and parses each complete frame (`parse_client_message`), turning a
   bad frame into its `ProtocolError` rather than raising.
2. The adapter calls `referee.handle(conn, Received(items, pending), now)` once per read.
3. The referee checks each item against the connection's phase (`Phase`): before the
   handshake only `hello`, `ping` and `pong`; once seated, actions go to the table's
   command (`dispatch.act`, host/dispatch.py) after the rate limit. A refusal becomes
   an `error` frame (and a strike, or a close); an applied action becomes the sender's
   `ack` plus one broadcast: a `state` frame for every seated connection (packed by
   host/snapshots.py), the ack riding in the sender's write.
4. It returns a list of effects (`Send`, `Close`, `Abort`, `Changed`), in order; the
   adapter writes, closes or aborts exactly as told, and tells its listeners and the
   advert about a `Changed`.
5. The adapter reads `referee.next_deadline` and keeps ONE timer at it; when it
   fires it calls `referee.wake(now)`, which does whatever has come due (pings,
   silence, handshake and partial-frame deadlines, cutting connections that did not
   drain, grace periods, bot turns) and returns effects the same way.

Where new rules go: a new client message kind is a branch in `_act` (seated) or
`_handshake` (before hello); a new per-connection rule is a field on `Peer` and a check
in `_receive_one`; a new deadline is a field (on `Peer` or the referee), a line in
`next_deadline` and a branch in `wake`.
"""

from __future__ import annotations

import logging
import math
import secrets
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from typing import Any, TypeVar

from host import dispatch, reclaims
from host.journal import JournalError
from host.limits import Arrivals, Guesses, Limits, RateLimiter, RefusalLog, address_key
from host.snapshots import Snapshots
from host.strikes import is_strike
from host.table import BotTurn, Table
from pitchnet.events import Dealt, MatchWon, TrickWon
from pitchnet.events import Event as TableEvent
from pitchnet.protocol import (
    NONCE_BYTES,
    PROTOCOL_VERSION,
    Ack,
    Away,
    Bye,
    Challenge,
    ErrorMsg,
    FrameDecoder,
    Hello,
    Leave,
    Message,
    Ping,
    Pong,
    ProtocolError,
    Purpose,
    React,
    Reacted,
    Reclaim,
    ReclaimAsked,
    ReclaimStatus,
    SeatKind,
    Sit,
    TableState,
    Vouch,
    Welcome,
    parse_client_message,
    prove,
)
from pitchnet.reactions import reaction_of
from pitchnet.rules import Action, RulesError
from pitchnet.text import player_name

log = logging.getLogger("pitchnet.host")

Admitted = TypeVar("Admitted")


class Refused:
    """What `Referee._admitted` returns for a hello it refused (the refusal is sent)."""


REFUSED = Refused()

HEARTBEAT = 1.0
"""Seconds between the host's pings; a peer silent for `Limits.dead_after` is gone."""

SLOW_DOWN = "Too many messages; slow down."
WHY_LATE, WHY_ORDER = {"why": "late"}, {"why": "order"}
"""The two cases of a "handshake" refusal (no hello in time; something else first)."""
DOWN = {"why": "down"}
"""A "journal" refusal before the handshake: the host cannot record the game now."""
Params = dict[str, Any] | None
"""An error's or a bye's parameters (`ErrorMsg.params`)."""
JOURNAL_RETRY = 1.0
"""Seconds between retries of the host's own changes while its journal cannot write."""
CLOSED_ON_PURPOSE = "The host closed the table."
INFINITY = float("inf")


# ---- what the adapter tells the referee ------------------------------------------------------
#
# These and the effects below are plain values passed one way and read once, so they
# are not frozen: a frozen dataclass's `__init__` sets each field through
# `object.__setattr__`, which made building the five or so of them a move cost 2.5
# times as much. Neither side changes one after making it.


@dataclass(slots=True)
class Opened:
    """A connection was accepted; `peer` is its "address:port"."""

    peer: str


@dataclass(slots=True)
class Received:
    """What one read produced: the complete frames, parsed (a frame that could not be
    read is its `ProtocolError`, in its place), and how many bytes of an unfinished
    frame the decoder still holds."""

    items: Sequence[Message | ProtocolError]
    pending: int = 0


@dataclass(slots=True)
class Closed:
    """The connection is gone (either end closed it, it dropped, or it was aborted);
    `error` says why when the transport reported one."""

    error: str | None = None


Event = Opened | Received | Closed


def read_frames(decoder: FrameDecoder, data: bytes) -> Received:
    """Feed `data` to a connection's decoder and parse what it completes: the one step
    from bytes to `Received`, shared by the adapter and the tests. Nothing raises: a
    frame that cannot be read becomes its `ProtocolError` (a framing error ends the
    list, since the decoder has dropped what it held)."""
    items: list[Message | ProtocolError] = []
    try:
        for payload in decoder.feed(data):
            try:
                items.append(parse_client_message(payload))
            except ProtocolError as exc:
                items.append(exc)
    except ProtocolError as exc:  # framing: always fatal
        items.append(exc)
    return Received(items, decoder.pending)


# ---- what the referee tells the adapter to do ------------------------------------------------


@dataclass(slots=True)
class Send:
    """Write these (whole, already encoded) frames to `conn`."""

    conn: int
    data: bytes


@dataclass(slots=True)
class Close:
    """Close `conn` once what is queued for it has been sent (`code` says why: the frame
    before it, an error or a bye, told the peer). If it has not gone within
    `Limits.close_grace` the referee follows up with an `Abort`."""

    conn: int
    code: str


@dataclass(slots=True)
class Abort:
    """Cut `conn` at once, sending nothing more (refused at the door, silent, or not
    draining)."""

    conn: int
    reason: str


@dataclass(slots=True)
class Changed:
    """The table changed and its snapshots were sent; `events` are what happened."""

    events: list[TableEvent]


@dataclass(slots=True)
class Seated:
    """`conn` has been welcomed, at a seat or to watch: from now on its frames may be as
    large as a player's (`MAX_CLIENT_FRAME`), with a player's decode budget."""

    conn: int


@dataclass(slots=True)
class Think:
    """Let this bot decide away from the event loop (it thinks for tenths of a second),
    then hand its decision to `Referee.thought`."""

    turn: BotTurn


Effect = Send | Close | Abort | Changed | Seated | Think


# ---- one connection, as the referee sees it --------------------------------------------------


class Phase(StrEnum):
    """Where a connection is in its life. Which messages each phase accepts:

    - HANDSHAKE: `hello` (seats it), `ping` (answered), `pong` (ignored); anything else,
      and any error, is fatal.
    - SEATED: actions, `leave`, `ping`, `pong`; a bad message is a strike.
    - CLOSING: nothing (the referee has closed or cut it; what it still sends is dropped).
    """

    HANDSHAKE = "handshake"
    SEATED = "seated"
    CLOSING = "closing"


@dataclass(slots=True)
class Peer:
    """The referee's record of one connection. Only the referee writes it."""

    id: int
    label: str
    """"address:port", for the log."""
    address: str
    opened: float
    rate: RateLimiter
    phase: Phase = Phase.HANDSHAKE
    seat: int | None = None
    """The seat this connection acts for; None before hello and after leave/takeover."""
    welcomed: bool = False
    strikes: int = 0
    last_heard: float = 0.0
    next_ping: float = 0.0
    frame_started: float | None = None
    """When the unfinished frame the decoder holds began (None: nothing pending)."""
    cut_at: float | None = None
    """CLOSING after a `Close`: when to `Abort` it if it has not gone by then."""
    spectator: bool = False
    """Watching without a seat (SEATED, `seat` None): gets the spectators' frame of every
    broadcast, may not act, and is cut like any connection that floods or does not read."""
    reactions: RateLimiter | None = None
    """This connection's `react` bucket (`Limits.reactions_per_second`), made at its first."""
    nonce: str = ""
    """The challenge sent to this connection: its `hello`'s proofs must cover it."""
    name: str = ""
    """The name a watcher gave (shown to those asked to vouch for its `reclaim`)."""
    refused_seats: set[int] = field(default_factory=set)
    """Seats this connection asked back and was refused: it may not ask again."""


# ---- the referee -----------------------------------------------------------------------------


@dataclass
class Pacing:
    """How fast bots act: `bot_delay` before each bid or card, `trick_pause` before a bot
    leads after a finished trick (so a person can see the trick)."""

    bot_delay: float = 0.6
    trick_pause: float = 1.5


class Referee:
    """The protocol's rules for one table. Feed it `handle(conn, event, now)` and
    `wake(now)`; carry out the effects they return; wake it at `next_deadline`.
    `journal` is the table's journal (the referee keeps its `finished` flag), or None."""

    def __init__(
        self,
        table: Table,
        limits: Limits | None = None,
        pacing: Pacing | None = None,
        journal: Any = None,
    ) -> None:
        self.table = table
        self.snapshots = Snapshots(table)
        """The table's state in the wire's form, packed for every broadcast."""
        self.limits = limits or Limits()
        self.pacing = pacing or Pacing()
        self.journal = journal
        self.peers: dict[int, Peer] = {}
        self.holders: dict[int, Peer] = {}
        """Seat -> the connection acting for it."""
        self.grace_until: dict[int, float] = {}
        """Seat -> when a bot stands in for its absent player."""
        self.bot_at: float | None = None
        self.thinking: BotTurn | None = None
        """The bot turn handed out in a `Think`, until its decision comes back."""
        self.shut = False
        self.journal_down: float | None = None
        """Since when the journal has failed to write (None: it writes)."""
        self.retry_at: float | None = None
        self.turn_since = 0.0
        """When the turn of the person now to act began (the turn timer counts from it)."""
        self._turn: tuple[int, int, int] | None = None
        """That turn (`Table.person_turn`); None when no person is to act or no timer."""
        self._turn_spent: tuple[int, int, int] | None = None
        """A turn whose timer has run out already (its one bot move is under way)."""
        self._now = 0.0
        self._writes_when_down = 0
        self.arrivals = Arrivals(self.limits.connects_per_second, self.limits.connect_burst)
        self.refusals = RefusalLog()
        """Refused connections, logged one line per address per interval."""
        self.guesses = Guesses()
        """Wrong passwords per address: each one past the first few doubles the wait."""
        self._soonest = INFINITY
        """No later than the earliest deadline (see `_due`)."""
        self._out: list[Effect] = []
        self.reclaims: dict[int, reclaims.Request] = {}
        """Seat -> a watcher's pending request to take it back (host/reclaims.py)."""
        self.reclaim_quiet: dict[int, float] = {}
        """Seat -> until when nobody may ask for it (after a refusal by a person or by
        silence), so that asking again and again cannot keep a dialog on the others'
        screens."""

    # ---- inputs ------------------------------------------------------------------------------

    def start(self, now: float, stand_in: Collection[int] = ()) -> list[Effect]:
        """The table opens: after a resume every human is away until they reconnect, so
        each gets a grace period, but for the seats in `stand_in`, whose players went on
        purpose (the hosting window kept the table running): a bot plays those at once.
        Then a first broadcast (bots may be due)."""
        self._now = now
        self.table.open(now)
        self.table.take_rotation()  # seats rotated before the referee: no one to move yet
        if self.table.state == TableState.PLAYING:
            for seat in range(len(self.table.seats)):
                if seat in stand_in:
                    self._guarded(self.table.substitute_absent, seat)
        self._grace_for_the_away(now)
        self._broadcast(now)
        return self._flush()

    def handle(self, conn: int, event: Event, now: float) -> list[Effect]:
        """One thing that happened to connection `conn` at time `now`."""
        self._at(now)
        if type(event) is Received:
            peer = self.peers.get(conn)
            if peer is not None and peer.phase is not Phase.CLOSING:
                self._received(peer, event, now)
        elif type(event) is Opened:
            self._opened(conn, event.peer, now)
        elif type(event) is Closed:
            self._closed(conn, event.error, now)
        return self._flush()

    def wake(self, now: float) -> list[Effect]:
        """Do whatever has come due by `now`."""
        self._at(now)
        limits = self.limits
        for peer in list(self.peers.values()):
            if peer.phase is Phase.CLOSING:
                if peer.cut_at is not None and peer.cut_at <= now:
                    peer.cut_at = None
                    self._out.append(Abort(peer.id, "did not drain after being closed"))
                continue
            # The handshake and partial-frame deadlines: the earlier one, if it is due.
            hello_by = peer.opened + limits.handshake_seconds
            if peer.phase is not Phase.HANDSHAKE:
                hello_by = INFINITY
            started = peer.frame_started
            frame_by = INFINITY if started is None else started + limits.partial_frame_seconds
            if min(hello_by, frame_by) <= now:
                if hello_by <= frame_by:
                    self._refuse(peer, "handshake", "No hello in time.", now, WHY_LATE)
                else:
                    self._refuse(peer, "slow_frame", "A frame arrived too slowly.", now)
                continue
            if peer.phase is Phase.SEATED and peer.last_heard + limits.dead_after <= now:
                log.info("%s silent for %.0f s; dropping it", peer.label, limits.dead_after)
                self._abort(peer, "silent")
                continue
            if peer.next_ping <= now:
                self._ping(peer, now)
        for seat, until in list(self.grace_until.items()):
            if until <= now:
                del self.grace_until[seat]
                if self._guarded(self.table.substitute_absent, seat):
                    log.info(
                        "seat %d is away past the grace period; a bot plays it at the "
                        "table's level, %s",
                        seat,
                        self.table.options.bot_level,
                    )
                    self._broadcast(now)
        if self.retry_at is not None and self.retry_at <= now:
            self.retry_at = None
            self._retry(now)
        if self.bot_at is not None and self.bot_at <= now:
            self.bot_at = None
            turn = None if self.shut else self.table.bot_turn()
            if turn is not None and turn.bot.thinks_long:
                self.thinking = turn
                self._out.append(Think(turn))
            elif turn is not None and self._guarded(
                self.table.play_bot_turn, turn, turn.bot.decide(turn.view)
            ):
                self._broadcast(now)
        ready_by = None if self.shut else self.table.ready_deadline()
        if ready_by is not None and ready_by <= now and self._guarded(self.table.ready_expired):
            log.info("table %s: the ready limit passed; dealing on", self.table.id)
            self._broadcast(now)
        turn_by = self._turn_deadline()
        if turn_by is not None and turn_by <= now:
            self._time_out(now)
        for seat, request in list(self.reclaims.items()):
            if request.until <= now:
                why = "Nobody confirmed it in time."
                name = self.table.seats[seat].name
                self._end_reclaim(seat, reclaims.refused(name, why, "timeout"))
                self.reclaim_quiet[seat] = now + reclaims.QUIET
        self._soonest = self._earliest()
        return self._flush()

    def _turn_deadline(self) -> float | None:
        """When the person now to act runs out of time (None: no timer, nobody, or their
        one bot move is under way already)."""
        if self.shut or self._turn is None or self._turn == self._turn_spent:
            return None
        return self.turn_since + self.table.options.turn_timer

    def _note_turn(self, now: float) -> None:
        """After every change: a new person's turn starts its timer now."""
        turn = self.table.person_turn()
        if turn != self._turn:
            self._turn, self.turn_since = turn, now
            if turn is not None:
                self._due(now + self.table.options.turn_timer)

    def _time_out(self, now: float) -> None:
        """The turn timer ran out: a bot of the table's level makes this one move for the
        person (the seat stays theirs; everyone's log says so). A bot that thinks long
        thinks off the loop, as a bot's own turn does."""
        self._turn_spent = self._turn
        turn = self.table.overdue_turn()
        if turn is None:
            return
        log.info("seat %d's turn timer ran out; a bot makes this one move", turn.seat)
        if turn.bot.thinks_long:
            self.thinking = turn
            self._out.append(Think(turn))
        elif self._guarded(self.table.play_bot_turn, turn, turn.bot.decide(turn.view)):
            self._broadcast(now)

    def thought(self, turn: BotTurn, action: Action, now: float) -> list[Effect]:
        """A bot that was told to `Think` has decided. Its action is applied if the turn
        is still its own (its player may have come back meanwhile); otherwise it is
        dropped, and whichever bot is due now gets its turn after the usual delay."""
        self._at(now)
        if self.thinking is turn:
            self.thinking = None
        if not self.shut:
            if self._guarded(self.table.play_bot_turn, turn, action):
                self._broadcast(now)
            elif (
                self.bot_at is None
                and self.thinking is None
                and self.table.bot_to_act() is not None
            ):
                self.bot_at = now + self.pacing.bot_delay
                self._due(self.bot_at)
        return self._flush()

    def shutdown(
        self,
        now: float,
        *,
        on_purpose: bool = False,
        moved_to: tuple[str, str] | None = None,
    ) -> list[Effect]:
        """The host is stopping: every connection is told `bye` and closed; nothing new
        is let in, no bot acts and no grace period runs out any more. `on_purpose`: the
        host's person ended the table ("closed": clients stop trying and go back to
        the finder); otherwise clients are told it will be back ("shutdown": retry)."""
        self._at(now)
        self.shut = True
        self.bot_at = None
        self.thinking = None
        self.grace_until.clear()
        self.reclaims.clear()  # everyone is told bye below; no question outlives the table
        if moved_to is not None:
            address, table_id = moved_to
            bye = Bye(
                reason=f"This table joined an older one on the network, at {address}; "
                "moving you there.",
                code="moved",
                address=address,
                table_id=table_id,
            )
        elif on_purpose:
            bye = Bye(reason=CLOSED_ON_PURPOSE, code="closed")
        else:
            bye = Bye(reason="The host is restarting the table; it will be back.")
        for peer in self.peers.values():
            if peer.phase is not Phase.CLOSING:
                self._send(peer, bye)
                self._close(peer, bye.code, now)
        return self._flush()

    @property
    def next_deadline(self) -> float | None:
        """When to call `wake` next (None: nothing is pending). It may be early, never
        late: a deadline that moves later (the silence limit, on every read) is only
        caught up with at the next `wake`, so that no read pays for a full scan."""
        return None if self._soonest == INFINITY else self._soonest

    def _due(self, when: float) -> None:
        """Note a new deadline (every place that sets one calls this)."""
        if when < self._soonest:
            self._soonest = when

    def _earliest(self) -> float:
        limits = self.limits
        times = [*self.grace_until.values(), *(r.until for r in self.reclaims.values())]
        if self.retry_at is not None:
            times.append(self.retry_at)
        if self.bot_at is not None:
            times.append(self.bot_at)
        ready_by = None if self.shut else self.table.ready_deadline()
        if ready_by is not None:
            times.append(ready_by)
        turn_by = self._turn_deadline()
        if turn_by is not None:
            times.append(turn_by)
        for peer in self.peers.values():
            if peer.phase is Phase.CLOSING:
                if peer.cut_at is not None:
                    times.append(peer.cut_at)
                continue
            times.append(peer.next_ping)
            if peer.phase is Phase.HANDSHAKE:
                times.append(peer.opened + limits.handshake_seconds)
            else:
                times.append(peer.last_heard + limits.dead_after)
            if peer.frame_started is not None:
                times.append(peer.frame_started + limits.partial_frame_seconds)
        return min(times, default=INFINITY)

    # ---- what the referee knows, for the adapter's log and the tests -------------------------

    def seated(self) -> dict[int, int]:
        """Seat -> the connection acting for it."""
        return {seat: peer.id for seat, peer in self.holders.items()}

    def unseated(self) -> list[int]:
        """Connections not (yet) welcomed at a seat."""
        return [peer.id for peer in self.peers.values() if not peer.welcomed]

    # ---- connections come and go -------------------------------------------------------------

    def _opened(self, conn: int, label: str, now: float) -> None:
        address = address_key(label.rsplit(":", 1)[0])
        limits = self.limits
        refusal = None
        if self.shut:
            refusal = "the host is shutting down"
        elif not self.arrivals.allow(address, now):
            refusal = "connecting too often"
        else:
            # At a cap, the connection that has waited longest without saying hello
            # makes room (strangers cannot keep a returning player out), if there is one.
            for mine in (False, True):
                crowd = [p for p in self.peers.values() if not mine or p.address == address]
                cap = limits.max_per_address if mine else limits.max_connections
                what = f"too many connections from {address}" if mine else "too many connections"
                if len(crowd) < cap:
                    continue
                waiting = [p for p in crowd if p.phase is Phase.HANDSHAKE]
                if not waiting:
                    refusal = what
                    break
                oldest = min(waiting, key=lambda p: p.opened)
                text = f"cutting {oldest.label}: it said no hello, and {what}"
                line = self.refusals.line(oldest.address, text, now)
                if line is not None:
                    log.warning("%s", line)
                self._abort(oldest, "made room")
                del self.peers[oldest.id]
        if refusal is not None:
            line = self.refusals.line(address, f"refusing {label}: {refusal}", now)
            if line is not None:
                log.warning("%s", line)
            self._out.append(Abort(conn, refusal))  # never a peer: its close is not news
            return
        log.info("connection from %s", label)
        rate = RateLimiter(limits.messages_per_second, limits.burst, now)
        peer = Peer(conn, label, address, now, rate, last_heard=now)
        self.peers[conn] = peer
        self._due(now + limits.handshake_seconds)
        peer.nonce = secrets.token_hex(NONCE_BYTES)
        self._send(peer, Challenge(PROTOCOL_VERSION, peer.nonce, self.table.id))
        self._ping(peer, now)

    def _closed(self, conn: int, error: str | None, now: float) -> None:
        peer = self.peers.pop(conn, None)
        if peer is None:
            return  # refused at the door, and logged as refused
        if error is not None:
            log.info("%s is gone: %s", peer.label, error)
        else:
            log.info("%s closed", peer.label)
        self._forget_in_reclaims(peer)
        if peer.spectator:
            self.table.spectators = sum(p.spectator for p in self.peers.values())
            self._broadcast(now)
            return
        seat = peer.seat
        if seat is None or self.holders.get(seat) is not peer:
            return
        del self.holders[seat]
        if self.shut:
            # The host is going: a seat is not given up because its link closes now (a
            # lobby would free it, and a table handed to a background host would lose it).
            return
        log.info("seat %d (%s) disconnected", seat, self.table.seats[seat].name)
        claimed = self.table.claimed(seat)
        self._guarded(self.table.disconnected, seat)
        if not claimed:  # a newcomer who had not sat down yet leaves the seat to its bot
            self._start_grace(seat, now)
        self._broadcast(now)

    # ---- frames in ---------------------------------------------------------------------------

    def _received(self, peer: Peer, event: Received, now: float) -> None:
        peer.last_heard = now
        for item in event.items:
            try:
                self._receive_one(peer, item, now)
            except JournalError as exc:
                self._journal_failed(exc, now)
                self._refuse(
                    peer, "journal", "The host cannot record the game right now.", now, DOWN
                )
            except Exception:
                log.exception("unexpected error on %s", peer.label)
                self._abort(peer, "unexpected error")
            if peer.phase is Phase.CLOSING:
                return  # the rest of a closing peer's frames are dropped
        if not event.pending:
            peer.frame_started = None
        elif event.items or peer.frame_started is None:
            peer.frame_started = now  # what is left is a new frame, started now
            self._due(now + self.limits.partial_frame_seconds)

    def _receive_one(self, peer: Peer, item: Message | ProtocolError, now: float) -> None:
        if peer.phase is Phase.SEATED:
            if isinstance(item, ProtocolError):
                if item.fatal:
                    self._refuse(peer, item.code, item.message, now, item.params)
                else:
                    self._refused(peer, item.code, item.message, now, params=item.params)
                return
            action_id: int | None = getattr(item, "id", None)
            if not peer.rate.allow(now):
                self._refused(peer, "rate_limited", SLOW_DOWN, now, action_id)
                return
            self._act(peer, item, action_id, now)
            return
        # Before the handshake every error is fatal.
        if isinstance(item, ProtocolError):
            self._refuse(peer, item.code, item.message, now, item.params)
        elif not peer.rate.allow(now):
            self._refuse(peer, "rate_limited", SLOW_DOWN, now)
        else:
            self._handshake(peer, item, now)

    def _handshake(self, peer: Peer, message: Message, now: float) -> None:
        if isinstance(message, Hello):
            self._seat(peer, message, now)
        elif isinstance(message, Ping):
            self._send(peer, Pong(t=message.t))
        elif not isinstance(message, Pong):  # a pong may cross the client's hello
            self._refuse(peer, "handshake", "The first message must be hello.", now, WHY_ORDER)

    def _watch(self, peer: Peer, hello: Hello, now: float, guessing: bool) -> None:
        """A spectator: checked like a player (version, table, password, the same
        password limiter), seated nowhere."""
        table = self.table
        check = self._admitted(peer, now, guessing, partial(dispatch.check_watcher, table, hello))
        if isinstance(check, Refused):
            return
        watchers = [p for p in self.peers.values() if p.spectator]
        mine = sum(p.address == peer.address for p in watchers)
        if (
            len(watchers) >= self.limits.max_watchers
            or mine >= self.limits.max_watchers_per_address
        ):  # the room left is the seated players' to come back to
            text = "This table has as many watchers as it takes; try again later."
            self._refuse(peer, "no_spectators", text, now, {"why": "full"})
            return
        peer.phase, peer.welcomed, peer.spectator = Phase.SEATED, True, True
        peer.name = player_name(hello.name, "someone")  # shown to those asked to vouch
        self._out.append(Seated(peer.id))  # a welcomed connection's limits, as a player's
        table.spectators = sum(p.spectator for p in self.peers.values())
        log.info("%s watches the table as %r", peer.label, hello.name[:24])
        welcome = Welcome(
            version=PROTOCOL_VERSION,
            table_id=table.id,
            table_name=table.name,
            seat=0,
            heartbeat=HEARTBEAT,
            spectator=True,
        )
        self._send(peer, welcome)
        if table.loss is not None:  # the same sentence players hear with their welcome
            self._send(peer, ErrorMsg(code="journal_loss", message=table.loss))
        self._broadcast(now)

    def _admitted(
        self, peer: Peer, now: float, guessing: bool, check: Callable[[str], Admitted]
    ) -> Admitted | Refused:
        """`check(nonce)` for a hello (a watcher's check, or a player's join), through the
        one password limiter: a refusal is sent, and a wrong password counts against its
        address; a password given right clears that address's count."""
        try:
            admitted = check(peer.nonce)
        except ProtocolError as exc:
            if exc.code == "bad_password":
                self.guesses.wrong(peer.address, now)
            self._refuse(peer, exc.code, exc.message, now, exc.params)
            return REFUSED
        if guessing:
            self.guesses.right(peer.address)
        return admitted

    def _seat(self, peer: Peer, hello: Hello, now: float) -> None:
        table = self.table
        # A player's hello and a watcher's go through the same password limiter (a
        # watcher is always asked for the password; a player proving a seat is not).
        asked = hello.watch or not hello.seat_proof
        guessing = asked and table.options.password is not None
        if guessing:
            refusal = self.guesses.refusal(peer.address, now)
            if refusal is not None:  # the password is not even compared
                seconds = math.ceil(self.guesses.wait(peer.address, now))
                wait = {"why": "passwords", "seconds": seconds}
                self._refuse(peer, "rate_limited", refusal, now, wait)
                return
        if hello.watch:
            self._watch(peer, hello, now, guessing)
            return
        seat = self._admitted(peer, now, guessing, partial(dispatch.join, table, hello))
        if isinstance(seat, Refused):
            return
        old = self.holders.get(seat)
        if old is not None and old is not peer:
            log.info("seat %d taken over by %s", seat, peer.label)
            old.seat = None
            self._bye(old, "Your seat was taken over by a new connection.", "replaced", now)
        if not peer.welcomed:
            self._out.append(Seated(peer.id))
        peer.phase, peer.seat, peer.welcomed = Phase.SEATED, seat, True
        self._due(peer.last_heard + self.limits.dead_after)
        self.holders[seat] = peer
        self.grace_until.pop(seat, None)
        if seat in self.reclaims:
            name = table.seats[seat].name
            why = f"{name} came back on the device that sat there."
            self._end_reclaim(seat, reclaims.refused(name, why, "came_back"))
        log.info("%s sits at seat %d as %r", peer.label, seat, table.seat_name(seat))
        # A new player learns its token in this welcome (it has no other way to); one
        # that proved its token gets proof that this host knows it too, never the token.
        proven = bool(hello.seat_proof)
        if proven:
            self._check_progress(peer, hello.seen)
        self._welcome(peer, seat, send_token=not proven, answer=hello.challenge if proven else None)
        self._broadcast(now)

    def _check_progress(self, returning: Peer, seen: Any) -> None:
        """A returning client that saw a later point of the game than the table holds
        proves the host lost part of its record: say so to the operator (the log) and to
        everyone here (the returning player hears it with its welcome)."""
        table = self.table
        before = table.loss
        sentence = table.behind(seen)
        if sentence is None or sentence == before:
            return
        log.warning(
            "table %s lost part of its record: %s had seen the game at %s (match, hand, "
            "over, step), the journal holds %s; playing on from what it holds",
            table.id,
            returning.label,
            list(seen),
            list(table.progress()),
        )
        for peer in self.peers.values():
            if peer is not returning and peer.phase == Phase.SEATED:
                self._send(peer, ErrorMsg(code="journal_loss", message=sentence))

    def _welcome(
        self, peer: Peer, seat: int, *, send_token: bool = False, answer: str | None = None
    ) -> None:
        """Tell `peer` its seat: with the token only if `send_token` (a new player), and
        with the host's proof of the token over the client's nonce `answer`, if given."""
        table = self.table
        token = table.token_of(seat)
        welcome = Welcome(
            version=PROTOCOL_VERSION,
            table_id=table.id,
            table_name=table.name,
            seat=seat,
            heartbeat=HEARTBEAT,
            token=token if send_token else None,
            last_id=table.seats[seat].last_id,
            proof=prove(token, answer, table.id, Purpose.HOST) if answer else None,
        )
        self._send(peer, welcome)
        if table.loss is not None:  # resumed from a journal that had lost entries
            self._send(peer, ErrorMsg(code="journal_loss", message=table.loss))

    def _act(self, peer: Peer, message: Message, action_id: int | None, now: float) -> None:
        """A seated connection's message, within its rate."""
        if isinstance(message, Ping):
            self._send(peer, Pong(t=message.t))
            return
        if isinstance(message, Pong):
            return
        if isinstance(message, React):
            self._react(peer, message, now)
            return
        if isinstance(message, Away):
            self._step_away(peer, now)
            return
        if peer.spectator and isinstance(message, Reclaim):
            self._ask_reclaim(peer, message.seat, now)
            return
        if not peer.spectator and isinstance(message, Vouch):
            self._vouch(peer, message, now)
            return
        if peer.spectator:
            if isinstance(message, Leave):
                self._bye(peer, "You stopped watching.", "left", now, {"why": "watching"})
            else:
                why = "You are watching this table; take a seat to play."
                self._refused(peer, "watching", why, now, action_id)
            return
        seat = peer.seat
        assert seat is not None
        try:
            applied = dispatch.act(self.table, seat, message)
        except (RulesError, ProtocolError) as exc:
            self._refused(peer, exc.code, exc.message, now, action_id, exc.params)
            return
        except JournalError as exc:
            self._journal_failed(exc, now)
            why = "The host could not record that; try again."
            self._refused(peer, "journal", why, now, action_id, {"why": "retry"})
            return
        ack = Ack(id=action_id, duplicate=not applied).encode() if action_id is not None else b""
        if isinstance(message, Leave):
            if ack:
                self._out.append(Send(peer.id, ack))
            # The seat is no longer this connection's (a bot has it, or it is free).
            del self.holders[seat]
            peer.seat = None
            self._bye(peer, "You left the table.", "left", now)
            self._broadcast(now)
        elif applied and isinstance(message, Sit):
            # A lobby seat move: this connection now holds the new seat, and is
            # welcomed to it (the welcome is how a client learns its seat).
            del self.holders[seat]
            self.holders[message.seat] = peer
            peer.seat = message.seat
            if ack:
                self._out.append(Send(peer.id, ack))
            self._welcome(peer, message.seat)
            self._broadcast(now)
        elif applied:
            self._broadcast(now, lead=(peer, ack))  # the ack rides with the new state
        elif ack:
            self._out.append(Send(peer.id, ack))

    def _react(self, peer: Peer, message: React, now: float) -> None:
        """Relay a reaction to everyone at the table, or refuse it: an unknown id (a
        strike), a table or a watcher not allowed to, or past the reaction rate (dropped,
        no strike). Nothing is journaled and the game's state does not change."""
        options = self.table.options
        reaction = reaction_of(message.reaction)
        if reaction is None:
            said = "That is not a reaction this table knows."
            self._refused(peer, "bad_message", said, now, params={"why": "reaction"})
            return
        if not options.reactions:
            self._refused(peer, "no_reactions", "This table has reactions turned off.", now)
            return
        if peer.spectator and not options.spectator_reactions:
            why = "Watchers may not send reactions at this table."
            self._refused(peer, "watching", why, now, params={"why": "reactions"})
            return
        if peer.reactions is None:
            limits = self.limits
            peer.reactions = RateLimiter(limits.reactions_per_second, limits.reaction_burst, now)
        if not peer.reactions.allow(now):
            self._refused(peer, "reaction_limit", "Too many reactions; wait a moment.", now)
            return
        seat = peer.seat
        name = "A watcher" if seat is None else self.table.seats[seat].name
        frame = Reacted(reaction=str(reaction), name=name, seat=seat).encode()
        for other in self.peers.values():
            if other.phase is Phase.SEATED and (other.seat is not None or other.spectator):
                self._out.append(Send(other.id, frame))

    # ---- a seat taken back on another device (host/reclaims.py) ------------------------------

    def _ask_reclaim(self, peer: Peer, seat: int, now: float) -> None:
        """A watcher asks for an away player's seat: ask the creator, if here, else every
        player here, to vouch; or refuse at once, saying why."""
        table = self.table
        if not table.reclaimable(seat):
            why = "That seat's player is not away, so it is not free to take back."
            self._send(peer, ReclaimStatus(seat, "refused", why, {"why": "not_away"}))
            return
        name = table.seats[seat].name
        said: reclaims.Said | None = None
        quiet = self.reclaim_quiet.get(seat, 0.0) - now
        if seat in peer.refused_seats:
            why = f"You were refused {name}'s seat already."
            said = reclaims.refused(name, why, "refused_before")
        elif seat in self.reclaims:
            why = f"Someone else is already asking for {name}'s seat."
            said = reclaims.refused(name, why, "asked_already")
        elif quiet > 0:
            why = f"{name}'s seat was just refused to someone; ask again in {quiet:.0f} s."
            said = reclaims.refused(name, why, "quiet", seconds=round(quiet))
        if said is not None:
            self._send(peer, ReclaimStatus(seat, "refused", *said))
            return
        here = {s: p for s, p in self.holders.items() if p.phase is Phase.SEATED}
        creator = next(
            (s for s, p in here.items() if table.seats[s].token == table.creator_token), None
        )
        asked = [here[creator]] if creator is not None else list(here.values())
        if not asked:
            self._send(peer, ReclaimStatus(seat, "refused", *reclaims.nobody(name)))
            return
        request = reclaims.Request(seat, peer, asked, now + reclaims.WAIT)
        self.reclaims[seat] = request
        self._due(request.until)
        log.info("%s asks for seat %d (%r) back", peer.label, seat, name)
        side = table.settings.side_of(seat)
        points = table.match.scores[side] if table.match is not None else 0
        ask = ReclaimAsked(seat, name, peer.name, points, reclaims.WAIT)
        for person in asked:
            self._send(person, ask)
        who = table.seats[creator].name if creator is not None else None
        self._send(peer, ReclaimStatus(seat, "waiting", *reclaims.waiting(name, who)))

    def _vouch(self, peer: Peer, vouch: Vouch, now: float) -> None:
        request = self.reclaims.get(vouch.seat)
        if request is None or peer not in request.asked:
            self._error(peer, "reclaim_over", "That question was settled already.")
            return
        name = self.table.seats[vouch.seat].name
        if not vouch.yes:  # the first answer settles it, either way
            assert peer.seat is not None
            by = self.table.seats[peer.seat].name
            why = f"{by} said you are not {name}."
            self._end_reclaim(vouch.seat, reclaims.refused(name, why, "said_no", by=by))
            self.reclaim_quiet[vouch.seat] = now + reclaims.QUIET
            return
        claimant = request.claimant
        try:
            self.table.reclaim(vouch.seat)
        except ValueError:
            why = "The seat is no longer away."
            self._end_reclaim(vouch.seat, reclaims.refused(name, why, "back"))
            return
        except JournalError as exc:
            self._journal_failed(exc, now)
            self._error(peer, "journal", "The host could not record that; try again.")
            return
        self._end_reclaim(vouch.seat, reclaims.granted(name), status="granted")
        seat = vouch.seat
        log.info(
            "%s takes seat %d (%r) back, vouched for by %s", claimant.label, seat, name, peer.label
        )
        claimant.spectator, claimant.seat = False, seat
        self.table.spectators = sum(p.spectator for p in self.peers.values())
        self.holders[seat] = claimant
        self.grace_until.pop(seat, None)
        self._welcome(claimant, seat, send_token=True)
        self._broadcast(now)

    def _end_reclaim(
        self, seat: int, said: reclaims.Said | None, status: str = "refused", name: str = ""
    ) -> None:
        """Settle the request for `seat` (its player `name`, if not the seat's now): the
        claimant hears what was `said` (None: it is gone), the people asked that the
        question is over."""
        request = self.reclaims.pop(seat)
        if status == "refused":
            request.claimant.refused_seats.add(seat)
        if said is not None and self._open(request.claimant):
            self._send(request.claimant, ReclaimStatus(seat, status, *said))
        name = name or self.table.seats[seat].name
        over = ReclaimStatus(seat, "over", *reclaims.settled(name))
        for person in request.asked:
            if self._open(person):
                self._send(person, over)

    def _open(self, peer: Peer) -> bool:
        return self.peers.get(peer.id) is peer and peer.phase is not Phase.CLOSING

    def _forget_in_reclaims(self, gone: Peer) -> None:
        """A connection closed: its own request ends; if it was the last one asked to
        vouch, the request is refused."""
        for seat, request in list(self.reclaims.items()):
            if request.claimant is gone:
                self._end_reclaim(seat, None)
            elif gone in request.asked:
                request.asked.remove(gone)
                if not request.asked:
                    why = "The player asked to confirm it left."
                    name = self.table.seats[seat].name
                    self._end_reclaim(seat, reclaims.refused(name, why, "asked_left"))

    # ---- answers and closes ------------------------------------------------------------------

    def _send(self, peer: Peer, message: Message) -> None:
        self._out.append(Send(peer.id, message.encode()))

    def _error(
        self, peer: Peer, code: str, message: str, id: int | None = None, params: Params = None
    ) -> None:
        self._send(peer, ErrorMsg(code=code, message=message, id=id, params=params))

    def _refused(
        self,
        peer: Peer,
        code: str,
        message: str,
        now: float,
        id: int | None = None,
        params: Params = None,
    ) -> None:
        """Answer a seated connection's refused message: a strike or not by its code
        alone (host/strikes.py); too many strikes close the connection. `params` (with
        the code: the meaning each client words) as `ErrorMsg.params`."""
        if not is_strike(code):
            self._error(peer, code, message, id, params)
            return
        peer.strikes += 1
        fatal = peer.strikes >= self.limits.max_strikes
        self._send(peer, ErrorMsg(code=code, message=message, id=id, fatal=fatal, params=params))
        if fatal:
            log.warning("closing %s after %d bad messages", peer.label, peer.strikes)
            self._close(peer, code, now)

    def _refuse(
        self, peer: Peer, code: str, message: str, now: float, params: Params = None
    ) -> None:
        """A fatal error: say why, then close once it is sent."""
        log.info("%s refused: %s (%s)", peer.label, message, code)
        self._send(peer, ErrorMsg(code=code, message=message, fatal=True, params=params))
        self._close(peer, code, now)

    def _bye(self, peer: Peer, reason: str, code: str, now: float, params: Params = None) -> None:
        self._send(peer, Bye(reason=reason, code=code, params=params))
        self._close(peer, code, now)

    def _close(self, peer: Peer, code: str, now: float) -> None:
        peer.phase, peer.frame_started = Phase.CLOSING, None
        peer.cut_at = now + self.limits.close_grace
        self._due(peer.cut_at)
        self._out.append(Close(peer.id, code))

    def _abort(self, peer: Peer, reason: str) -> None:
        peer.phase, peer.frame_started, peer.cut_at = Phase.CLOSING, None, None
        self._out.append(Abort(peer.id, reason))

    def _step_away(self, peer: Peer, now: float) -> None:
        """`away`: the player goes on purpose (their browser tab closed) but may be back
        (it may have been a reload). Unlike a lost connection, nobody waits out a grace
        period for them: mid-match a bot plays the seat at once. Unlike `leave`, the seat
        and its token stay theirs, so coming back with the token takes it back."""
        seat = peer.seat
        if seat is not None and self.holders.get(seat) is peer and not peer.spectator:
            del self.holders[seat]
            peer.seat = None
            log.info("seat %d (%s) went away on purpose", seat, self.table.seats[seat].name)
            claimed = self.table.claimed(seat)
            self._guarded(self.table.disconnected, seat)
            if not claimed and self.table.state == TableState.PLAYING:
                self.grace_until.pop(seat, None)
                self._guarded(self.table.substitute_absent, seat)
            self._broadcast(now)
        self._bye(peer, "You went away; your seat is kept for you.", "away", now)

    def _ping(self, peer: Peer, now: float) -> None:
        self._send(peer, Ping(t=now))
        peer.next_ping = now + HEARTBEAT
        self._due(peer.next_ping)

    # ---- table changes the referee starts itself ---------------------------------------------

    def _start_grace(self, seat: int, now: float, since: float | None = None) -> None:
        """`seat`'s player is away: a bot plays for her once the grace period, counted
        from `since` (when she went; default now), runs out. Only during a match."""
        if (
            not self.shut
            and self.table.state == TableState.PLAYING
            and self.table.options.substitute
        ):
            went = now if since is None else since
            self.grace_until[seat] = max(now, went + self.table.options.grace)
            self._due(self.grace_until[seat])

    def _grace_for_the_away(self, now: float) -> None:
        """Every person away with no grace period running and no bot playing for her gets
        one, counted from when she went: at the start (a resumed table) and at each deal
        (she went between matches, when none starts), so the table never waits on a seat
        for ever."""
        for seat, info in enumerate(self.table.seats):
            if (
                info.kind == SeatKind.HUMAN
                and not (info.connected or info.substitute)
                and seat not in self.grace_until
            ):
                self._start_grace(seat, now, since=info.away_since)

    def _at(self, now: float) -> None:
        """The host's time for what follows, for the referee and the table alike: one
        clock, read by the adapter (or a test) and passed in; neither reads its own."""
        self._now = self.table.now = now

    def _guarded(self, change: Any, *args: Any, **kwargs: Any) -> Any:
        """Run a table change the host itself started; a journal failure is logged and
        the change skipped (the table rolled it back; it is retried every
        `JOURNAL_RETRY` seconds until the journal writes again), never raised."""
        try:
            return change(*args, **kwargs)
        except JournalError as exc:
            self._journal_failed(exc, self._now)
            return None

    def _journal_failed(self, exc: JournalError, now: float) -> None:
        """One log line when the journal stops writing (not one per refused move), and a
        retry of what the host does on its own (bots, freeing seats left in the lobby)."""
        if self.journal_down is None:
            log.error(
                "journal write failed: %s; the table takes no moves until it can write again",
                exc,
            )
            self.journal_down = now
            self._writes_when_down = self.table.writes
        if self.retry_at is None:
            self.retry_at = now + JOURNAL_RETRY
            self._due(self.retry_at)

    def _retry(self, now: float) -> None:
        """The journal failed: try again what the host does on its own."""
        table = self.table
        if self._guarded(table.free_absent_in_lobby):
            self._broadcast(now)
        if self.bot_at is None and table.bot_to_act() is not None:
            self.bot_at = now

    # ---- after every change ------------------------------------------------------------------

    def _follow_rotation(self, order: list[int]) -> None:
        """Partners were rotated: each connection now acts for its player's new seat,
        and is welcomed to it (the welcome is how a client learns its seat), before the
        snapshot of the new match."""
        for seat in list(self.reclaims):  # a question about a seat that just moved
            name = self.table.seats[order.index(seat)].name
            why = "The seats were rotated for the new match meanwhile; ask again."
            self._end_reclaim(seat, reclaims.refused(name, why, "rotated"), name=name)
        holders, grace = self.holders, self.grace_until
        self.holders = {new: holders[old] for new, old in enumerate(order) if old in holders}
        self.grace_until = {new: grace[old] for new, old in enumerate(order) if old in grace}
        for seat, peer in self.holders.items():
            peer.seat = seat
            if peer.phase is not Phase.CLOSING:
                self._welcome(peer, seat)
        log.info("table %s: partners rotated (seats %s)", self.table.id, order)

    def _broadcast(self, now: float, lead: tuple[Peer, bytes] | None = None) -> None:
        """Send every seated connection its fresh snapshot, then wake the bots. `lead` is
        a frame (an ack) for one connection, sent in the same write as its snapshot."""
        out = self._out
        if self.shut:
            if lead and lead[1]:
                out.append(Send(lead[0].id, lead[1]))
            return
        table = self.table
        if self.journal_down is not None and table.writes > self._writes_when_down:
            log.warning("the journal writes again (it failed for %.0f s)", now - self.journal_down)
            self.journal_down = None
        rotation = table.take_rotation()
        if rotation is not None:
            self._follow_rotation(rotation)
        events = table.take_events()
        after_trick = dealt_or_won = False
        for event in events:
            if isinstance(event, TrickWon):
                after_trick = True
            elif isinstance(event, MatchWon):
                dealt_or_won = True
                log.info("table %s: match over, side %s wins", table.id, event.winner)
            elif isinstance(event, Dealt):
                dealt_or_won = True
                if event.hand == 1:
                    log.info("table %s: match started", table.id)
        if dealt_or_won and self.journal is not None:
            self._guarded(self.journal.set_meta, finished=table.state == TableState.OVER)
        if dealt_or_won:
            self._grace_for_the_away(now)
        if self.holders or table.spectators:
            frames = self.snapshots.frames(events, spectators=table.spectators > 0)
            for seat, peer in self.holders.items():
                if peer.phase is Phase.CLOSING:
                    continue
                if lead is not None and peer is lead[0]:
                    out.append(Send(peer.id, lead[1] + frames[seat]))
                    lead = None
                else:
                    out.append(Send(peer.id, frames[seat]))
            if table.spectators:
                watching = frames[-1]  # the spectators' frame: no hand at all
                for peer in self.peers.values():
                    if peer.spectator and peer.phase is not Phase.CLOSING:
                        out.append(Send(peer.id, watching))
        if lead and lead[1]:
            out.append(Send(lead[0].id, lead[1]))
        out.append(Changed(events))
        if self.bot_at is None and self.thinking is None and table.bot_to_act() is not None:
            pacing = self.pacing
            self.bot_at = now + (pacing.trick_pause if after_trick else pacing.bot_delay)
            self._due(self.bot_at)
        ready_by = table.ready_deadline()
        if ready_by is not None:
            self._due(ready_by)  # the ready limit between hands
        self._note_turn(now)

    def _flush(self) -> list[Effect]:
        out, self._out = self._out, []
        return out
