"""One table: its seats, players, tokens and match. Domain commands in (`sit_down`,
`bid`, `play`, `ready`, `leave`, ...), journal entries and events out.

The table is synchronous and knows nothing of sockets, timers or the wire: the
referee turns a message into one of its commands (host/dispatch.py), then packs what
each seat may see (host/snapshots.py). That keeps the game's decisions testable
without a network and makes the order of effects plain: validate, journal, apply,
then broadcast.

A command checks what it was asked and changes nothing itself: it makes the journal
entries that say what happens (`_commit`), and each entry is applied by `apply`, the
same function that replays a journal on `--resume` (and that `pitchnet history` and a
rolled-back change replay through). Only what no entry holds is changed beside it:
who is connected, who is stood in for, and the events that say so.

Nor does it read a clock (h11's rule): the referee, which is handed the host's time
with every event, sets `Table.now` before it calls the table, so the table and the
referee always agree on what time it is, and a test's clock is the only one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from host import seats
from host.entries import (
    BidMade,
    BotSeated,
    CardPlayed,
    ClaimDropped,
    Entry,
    HandDealt,
    HumanSeated,
    MatchBegun,
    PartnersRotated,
    ReadySaid,
    SeatClaimed,
    SeatLeft,
    SeatMoved,
    SeatReclaimed,
    StartAsked,
)
from host.seats import NoSeat, Seat
from pitchnet.bots import DEFAULT_LEVEL, LEVELS, Bot, make_bot
from pitchnet.cards import Card, CardParseError
from pitchnet.events import (
    Bid,
    Claimed,
    Dealt,
    Disconnected,
    Event,
    HandScored,
    Joined,
    Left,
    MatchWon,
    Played,
    Reconnected,
    Rotated,
    SeatChanged,
    SeatReady,
    StoodIn,
    TimedOut,
    TookOver,
    TrickWon,
)
from pitchnet.protocol import (
    BOT_SUFFIX,
    ROTATION,
    SeatKind,
    TableState,
)
from pitchnet.rules import Action, Match, Phase, RulesError, Settings
from pitchnet.search import TABLE_BUDGET
from pitchnet.text import display_name, player_name
from pitchnet.views import (
    SeatView,
    seat_view,
    spectator_view,
)

P = ParamSpec("P")
R = TypeVar("R")
Turn = tuple[int | None, int | None] | None
"""The turn a move was meant for, (hand number, step), as the client saw it (None: any)."""


class Journal(Protocol):
    """Where accepted actions are written before anyone hears of them (host/journal.py).
    `record_all` writes one change's entries as ONE transaction: all or none. It raises
    `JournalError` if it cannot (and then wrote none); `entries` reads what is written."""

    def record_all(self, entries: list[Entry]) -> None: ...

    def entries(self) -> list[Entry]: ...


class NoJournal:
    """A table that keeps no journal (tests, `--no-journal`): it remembers the entries
    in memory, so a change can still be rolled back the same way."""

    def __init__(self) -> None:
        self._entries: list[Entry] = []

    def record_all(self, entries: list[Entry]) -> None:
        self._entries.extend(entries)

    def entries(self) -> list[Entry]:
        return list(self._entries)


def one_change(method: Callable[Concatenate[Table, P], R]) -> Callable[Concatenate[Table, P], R]:
    """A public change of the table: every entry it records is written in one journal
    transaction when it returns. If that write fails, or the change raises after it
    recorded something, the table is put back exactly as it was before (rebuilt from
    the journal's entries) and the error is raised: nothing is half-applied."""

    @functools.wraps(method)
    def wrapper(self: Table, /, *args: P.args, **kwargs: P.kwargs) -> R:
        if self._pending is not None:  # inside another change: part of it
            return method(self, *args, **kwargs)
        self._pending, self._before = [], None
        try:
            result = method(self, *args, **kwargs)
            pending = self._pending
            if pending:
                self.journal.record_all(pending)
                self.writes += 1
        except BaseException:
            if self._before is not None:
                self._roll_back()
            raise
        finally:
            self._pending, self._before = None, None
        return result

    return wrapper


@dataclass(frozen=True, slots=True)
class BotTurn:
    """One bot's turn: the seat, the turn it was asked at, the view it decides from."""

    seat: int
    hand_number: int
    step: int
    view: SeatView
    bot: Bot
    overdue: bool = False
    """A person's turn whose timer ran out: the bot makes this one move for them."""


@dataclass(frozen=True)
class TableOptions(Settings):
    """What a table is opened with, and all the journal keeps of it (`asdict`): the
    rules' `Settings` (players, partnership, target, house rules: its base class, checked
    there) and the table's own options, declared here once; the table's part of the
    host's `HostConfig` (which extends it)."""

    bots: int = 0
    password: str | None = None
    grace: float = 60.0
    substitute: bool = True
    bot_level: str = DEFAULT_LEVEL
    """The level of the table's bots and of the stand-ins for absent players."""
    ready_limit: float = 20.0
    """Seconds the table waits after a hand for everyone to be ready (0: for ever)."""
    spectators: bool = True
    """Whether people may watch without a seat."""
    coach: bool = True
    """Whether players may ask the coach what the `hard` bot would do (`c`)."""
    turn_timer: float = 0.0
    """Seconds a person has for a bid or a card before a bot of the table's level makes
    that one move for them (0: no timer)."""
    reactions: bool = True
    """Whether the table relays quick reactions (`--no-reactions` turns them off)."""
    spectator_reactions: bool = False
    """Whether spectators may send reactions (`--spectator-reactions`)."""

    @property
    def settings(self) -> Settings:
        """The rules' part: what is fixed for a whole match (checked by `Settings`)."""
        return Settings(self.players, self.partnership, self.target, self.rules)


class Table:
    """One table's referee state. Compared by identity: two tables are never equal."""

    def __init__(
        self,
        table_id: str,
        name: str,
        options: TableOptions,
        deal_deck: Callable[[str], list[Card]],
        journal: Journal | None = None,
        seat_bots: bool = True,
    ) -> None:
        self.id = table_id
        self.name = name
        self.options = options
        self.settings = options.settings
        if options.bot_level not in LEVELS:
            raise ValueError(f"unknown bot level {options.bot_level!r}")
        self.seats = [Seat() for _ in range(options.players)]
        self.match: Match | None = None
        self.state = TableState.LOBBY
        self.seq = 0
        self.deal_deck = deal_deck
        self.journal: Journal = journal or NoJournal()
        self.now = 0.0
        """The host's time of the change under way, as the referee was told it (`open`
        and `Referee` set it; the table never reads a clock): when a hand ended, since
        when a seat is away, and what the waits it shows count from."""
        self.events: list[Event] = []
        self.matches_started = 0
        self.pitchers: list[str] = []
        """Who pitched each hand of this match, by the name their seat had then ("" for a
        hand thrown in): a seat changes hands, and the match end names who was set back."""
        self._bots: dict[int, Bot] = {}
        self.writes = 0
        """Changes written to the journal (each one transaction)."""
        self.loss: str | None = None
        """Set when the table was resumed from a journal that had lost or damaged entries:
        the sentence its players are told (host/tables.py)."""
        self._start_pending = False
        """A replayed `start` whose bots and match are not (yet) in the journal."""
        self._pending: list[Entry] | None = None
        """The entries of the change under way (None: no change under way)."""
        self._before: tuple[int, list[tuple[Any, ...]]] | None = None
        """What a roll-back needs that the journal does not hold: how many events there
        were, and each seat's presence, when the change under way recorded its first
        entry (nothing is changed before a change's first entry is recorded)."""
        self.creator_token = ""
        self.void_tokens: list[str] = []
        """Tokens of seats taken back on another device (`reclaim`): their old device
        is told so, not that its token is unknown."""
        self.rotation: list[int] | None = None
        """Set when the seats were just rotated (new seat i holds whoever sat in seat
        rotation[i]), until the referee moves its connections with them."""
        """The first person to sit: they start the match (wherever they moved to)."""
        self.waiting_since = 0.0
        """When the table began waiting for people: the lobby opening, or a hand ending."""
        self.spectators = 0
        """How many people watch (the server counts its spectator connections)."""
        if seat_bots:
            self._seat_first_bots(min(options.bots, options.players))

    @one_change
    def _seat_first_bots(self, count: int) -> None:
        for seat in range(count):  # the seats are all empty yet: bots take the first ones
            self._commit(BotSeated(seat, self._bot_name()))

    # ---- the journal: one change, one transaction ----------------------------------------

    def _commit(self, entry: Entry) -> None:
        """Journal `entry` as part of the change under way (written when the change ends)
        and apply it with `apply`, the very function a replay runs: what live play does
        to the journaled state is exactly what its journal does on `--resume`."""
        self._record(entry)
        self.apply(entry)

    def _record(self, entry: Entry) -> None:
        """Add `entry` to the change under way's one transaction (only `_commit` calls
        this: an entry is never journaled without being applied)."""
        if self._pending is None:
            raise RuntimeError("a table change must be made inside a one_change method")
        if self._before is None:
            presence = [
                (s.kind, s.token, s.connected, s.substitute, s.away_since) for s in self.seats
            ]
            self._before = (len(self.events), presence)
        self._pending.append(entry)

    def _roll_back(self) -> None:
        """Put the table back as the journal has it, keeping what the journal does not
        hold (who is connected, who is stood in for) as it was before the change."""
        assert self._before is not None
        events, presence = self._before
        kept_events = self.events[:events]
        self._reset()
        self._replay_all(self.journal.entries())
        for seat, (kind, token, connected, substitute, away_since) in zip(
            self.seats, presence, strict=True
        ):
            if seat.kind == kind == SeatKind.HUMAN and seat.token == token:
                seat.connected, seat.substitute, seat.away_since = connected, substitute, away_since
        self.events = kept_events

    def _reset(self) -> None:
        self.seats = [Seat() for _ in range(self.options.players)]
        self.creator_token, self.void_tokens = "", []
        self.match = None
        self.state = TableState.LOBBY
        self.matches_started = 0
        self.pitchers = []
        self._start_pending = False
        self.rotation = None

    # ---- seats ----------------------------------------------------------------------------

    @property
    def starter(self) -> int | None:
        """The seat that may start early (host/seats.py `starter`)."""
        return seats.starter(self.seats, self.creator_token)

    def open_seats(self) -> int:
        """Seats a newcomer can sit in now or at the next hand (what the advert offers)."""
        if self.state == "lobby":
            return sum(s.kind == "empty" for s in self.seats)
        return sum(s.takeable for s in self.seats)

    def claimed(self, seat: int) -> bool:
        """`seat` is bot-played until the next hand, when the newcomer who claimed it sits."""
        return bool(self.seats[seat].claim_token)

    def _bot_name(self) -> str:
        """The next bot's name ("Bot 2"); its `BotSeated` entry keeps it, for `history`."""
        return f"Bot {sum(s.kind == SeatKind.BOT for s in self.seats) + 1}"

    @one_change
    def sit_down(self, name: str, seat_key: str | None = None) -> int:
        """Seat a newcomer called `name`: in the lobby at the first free seat (the match
        starts when the last one is taken), during a match in a bot-played seat
        (`_take_over`). `seat_key` is the token they would like (`seats.new_token`). Returns
        the seat; raises NoSeat when they may not sit."""
        if self.state != "lobby":
            return self._take_over(name, seat_key)
        seat = seats.free_seat(self.seats)
        if seat is None:
            raise NoSeat("table_full", "Every seat at this table is taken.")
        name = seats.unique_name(player_name(name, f"Player {seat + 1}"), seat, self.seats)
        token = seats.new_token(seat_key, self.seats)
        self._commit(HumanSeated(seat, name, token))
        self.seats[seat].connected = True  # here now (the journal keeps no presence)
        if seats.free_seat(self.seats) is None:
            self._start_match()
            self._deal()
        return seat

    def _take_over(self, name: str, seat_key: str | None) -> int:
        """A newcomer while a match is on takes a bot-played seat (`seats.seat_to_take`),
        with its score: at once between hands, else at the next deal (the bot finishes
        this hand)."""
        wanted = player_name(name, "Player")
        seat = seats.seat_to_take(wanted, self.seats)
        name = seats.unique_name(wanted, seat, self.seats)
        token = seats.new_token(seat_key, self.seats)
        self._commit(SeatClaimed(seat, name, token))
        return seat

    def between_hands(self) -> bool:
        """No hand is under way: before the first deal, or after a hand or match ended."""
        return self.match is None or self.match.phase in (Phase.HAND_OVER, Phase.MATCH_OVER)

    def _drop_claim(self, seat: int) -> None:
        """The newcomer who claimed `seat` is gone before sitting down: the bot plays on."""
        if self.seats[seat].claim_token:
            self._commit(ClaimDropped(seat))

    @one_change
    def change_seat(self, seat: int, to: int, action_id: int | None = None) -> bool:
        """In the lobby a player moves to another open seat (in partnership play, that
        is how they choose a side: seats 1 and 3 are team A, 2 and 4 team B). False for
        a repeated action id (nothing to do)."""
        if not self.admits(seat, action_id):
            return False
        if self.state != "lobby":
            raise RulesError("not_in_lobby", "Seats can only be changed in the lobby.")
        if not 0 <= to < len(self.seats) or to == seat:
            raise RulesError("bad_seat", "There is no such other seat at this table.")
        if self.seats[to].kind != "empty":
            raise RulesError("seat_taken", f"Seat {to + 1} is taken.", {"seat": to})
        self._commit(SeatMoved(seat, to))
        self._applied(to, action_id)  # not in the entry: a replayed move keeps the old id
        return True

    def come_back(self, seat: int) -> None:
        """The player of `seat` is back on a connection that proved their token (or, with
        `reclaim`, a new token): the seat is theirs again, no bot stands in for them."""
        s = self.seats[seat]
        if s.substitute:
            s.ready = False  # the stand-in was ready for them; they decide now
        s.connected, s.substitute, s.away_since = True, False, None
        self._event(Reconnected(seat))

    def reclaimable(self, seat: int) -> bool:
        """`seat` is a person's whose player is away (lost the connection, in the grace
        period or stood in for by a bot): another device may ask for it back."""
        if not 0 <= seat < len(self.seats) or self.state == TableState.LOBBY:
            return False
        s = self.seats[seat]
        return s.kind == SeatKind.HUMAN and not s.connected

    @one_change
    def reclaim(self, seat: int) -> str:
        """Give the away player of `seat` their seat back on a new device, another person
        having vouched for them: a fresh token (returned, for that device), the old one
        void, and the seat theirs again at once with its score and hand. Raises
        ValueError if the seat is not `reclaimable` (the referee checked it just before)."""
        if not self.reclaimable(seat):
            raise ValueError(f"seat {seat}'s player is not away")
        token = seats.fresh_token()
        self._commit(SeatReclaimed(seat, token))
        self.come_back(seat)
        return token

    def progress(self) -> tuple[int, int, int, int]:
        """How far the game has got here, as a returning client reports what it saw
        (`hello.seen`): the match, then `SeatView.progress`."""
        if self.match is None:
            return (self.matches_started, 0, 0, 0)
        return (self.matches_started, *spectator_view(self.match).progress)

    def behind(self, seen: Any) -> str | None:
        """A returning player's client saw a later point of the game than this table
        holds: the host lost part of its record (a damaged journal that its checksums
        and mark could not show). Returns the sentence for the players (and keeps it in
        `loss`, so everyone who comes later hears it too), else None."""
        if not (
            isinstance(seen, list)
            and len(seen) == 4
            and all(type(n) is int and 0 <= n < 2**31 for n in seen)
        ):
            return None  # an odd claim proves nothing
        if tuple(seen) <= self.progress():
            return None
        self.loss = (
            "The host lost part of this game's record: a player had seen a later point "
            "of it. The game goes on from the last point the host still holds."
        )
        return self.loss

    def token_of(self, seat: int) -> str:
        s = self.seats[seat]
        return s.claim_token or s.token

    def seat_name(self, seat: int) -> str:
        s = self.seats[seat]
        return s.claim_name or s.name

    @one_change
    def disconnected(self, seat: int) -> None:
        s = self.seats[seat]
        if s.claim_token:  # a newcomer who had not sat down yet: the seat stays free
            self._drop_claim(seat)
            return
        if s.kind != SeatKind.HUMAN or not s.connected:
            return
        s.connected, s.away_since = False, self.now
        self._event(Disconnected(seat))
        if self.state == TableState.LOBBY:
            self._commit(SeatLeft(seat))
        self._advance_if_all_ready()

    @one_change
    def free_absent_in_lobby(self) -> bool:
        """Free the lobby seats of humans who are gone (their `leave` could not be written
        when they went: the journal was failing). True if any was freed."""
        if self.state != TableState.LOBBY:
            return False
        freed = False
        for seat, s in enumerate(self.seats):
            if s.kind == SeatKind.HUMAN and not s.connected:
                self._commit(SeatLeft(seat))
                freed = True
        return freed

    def substitute_absent(self, seat: int) -> bool:
        """After the grace period a bot plays for an absent human; returns True if it did."""
        s = self.seats[seat]
        if s.kind != SeatKind.HUMAN or s.connected or s.substitute or not self.options.substitute:
            return False
        s.substitute = True
        self._event(StoodIn(seat))
        return True

    # ---- actions ---------------------------------------------------------------------------

    def admits(self, seat: int, action_id: int | None) -> bool:
        """May `seat` act now? False for an action id already applied (a duplicate: the
        referee acks it, nothing changes). Raises RulesError for a newcomer who has not
        sat down yet: their seat is the bot's until the next hand."""
        if self.seats[seat].claim_token:
            raise RulesError(
                "not_yet", "You take this seat when the next hand is dealt; a bot plays this one."
            )
        return action_id is None or action_id > self.seats[seat].last_id

    @one_change
    def start(self, seat: int, action_id: int | None = None) -> bool:
        """The starter starts the match early: bots fill the empty seats. False if it has
        started already (a repeated start: nothing to do, nothing journaled)."""
        if not self.admits(seat, action_id):
            return False
        return self._start_requested(seat, action_id)

    @one_change
    def bid(
        self, seat: int, amount: int | None, action_id: int | None = None, turn: Turn = None
    ) -> bool:
        """`seat` bids `amount` (None: passes) at the `turn` it saw, (hand number, step),
        if given. Raises RulesError if the rules refuse it. False for a duplicate."""
        if not self.admits(seat, action_id):
            return False
        self._check_turn(turn)
        self._move_in_hand(seat, "bid", amount, action_id)
        return True

    @one_change
    def play(self, seat: int, card: str, action_id: int | None = None, turn: Turn = None) -> bool:
        """`seat` plays `card` (its text, "QS", as the journal keeps it) at the `turn` it
        saw, if given. Raises RulesError if the rules refuse it. False for a duplicate."""
        if not self.admits(seat, action_id):
            return False
        try:
            parsed = Card.parse(card)
        except CardParseError as exc:
            raise RulesError("bad_card", str(exc), {"card": card}) from None
        self._check_turn(turn)
        self._move_in_hand(seat, "play", parsed, action_id)
        return True

    @one_change
    def ready(self, seat: int, action_id: int | None = None, rotate: bool = False) -> bool:
        """`seat` is ready for the next hand (after a partnership match, `rotate` asks for
        partners rotated). False if that changes nothing (ready already, or a duplicate)."""
        if not self.admits(seat, action_id):
            return False
        return self._ready(seat, action_id, rotate)

    @one_change
    def leave(self, seat: int) -> bool:
        """`seat`'s player gives it up: in the lobby it empties, in a match a bot takes it.
        A newcomer waiting for the next hand gives up their claim (the bot plays on)."""
        if self.seats[seat].claim_token:
            self._drop_claim(seat)
        else:
            self._commit(SeatLeft(seat))
            self._advance_if_all_ready()
        return True

    def _check_turn(self, turn: Turn) -> None:
        """Refuse a move meant for another turn (one resent after a bot stood in, say)."""
        if turn is None or self.match is None:
            return
        hand_number, step = turn
        if hand_number is None or step is None:
            return
        hand = self.match.hand
        if hand is None or (hand_number, step) != (self.match.hand_number, hand.step):
            raise RulesError("stale", "That move was meant for an earlier turn; nothing changed.")

    def _applied(self, seat: int, action_id: int | None) -> None:
        if action_id is not None:
            self.seats[seat].last_id = action_id

    def _start_requested(self, seat: int, action_id: int | None) -> bool:
        if self.state != TableState.LOBBY:
            return False  # started already (a resent or repeated start): nothing to do
        if seat != self.starter:
            raise RulesError("not_starter", "Only the first player to sit can start early.")
        self._commit(StartAsked(seat, action_id))
        self._fill_with_bots()
        self._start_match()
        self._deal()
        return True

    def _fill_with_bots(self) -> None:
        for index, s in enumerate(self.seats):
            if s.kind == SeatKind.EMPTY:
                self._commit(BotSeated(index, self._bot_name()))
                self._event(Joined(index, self.seats[index].name))

    def _start_match(self) -> None:
        """A new match at this table; the first dealer moves round from match to match."""
        self._commit(MatchBegun(self.matches_started % self.settings.players))

    def _deal(self) -> None:
        """The next hand, from the table's deck source (the journal keeps the deck)."""
        match = self.match
        assert match is not None
        deck = self.deal_deck(f"{self.matches_started}.{match.hand_number + 1}")
        dealer = match.dealer if match.hand is None else match.dealer + 1
        self._commit(
            HandDealt(
                deck=[str(c) for c in deck],
                hand=match.hand_number + 1,
                dealer=dealer % self.settings.players,
            )
        )

    def _move_in_hand(self, seat: int, kind: str, value: Any, action_id: int | None) -> None:
        """A bid or a card, checked first: a refused action must leave no trace, in the
        journal least of all."""
        match = self._current_match()
        if kind == "bid":
            match.check_bid(seat, value)
            self._commit(BidMade(seat, value, action_id))
        else:
            match.check_play(seat, value)
            self._commit(CardPlayed(seat, str(value), action_id))

    def _ready(self, seat: int, action_id: int | None, rotate: bool = False) -> bool:
        rotate = self._ready_rotates(rotate)
        s = self.seats[seat]
        if s.ready and s.rotate == rotate and self._advance_due() is None:
            return False  # ready already: a repeat changes nothing, costs no journal entry
        self._commit(ReadySaid(seat, action_id, rotate))
        self._advance_if_all_ready()
        return True

    def _ready_rotates(self, rotate: bool) -> bool:
        """Whether a `ready` now asks for partners rotated: only between partnership
        matches (anywhere else it is plain ready). Raises RulesError during a hand."""
        match = self.match
        if match is None or match.phase not in (Phase.HAND_OVER, Phase.MATCH_OVER):
            raise RulesError("not_now", "There is nothing to be ready for yet.")
        return rotate and self.settings.partnership and match.phase is Phase.MATCH_OVER

    def rotation_wanted(self) -> bool:
        """Play the next match with partners rotated: in partnership play, when more of
        the players who said ready asked for it than did not (a tie keeps the seats)."""
        if not self.settings.partnership:
            return False
        said = [s for s in self.seats if s.kind == SeatKind.HUMAN and s.ready]
        asked = sum(s.rotate for s in said)
        return asked > len(said) - asked

    def _next_match(self) -> None:
        """After a match: the next one, with partners rotated if the players asked."""
        if self.rotation_wanted():
            self._commit(PartnersRotated(list(ROTATION)))
            self.rotation = list(ROTATION)  # for the referee, to move its connections
        self._start_match()

    def take_rotation(self) -> list[int] | None:
        """The seats' rotation since the last call (None if none), for the referee."""
        rotation, self.rotation = self.rotation, None
        return rotation

    def waiting_for(self) -> list[int]:
        """The seats the table waits for between hands: people here, not yet ready."""
        if self.match is None or not self.between_hands():
            return []
        return [
            i for i, s in enumerate(self.seats) if s.kind == "human" and s.connected and not s.ready
        ]

    def ready_deadline(self) -> float | None:
        """When (on the host's clock, as `now` is) the table stops waiting for the unready
        and deals on; None when it is not waiting or has no limit (the referee wakes at
        it). The limit paces hands only: after a match, a new one starts when everyone
        here has said "play again", never by itself."""
        if self.options.ready_limit <= 0 or self.state == "lobby" or not self.waiting_for():
            return None
        if self.match is not None and self.match.phase is Phase.MATCH_OVER:
            return None
        return self.waiting_since + self.options.ready_limit

    @one_change
    def ready_expired(self) -> bool:
        """The ready limit has passed: deal the next hand; whoever was not ready simply
        sees it. Returns True if it dealt."""
        deadline = self.ready_deadline()
        if deadline is None or self.now < deadline or self.match is None:
            return False
        self._deal()
        return True

    def _advance_if_all_ready(self) -> None:
        """Deal on (or start a new match) once every human at the table is ready."""
        due = self._advance_due()
        if due == "match":
            self._next_match()
            self._deal()
        elif due == "deal":
            self._deal()

    def _advance_due(self) -> str | None:
        """What `_advance_if_all_ready` would do now: "deal", "match" or None."""
        if self.match is None:
            return None
        if self.match.phase not in (Phase.HAND_OVER, Phase.MATCH_OVER):
            return None
        if self.waiting_for():
            return None
        if self.match.phase is Phase.MATCH_OVER:
            # A new match needs someone to play it: at least one human present (or one
            # about to sit down).
            if any((s.kind == SeatKind.HUMAN and s.connected) or s.claim_token for s in self.seats):
                return "match"
            return None
        return "deal"

    def open(self, now: float) -> None:
        """The host starts serving the table at `now` (the referee's `start`): it waits
        for people from now, and whoever a replayed journal left away has been away
        since now (the host's clock was not running while it was down)."""
        self.now = self.waiting_since = now
        for seat in self.seats:
            if seat.away_since is not None:
                seat.away_since = now

    # ---- resuming from the journal ----------------------------------------------------------

    def replay(self, entries: list[Entry]) -> None:
        """Rebuild the table from its journal. Every player comes back disconnected and
        finds their seat (and its grace period) waiting. Raises ValueError (or RulesError)
        if an entry does not fit, so a damaged journal is refused, not half-loaded."""
        self._replay_all(entries)
        now = self.now
        self.waiting_since = now
        for seat in self.seats:
            if seat.kind == SeatKind.HUMAN:
                seat.connected, seat.away_since = False, now
            seat.claim_name, seat.claim_token = "", ""  # a newcomer not yet seated is gone
        self.events.clear()

    def _replay_all(self, entries: list[Entry]) -> None:
        for _ in self.replaying(entries):
            pass

    def replaying(self, entries: list[Entry]) -> Iterator[Entry]:
        """Replay `entries` one by one, yielding each once it is applied: `pitchnet
        history` reads the seats and the match as they were after every entry, so it
        names players exactly as the table did (lobby moves, takeovers at the next deal,
        a leaver's bot, partners rotated) without a second copy of those rules. Raises
        ValueError (or RulesError) at an entry that does not fit."""
        saved = self._pending, self._before
        self._pending, self._before = None, None  # `apply` journals nothing: it would raise
        try:
            for entry in entries:
                self.apply(entry)
                yield entry
        except (KeyError, TypeError, IndexError) as exc:
            raise ValueError(f"journal entry does not fit: {exc!r}") from None
        finally:
            self._pending, self._before = saved

    @one_change
    def settle(self) -> bool:
        """After a resume: make the changes that the journal's last entries would have
        triggered, had the host not stopped in between (a journal written before changes
        were one transaction each can end between a `ready` and its `deal`, after the
        last `join` without its `match`, or inside a `start`). True if it changed."""
        if self.state == TableState.LOBBY:
            if self._start_pending:
                self._fill_with_bots()
                self._start_match()
                self._deal()
                return True
            if seats.free_seat(self.seats) is None:
                self._start_match()
                self._deal()
                return True
            return False
        match = self.match
        if match is None or match.phase not in (Phase.HAND_OVER, Phase.MATCH_OVER):
            return False
        humans = [s for s in self.seats if s.kind == SeatKind.HUMAN]
        if any(not s.ready for s in humans):
            return False
        if match.phase is Phase.MATCH_OVER:
            if not humans:
                return False
            self._next_match()
        self._deal()
        return True

    # ---- applying entries: the one path of live play and of replay -----------------------

    def apply(self, entry: Entry) -> None:
        """Apply one journal entry: the only way the journaled state changes. A live
        command checks what it was asked, journals the entry and applies it here
        (`_commit`); a replay applies the journal's entries here one by one, so the two
        cannot drift apart. It does only what the entry says (no deal follows a `ready`
        here: if one did, the journal's next entry is that deal), and raises ValueError
        (or RulesError) for an entry that does not fit this table."""
        seat = getattr(entry, "seat", None)
        if seat is not None and (type(seat) is not int or not 0 <= seat < len(self.seats)):
            raise ValueError(f"journal entry names seat {seat!r}, not one of this table's")
        match entry:
            case BotSeated(seat=seat):
                name = self._bot_name()  # journals before 2026-11-29 kept none
                self.seats[seat] = Seat(name=name, kind=SeatKind.BOT, connected=True, ready=True)
            case HumanSeated(seat=seat, name=name, token=token):
                name = player_name(name, f"Player {seat + 1}")  # cleaned again
                self._seat_human(seat, name, token)
            case StartAsked(seat=seat, id=action_id):
                self._applied(seat, action_id)
                self._start_pending = self.state == TableState.LOBBY  # bots and match follow
            case MatchBegun(dealer=dealer):
                self._begin_match(dealer)
            case HandDealt(deck=deck):
                self._deal_hand([Card.parse(text) for text in deck])
            case BidMade(seat=seat, value=value, id=action_id):
                self._bid_made(seat, value, action_id)
            case CardPlayed(seat=seat, value=card, id=action_id):
                self._card_played(seat, Card.parse(card), action_id)
            case ReadySaid(seat=seat, id=action_id, rotate=rotate):
                self._ready_said(seat, action_id, rotate)
            case PartnersRotated(order=order):
                self._rotate(order)
            case SeatLeft(seat=seat):
                self._seat_left(seat)
            case SeatClaimed(seat=seat, name=name, token=token):
                self._claim(seat, name, token)
            case ClaimDropped(seat=seat):
                self.seats[seat].claim_name, self.seats[seat].claim_token = "", ""
            case SeatMoved(seat=seat, to=to):
                self._seat_moved(seat, to)
            case SeatReclaimed(seat=seat, token=token):
                self._reclaim(seat, token)
            case _:
                raise ValueError(f"unknown journal entry {entry!r}")

    def _begin_match(self, dealer: int) -> None:
        self._start_pending = False
        self.match = Match(self.settings, dealer=dealer)
        self.matches_started += 1
        self.pitchers = []
        self.state = TableState.PLAYING

    def _deal_hand(self, deck: list[Card]) -> None:
        """Deal `deck`: newcomers who claimed a seat sit first; bots are ready at once."""
        match = self.match
        if match is None:
            raise ValueError("a hand dealt before any match began")
        self._sit_claimants()
        hand = match.deal(deck)
        for s in self.seats:
            s.ready, s.rotate = s.played_by_bot, False
        self._event(Dealt(match.hand_number, hand.dealer))

    def _current_match(self) -> Match:
        if self.match is None:
            raise RulesError("no_hand", "The match has not started yet.", {"why": "not_started"})
        return self.match

    def _bid_made(self, seat: int, value: int | None, action_id: int | None) -> None:
        match = self._current_match()
        match.bid(seat, value)  # checks it again: a replayed bid that does not fit raises
        self._applied(seat, action_id)
        self._event(Bid(seat, value))
        self._after_move(match)

    def _card_played(self, seat: int, card: Card, action_id: int | None) -> None:
        match = self._current_match()
        trick = match.play(seat, card)  # checks it again, as `_bid_made` does
        self._applied(seat, action_id)
        self._event(Played(seat, str(card)))
        if trick is not None:
            plays = [(s, str(c)) for s, c in trick.plays]
            self._event(TrickWon(trick.winner, plays))
        self._after_move(match)

    def _after_move(self, match: Match) -> None:
        """A hand over (six tricks played, or thrown in after a bid): scored, and the
        match perhaps won. The table waits for people from now."""
        hand = match.hand
        if hand is None or not hand.complete:
            return
        self.waiting_since = self.now
        result = match.last_result
        assert result is not None
        pitcher = result.pitcher
        self.pitchers.append(self.seats[pitcher].name if pitcher is not None else "")
        self._event(HandScored.of(result))
        if match.winner is not None:
            self.state = TableState.OVER
            self._event(MatchWon(match.winner))

    def _ready_said(self, seat: int, action_id: int | None, rotate: bool) -> None:
        s = self.seats[seat]
        s.ready, s.rotate = True, self._ready_rotates(rotate)
        self._applied(seat, action_id)
        self._event(SeatReady(seat))

    def _rotate(self, order: list[int]) -> None:
        if sorted(order) != list(range(len(self.seats))):
            raise ValueError(f"{order!r} is not an order of this table's seats")
        self.seats = [self.seats[i] for i in order]
        self._bots.clear()  # each bot is made for its seat; they are made again
        self._event(Rotated(list(order)))

    def _seat_left(self, seat: int) -> None:
        """In the lobby the seat empties; in a match a bot takes it, with its score."""
        s = self.seats[seat]
        if self.state == TableState.LOBBY:
            self.seats[seat] = Seat()
        else:
            s.kind, s.token, s.connected, s.ready = SeatKind.BOT, "", True, True
            s.name = display_name(s.name + BOT_SUFFIX, "Bot")
        self._event(Left(seat))

    def _seat_human(self, seat: int, name: str, token: str) -> None:
        self.seats[seat] = Seat(name=name, kind=SeatKind.HUMAN, token=token)
        if not self.creator_token:
            self.creator_token = token
        self._event(Joined(seat, name))

    def _claim(self, seat: int, name: str, token: str) -> None:
        s = self.seats[seat]
        s.claim_name, s.claim_token = name, token
        self._event(Claimed(seat, name))
        if self.between_hands():
            self._sit_claimants()

    def _sit_claimants(self) -> None:
        """Newcomers who claimed a bot-played seat sit in it now (a hand boundary)."""
        for index, s in enumerate(self.seats):
            if s.claim_token:
                was = s.name
                self.seats[index] = Seat(
                    name=s.claim_name, kind=SeatKind.HUMAN, token=s.claim_token, connected=True
                )
                self._bots.pop(index, None)
                self._event(TookOver(index, s.claim_name, was))

    def _seat_moved(self, seat: int, to: int) -> None:
        self.seats[to], self.seats[seat] = self.seats[seat], Seat()
        self._event(SeatChanged(to, seat))

    def _reclaim(self, seat: int, token: str) -> None:
        s = self.seats[seat]
        if s.kind != SeatKind.HUMAN:
            raise ValueError(f"seat {seat} is not a person's to reclaim")
        if self.creator_token == s.token:
            self.creator_token = token  # the creator, back on a new device, still starts
        self.void_tokens.append(s.token)
        s.token = token

    # ---- bots -------------------------------------------------------------------------------

    def bot_to_act(self) -> int | None:
        """The seat a bot must act for now: its turn to bid or play, or (after a hand)
        nobody, since bots are always ready."""
        if self.match is None or self.state != TableState.PLAYING:
            return None
        turn = self.match.turn
        if turn is not None and self.seats[turn].played_by_bot:
            return turn
        return None

    def bot_turn(self) -> BotTurn | None:
        """The bot due to act now, with the view it decides from, or None."""
        seat = self.bot_to_act()
        if seat is None:
            return None
        assert self.match is not None and self.match.hand is not None
        bot = self._bots.get(seat)
        if bot is None:
            bot = self._bots[seat] = make_bot(
                self.options.bot_level, seed=seat, budget=TABLE_BUDGET
            )
        view = seat_view(self.match, seat)
        return BotTurn(seat, self.match.hand_number, self.match.hand.step, view, bot)

    def person_turn(self) -> tuple[int, int, int] | None:
        """With a turn timer: (seat, hand number, step) of the person whose turn it is, one
        key per turn, so the referee can tell when a new one began; None without a timer,
        or when no person is to act (the lobby, between hands, a bot's turn) or the person
        is away (the timer starts when they come back: after a `--resume` too)."""
        match = self.match
        if self.options.turn_timer <= 0 or match is None or self.state != TableState.PLAYING:
            return None
        seat = match.turn
        if seat is None or self.seats[seat].played_by_bot or match.hand is None:
            return None
        if not self.seats[seat].connected:  # away: the grace period is theirs, then a bot
            return None
        return seat, match.hand_number, match.hand.step

    def overdue_turn(self) -> BotTurn | None:
        """The person whose turn it is (`person_turn`), with the bot of the table's level
        that makes one move for them when their time runs out (the referee keeps the
        time); None when no person is to act."""
        match, key = self.match, self.person_turn()
        if key is None or match is None or match.hand is None:
            return None
        seat = key[0]
        bot = self._bots.get(-1 - seat)  # the stand-in's own, apart from a bot's seat
        if bot is None:
            bot = self._bots[-1 - seat] = make_bot(
                self.options.bot_level, seed=seat, budget=TABLE_BUDGET
            )
        view = seat_view(match, seat)
        return BotTurn(seat, match.hand_number, match.hand.step, view, bot, overdue=True)

    @one_change
    def play_bot_turn(self, turn: BotTurn, action: Action) -> bool:
        """Apply a bot's decision for `turn`, if that turn is still the table's (a bot that
        thought off the loop may come back after its player has returned, or after the
        person whose time ran out has moved). Returns whether it was applied."""
        if self.bot_turn_is_current(turn):
            if turn.overdue:
                self._event(TimedOut(turn.seat))
            value = action.bid if action.kind == "bid" else action.card
            self._move_in_hand(turn.seat, action.kind, value, None)
            return True
        return False

    def bot_turn_is_current(self, turn: BotTurn) -> bool:
        match = self.match
        if match is None or match.hand is None or self.state != TableState.PLAYING:
            return False
        if turn.overdue:
            acting = match.turn == turn.seat and not self.seats[turn.seat].played_by_bot
        else:
            acting = self.bot_to_act() == turn.seat
        return acting and match.hand_number == turn.hand_number and match.hand.step == turn.step

    @one_change
    def act_for_bot(self) -> bool:
        """Let the bot whose turn it is bid or play, deciding from its seat's view only.
        Returns False when no bot is due to act."""
        turn = self.bot_turn()
        if turn is None:
            return False
        return self.play_bot_turn(turn, turn.bot.decide(turn.view))

    # ---- views ------------------------------------------------------------------------------

    def _event(self, event: Event) -> None:
        self.events.append(event)

    def take_events(self) -> list[Event]:
        """The events since the last broadcast; bumps the sequence number."""
        events, self.events = self.events, []
        self.seq += 1
        return events
