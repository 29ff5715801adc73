"""What one seat may see. This is the ONLY place hidden information is decided.

A `SeatView` holds the seat's own hand and everything public at a real table
(bids, cards played, tricks, scores), and only the *number* of cards in the
other hands. It never holds another hand, the undealt cards or the deck order.
The host sends a fresh view after every change (snapshots, not deltas), bots
decide from it, and the client draws it, so all three agree on one shape.

A spectator (someone watching without a seat, or a newcomer waiting for the bot-played
seat they take at the next hand) gets `spectator_view`: the public table and no hand
at all, with `spectator` set so the client never offers it a move.

Views are plain data (ints, strs, bools, None and lists of them, cards in their text
form) but for two nested shapes of the rules, typed once in pitchnet/rules.py and
carried as they are: the hand's finished tricks (`Trick`) and the last hand's result
(`HandResult`). `to_wire()` turns those into their maps (`Trick.to_wire`,
`HandResult.to_wire`) for msgpack, and `from_wire()` reads them back into the same
classes, so the host, the bots and the client read one shape.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

from pitchnet.cards import Card
from pitchnet.house_rules import OPTIONS, RulesConfigError
from pitchnet.rules import HandResult, HouseRules, Match, Phase, RulesError, Trick
from pitchnet.schema import ProtocolError, from_map, plain


class ViewError(ProtocolError):
    """A view received from elsewhere does not have the expected shape."""

    def __init__(self, message: str) -> None:
        super().__init__("bad_message", message)


@dataclass
class SeatView:
    """One seat's view. Its annotations are its wire schema, checked by the one validator
    (pitchnet/schema.py); `check` adds what a type cannot say (a seat within the table,
    a card that parses), so that a client can draw any view it accepts."""

    seat: int
    players: int
    partnership: bool
    target: int
    phase: Phase
    hand_number: int
    dealer: int
    turn: int | None
    hand: list[str]
    hand_counts: list[int]
    bids: list[tuple[int, int | None]]
    """(seat, amount or None for a pass), in bidding order; an array of two on the wire."""
    high_bid: int | None
    pitcher: int | None
    trump: str | None
    trick: list[tuple[int, str]]
    """(seat, card) in play order: the trick being played; an array of two on the wire."""
    tricks: list[Trick]
    """This hand's completed tricks (on the wire `Trick.to_wire()`'s maps)."""
    tricks_won: list[int]
    scores: list[int]
    legal_bids: list[int | None]
    legal_plays: list[str]
    last_result: HandResult | None
    """The last finished hand's result, all of it public (`public_result`); on the wire
    `HandResult.to_wire()`'s map."""
    winner: int | None
    score_history: list[list[int]]
    """Each side's score after every hand of this match so far (public: the scores were)."""
    rules: dict[str, Any] = field(default_factory=dict)
    """The table's house rules (`HouseRules.to_wire()`): what the bids and plays obey."""
    step: int = 0
    """The turn within the hand (bids and plays so far): a move echoes it with
    `hand_number`, so one resent into a later turn is refused as stale."""
    play_rule: str | None = None
    """Why this seat's cards outside `legal_plays` may not be played now, in the host's
    own words (None when every held card may be played, or it is not our turn to play).
    In English, for older clients: `play_meaning` is what a client words."""
    play_meaning: dict[str, Any] | None = None
    """The same as `play_rule`, as a meaning: the refusal's `code` and its parameters
    (those of an `error` with that code), worded by each client in its own language."""
    spectator: bool = False
    """A watcher's view: `hand` and the legal moves are empty, and `seat` means nothing."""

    # ---- conveniences for bots and the client ----------------------------------------------

    @property
    def progress(self) -> tuple[int, int, int]:
        """How far this match has got, comparable between two views of it: the hand, then
        whether that hand is over, then the turn within it. A returning client that saw
        a later point than its host now holds proves the host lost part of its record."""
        over = self.phase in ("hand_over", "match_over")
        return (self.hand_number, int(over), self.step)

    @property
    def cards(self) -> list[Card]:
        return [Card.parse(text) for text in self.hand]

    @property
    def playable(self) -> list[Card]:
        return [Card.parse(text) for text in self.legal_plays]

    @property
    def sides(self) -> int:
        return 2 if self.partnership else self.players

    @property
    def house_rules(self) -> HouseRules:
        """The table's house rules as the rules' own object, read from `rules` (their
        wire map, `HouseRules.to_wire()`): what bots and the client ask of the rules (the
        top bid, the joker) is asked of it. An option or value this version does not know
        (a newer host's) is left out rather than refused."""
        return _house_rules(self.rules)

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.partnership else seat

    @property
    def my_turn(self) -> bool:
        return not self.spectator and self.turn == self.seat

    # ---- wire ----------------------------------------------------------------------------

    def to_wire(self) -> dict[str, Any]:
        """The fields as they are (plain data, so not copied), the tricks and the result
        as their maps."""
        wire = dict(self.__dict__)
        wire["tricks"] = [trick.to_wire() for trick in self.tricks]
        wire["last_result"] = plain_result(self.last_result)
        return wire

    @classmethod
    def from_wire(cls, data: Any) -> SeatView:
        """Rebuild a view from its wire form, refusing anything that is not one."""
        try:
            return from_map(cls, data)
        except ViewError:
            raise
        except ProtocolError as exc:
            raise ViewError(exc.message) from None

    def check(self) -> None:
        """What the annotations cannot say; `from_map` calls it once the fields are in."""
        if not 2 <= self.players <= 7 or not 0 <= self.seat < self.players:
            raise ViewError("view has an impossible seat or table size")
        if not self._consistent():
            raise ViewError("view has a field of the wrong type or size")
        plays = self.trick
        if not all(self._is_seat(seat) for seat, _ in plays):
            raise ViewError("view holds a play by a seat not at the table")
        if not all(self._is_seat(seat) for trick in self.tricks for seat, _ in trick.plays):
            raise ViewError("view holds a trick played by a seat not at the table")
        try:
            for text in (*self.hand, *self.legal_plays, *(card for _, card in plays)):
                Card.parse(text)
        except (ValueError, TypeError) as exc:
            raise ViewError(f"view holds a bad card or trick: {exc}") from None

    def _is_seat(self, value: Any) -> bool:
        return type(value) is int and 0 <= value < self.players

    def _consistent(self) -> bool:
        """Seats within the table, lists as long as the table, cards where cards go."""
        is_seat = self._is_seat
        return (
            (not self.spectator or not (self.hand or self.legal_bids or self.legal_plays))
            and (self.players == 4 or not self.partnership)
            and is_seat(self.dealer)
            and (self.turn is None or is_seat(self.turn))
            and (self.pitcher is None or is_seat(self.pitcher))
            and (self.winner is None or 0 <= self.winner < self.sides)
            and self.trump in (None, "C", "D", "H", "S")
            and len(self.hand_counts) == len(self.tricks_won) == self.players
            and len(self.scores) == self.sides
            and all(is_seat(seat) for seat, _ in self.bids)
            and all(is_seat(t.leader) and is_seat(t.winner) for t in self.tricks)
            and all(len(row) == self.sides for row in self.score_history)
        )


def public_result(result: HandResult) -> HandResult:
    """What a view shows of a finished hand: all of it. Everything in it was played face
    up (a thrown-in hand, `redeal`, has no pitcher, bid or trump; `high`/`low` and their
    cards are None when no natural trump was dealt; `joker` is the joker's captor)."""
    return result


def plain_result(result: HandResult | None) -> dict[str, Any] | None:
    """A view's `last_result` as the wire carries it."""
    return None if result is None else result.to_wire()


_HOUSE_RULES: dict[tuple[tuple[str, Any], ...], HouseRules] = {}
"""`HouseRules` by their known options (few: each option has a handful of values)."""


def _house_rules(wire: dict[str, Any]) -> HouseRules:
    known = tuple((name, value) for name, value in wire.items() if value in OPTIONS.get(name, ()))
    rules = _HOUSE_RULES.get(known)
    if rules is None:
        try:
            rules = HouseRules.from_wire(dict(known))
        except RulesConfigError:  # a known value of the wrong type (True for 1)
            rules = HouseRules()
        rules = _HOUSE_RULES[known] = rules
    return rules


_RULES_WIRE: dict[HouseRules, dict[str, Any]] = {}


def _rules_wire(rules: HouseRules) -> dict[str, Any]:
    """`rules.to_wire()`, built once per set of rules (a view is built after every change).
    Every view of the table shares the one map: treat it as read-only."""
    wire = _RULES_WIRE.get(rules)
    if wire is None:
        wire = _RULES_WIRE[rules] = rules.to_wire()
    return wire


def seat_view(match: Match, seat: int) -> SeatView:
    """The view of `seat`: its own cards, the public table, and nothing else."""
    if not 0 <= seat < match.settings.players:
        raise ValueError(f"there is no seat {seat}")
    return SeatView(**{**_private(match, seat, match.turn), **_public(match), **_typed(match)})


def spectator_view(match: Match) -> SeatView:
    """What someone without a seat may see: the public table, and no hand at all."""
    return SeatView(**{**spectator_private(), **_public(match), **_typed(match)})


def spectator_private() -> dict[str, Any]:
    """The private part of a spectator's view (see `split_views`): nothing of anyone's.
    One shared map (read-only), like `_waiting_private`'s."""
    return _SPECTATOR_PRIVATE


def _private_part(
    seat: int,
    hand: list[str],
    *,
    spectator: bool = False,
    legal_bids: list[int | None] | None = None,
    legal_plays: list[str] | None = None,
    why: RulesError | None = None,
) -> dict[str, Any]:
    """The private part of a view (what only its seat sees), its fields spelled here
    once for every case: a spectator's, no hand yet, a seat waiting, the seat to act."""
    return {
        "seat": seat,
        "spectator": spectator,
        "hand": hand,
        "legal_bids": legal_bids or [],
        "legal_plays": legal_plays or [],
        "play_rule": None if why is None else why.message,
        "play_meaning": None if why is None else {"code": why.code, **(why.params or {})},
    }


_SPECTATOR_PRIVATE: dict[str, Any] = _private_part(0, [], spectator=True)


def split_views(match: Match) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """Every seat's view for one broadcast, in three parts: the public entries that stay
    the same until a trick or a hand ends (`_settled`: one shared object meanwhile, so
    the host packs it once a trick, not once a move), the rest of what every seat sees
    alike, and one map per seat of what only it sees (seat, hand, legal_bids,
    legal_plays, play_rule). A seat's view is `{**private[seat], **settled, **public}`."""
    turn = match.turn
    return (
        _settled(match),
        _moving(match),
        [_private(match, seat, turn) for seat in range(match.settings.players)],
    )


def _public(match: Match) -> dict[str, Any]:
    """What every seat sees alike: the table, bids, cards played, scores."""
    return {**_settled(match), **_moving(match)}


def _typed(match: Match) -> dict[str, Any]:
    """The public entries a `SeatView` holds as the rules' own shapes, where the wire
    parts above hold their maps (the rules' objects are frozen, so they are shared)."""
    last, hand = match.last_result, match.hand
    return {
        "tricks": list(hand.tricks) if hand else [],
        "last_result": public_result(last) if last else None,
    }


_KEPT: WeakKeyDictionary[Match, dict[str | int, tuple[tuple[int, ...], dict[str, Any]]]] = (
    WeakKeyDictionary()
)
"""Parts of a match's views kept between moves: by part ("settled", or a seat), the key
they were built for and the map."""


def _kept(
    match: Match,
    part: str | int,
    key: tuple[int, ...],
    build: Callable[..., dict[str, Any]],
    *args: Any,
) -> dict[str, Any]:
    """`build(match, *args)`, built again only when `key` differs from the one this part
    was last built for: one shared object meanwhile (read-only), so the host packs it
    once for as long as it lasts (`protocol.PackedEntries` keeps packings by identity)."""
    parts = _KEPT.get(match)
    if parts is None:
        parts = _KEPT[match] = {}
    kept = parts.get(part)
    if kept is not None and kept[0] == key:
        return kept[1]
    built = build(match, *args)
    parts[part] = (key, built)
    return built


def _settled(match: Match) -> dict[str, Any]:
    """The public entries that change only when a hand is dealt, a trick is taken or a
    hand is scored: the match's settings and scores, the last hand's result, the
    finished tricks. Kept while those stay the same (three moves in four change none)."""
    hand = match.hand
    key = (match.hand_number, len(match.results), len(hand.tricks) if hand else -1)
    return _kept(match, "settled", key, _build_settled)


def _build_settled(match: Match) -> dict[str, Any]:
    settings, hand = match.settings, match.hand
    return {
        "players": settings.players,
        "partnership": settings.partnership,
        "target": settings.target,
        "hand_number": match.hand_number,
        "dealer": match.dealer,
        "scores": list(match.scores),
        "last_result": _result_wire(match),
        "winner": match.winner,
        "rules": _rules_wire(settings.rules),
        "score_history": _score_history(match),
        "tricks": [trick.to_wire() for trick in hand.tricks] if hand else [],
        "tricks_won": (
            _tricks_won(hand.tricks, settings.players) if hand else [0] * settings.players
        ),
    }


_RESULT_WIRES: WeakKeyDictionary[Match, tuple[HandResult | None, dict[str, Any] | None]] = (
    WeakKeyDictionary()
)
"""Each match's last result and its map, kept for the hand: the public part that lasts
a trick is rebuilt after every trick, the result only once a hand."""


def _result_wire(match: Match) -> dict[str, Any] | None:
    last = match.last_result
    kept = _RESULT_WIRES.get(match)
    if kept is None or kept[0] is not last:
        kept = _RESULT_WIRES[match] = (last, plain_result(public_result(last) if last else None))
    return kept[1]


def _moving(match: Match) -> dict[str, Any]:
    """The public entries a move may change: whose turn, the bids, the trick on the table."""
    hand, phase = match.hand, match.phase
    return {
        "phase": phase,
        "turn": match.turn,
        "step": hand.step if hand else 0,
        "hand_counts": (
            [len(cards) for cards in hand.hands] if hand else [0] * match.settings.players
        ),
        "bids": [(bidder, amount) for bidder, amount in hand.bids] if hand else [],
        "high_bid": hand.high_bid if hand else None,
        "pitcher": hand.pitcher if hand else None,
        "trump": hand.trump.value if hand and hand.trump else None,
        "trick": [(player, card.text) for player, card in hand.trick] if hand else [],
    }


def _tricks_won(tricks: list[Trick], players: int) -> list[int]:
    """How many of the hand's finished tricks each seat took (one pass over the tricks,
    not one per seat: this runs for every view after every change)."""
    won = [0] * players
    for trick in tricks:
        won[trick.winner] += 1
    return won


_HISTORIES: WeakKeyDictionary[Match, list[list[int]]] = WeakKeyDictionary()


def _score_history(match: Match) -> list[list[int]]:
    """The scores after every hand, kept per match and grown by one row per hand, so a
    view does not rebuild every row (a bots-only simulation can run thousands of hands).
    Each view gets its own copy of the outer list (a C-level copy); the rows are shared
    and never changed."""
    history = _HISTORIES.get(match)
    if history is None or len(history) > len(match.results):
        history = _HISTORIES[match] = []
    for result in match.results[len(history) :]:
        history.append(list(result.scores))
    return list(history)


def _private(match: Match, seat: int, turn: int | None) -> dict[str, Any]:
    """What only `seat` may see: its own cards and choices (`turn` is `match.turn`,
    worked out once for every seat's part)."""
    hand = match.hand
    if hand is None:
        return _private_part(seat, [])
    if seat != turn:  # no choices (as `legal_bids` and `legal_plays` say): skip them
        return _waiting_private(match, seat)
    held = hand.hands[seat]
    legal = match.legal_plays(seat)
    refused = next((card for card in held if card not in legal), None) if legal else None
    return _private_part(
        seat,
        [card.text for card in sorted(held, key=_AS_HELD)],
        legal_bids=list(match.legal_bids(seat)),
        legal_plays=[card.text for card in sorted(legal, key=_AS_HELD)],
        why=None if refused is None else _why_refused(match, seat, refused),
    )


def _waiting_private(match: Match, seat: int) -> dict[str, Any]:
    """The private part of a seat that is not to act: its cards and nothing else, kept
    while the seat holds the same cards (the same hand, as many cards: a seat's cards
    change only when it plays or a hand is dealt). After a move, every seat but the
    mover and the next to act holds the same cards."""
    assert match.hand is not None
    key = (match.hand_number, len(match.hand.hands[seat]))
    return _kept(match, seat, key, _build_waiting, seat)


def _build_waiting(match: Match, seat: int) -> dict[str, Any]:
    assert match.hand is not None
    return _private_part(seat, [card.text for card in sorted(match.hand.hands[seat], key=_AS_HELD)])


def _why_refused(match: Match, seat: int, card: Card) -> RulesError | None:
    """What the host answers a play of `card` with: the rules' own refusal."""
    try:
        match.check_play(seat, card)
    except RulesError as exc:
        return exc
    return None


_AS_HELD = operator.attrgetter("hand_order")
"""How a player holds a hand (`Card.hand_order`), as a sort key that calls no Python."""


def running_tally(view: SeatView) -> dict[str, Any]:
    """What this hand's completed tricks have decided so far, from public cards only:
    the highest and lowest trump captured yet and by whom, who took the jack of trump,
    and each side's Game (trick) points. High and Low are "so far": a higher (lower)
    trump may still be in someone's hand, unless it is the ace (the two).

    The result is {"high": [seat, card] | None, "low": ..., "jack": seat | None,
    "joker": seat | None, "game_points": [per side]}; High and Low count natural trumps
    only (the joker is not one). The tricks are a checked view's (`SeatView.check`)."""
    high: tuple[int, Card] | None = None
    low: tuple[int, Card] | None = None
    jack: int | None = None
    joker: int | None = None
    game_points = [0] * view.sides
    trump = view.trump
    for trick in view.tricks:
        winner = trick.winner
        for _, card in trick.plays:
            game_points[view.side_of(winner)] += card.game_points
            if card.suit is None:
                joker = winner
                continue
            if trump is None or card.suit.value != trump:
                continue
            if high is None or card.rank > high[1].rank:
                high = (winner, card)
            if low is None or card.rank < low[1].rank:
                low = (winner, card)
            if card.rank == 11:
                jack = winner
    return {
        "high": plain(high),
        "low": plain(low),
        "jack": jack,
        "joker": joker,
        "game_points": game_points,
    }
