"""The rules of Pitch as written in RULES.md: one hand (`Hand`) and a whole match (`Match`).

Sans-IO and deterministic: given the deck order and the actions, the state is
always the same, which is what lets the host replay its journal and the rules
vectors check the engine. Every illegal action raises `RulesError` *before*
anything is changed, so a refused action leaves no trace. The house rules
(`Settings.rules`, pitchnet/house_rules.py) change bids, following and scoring
exactly where RULES.md says; the defaults play the rule book.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pitchnet.cards import GAME_POINTS, JACK, Card, Suit, validate_deck
from pitchnet.house_rules import PRESETS, TARGETS, HouseRules, Preset, RulesConfigError
from pitchnet.schema import from_map, plain_map

__all__ = ["PRESETS", "TARGETS", "HouseRules", "Preset", "RulesConfigError"]  # re-exported

DEFAULT_RULES = HouseRules()
HAND_SIZE = 6
MIN_PLAYERS, MAX_PLAYERS = 2, 7

Bid = int | None
"""A bid amount (1..4, or up to 5 with the joker), or None for a pass."""


class RulesError(Exception):
    """An action the rules refuse. `code` is short and stable (for the wire and tests);
    `params` say the rest of what was meant (a seat, a bid, a suit: plain wire values,
    `why` telling apart the cases of one code), so each client can word it in its
    player's language (client/meanings.py); `message` is the English sentence, sent too
    for clients older than that."""

    def __init__(self, code: str, message: str, params: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.params = params


class Phase(StrEnum):
    BIDDING = "bidding"
    PLAYING = "playing"
    HAND_OVER = "hand_over"
    MATCH_OVER = "match_over"


@dataclass(frozen=True, slots=True)
class Settings:
    """What is fixed for a whole match, the house rules included."""

    players: int = 4
    partnership: bool = False
    target: int = 7
    rules: HouseRules = DEFAULT_RULES

    def __post_init__(self) -> None:
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ValueError(f"Pitch takes {MIN_PLAYERS} to {MAX_PLAYERS} players")
        if self.partnership and self.players != 4:
            raise ValueError("partnership play needs exactly 4 players")
        if self.target not in TARGETS:
            raise ValueError(f"the target must be one of {', '.join(map(str, TARGETS))}")
        if not isinstance(self.rules, HouseRules):
            raise ValueError("the house rules must be a HouseRules")

    @property
    def sides(self) -> int:
        """Scoring units: teams in partnership play, otherwise seats."""
        return 2 if self.partnership else self.players

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.partnership else seat


@dataclass(frozen=True, slots=True)
class Trick:
    """A completed trick: who led, the cards in play order as (seat, card), who won."""

    leader: int
    plays: tuple[tuple[int, Card], ...]
    winner: int

    def to_wire(self) -> dict[str, Any]:
        """`{"leader": 0, "plays": [[0, "AS"], ...], "winner": 2}` (PROTOCOL.md, a view's
        `tricks`). Spelled out rather than `plain_map`: it runs for every finished trick
        of the hand once a trick, and the plays are the one nested part."""
        return {
            "leader": self.leader,
            "plays": [[seat, card.text] for seat, card in self.plays],
            "winner": self.winner,
        }

    @classmethod
    def from_wire(cls, data: Any) -> Trick:
        """A trick from an untrusted map (raises ProtocolError); seats are checked against
        the table by the view holding it (`SeatView.check`)."""
        return from_map(cls, data)


@dataclass(frozen=True, slots=True)
class HandResult:
    """The outcome of one hand, with every field the rules vectors check.

    A hand thrown in when everyone passed (`all_pass: redeal`) is a result too, with
    `redeal` true, no pitcher, bid or trump, and the scores unchanged. `high` and `low`
    (and their cards) are None when no natural trump was dealt (only with the joker);
    `joker` is the joker's captor, None when it was not dealt or is not played."""

    pitcher: int | None
    bid: int | None
    trump: Suit | None
    trick_winners: tuple[int, ...]
    high: int | None
    low: int | None
    jack: int | None
    game: int | None
    game_points: tuple[int, ...]
    earned: tuple[int, ...]
    made: bool
    scores_before: tuple[int, ...]
    scores: tuple[int, ...]
    winner: int | None
    high_card: Card | None
    low_card: Card | None
    joker: int | None = None
    smudge: bool = False
    """Whether the pitcher's side won the match by a smudge this hand."""
    redeal: bool = False

    def to_wire(self) -> dict[str, Any]:
        """The map a view's `last_result` and a `hand` event carry (PROTOCOL.md): these
        fields in this order, the trump as its letter and the cards as their text."""
        return plain_map(self)

    @classmethod
    def from_wire(cls, data: Any) -> HandResult:
        """A result from an untrusted map (raises ProtocolError); `joker`, `smudge` and
        `redeal` default for an older host that did not send them."""
        return from_map(cls, data)


@dataclass(frozen=True, slots=True)
class _Points:
    high: int | None
    low: int | None
    jack: int | None
    joker: int | None
    game: int | None
    game_points: list[int]
    earned: list[int]
    high_card: Card | None
    low_card: Card | None


def suit_as_played(card: Card, trump: Suit | None) -> Suit | None:
    """The suit a card counts as: its own, or trump for the joker (None before trump
    is named: the joker led first names spades, see `Hand.play`)."""
    return trump if card.suit is None else card.suit


def trick_winner(plays: Sequence[tuple[int, Card]], trump: Suit) -> int:
    """The highest trump wins; failing that, the highest card of the suit led. The
    joker is a trump of rank 1, below the 2 of trump."""
    led = suit_as_played(plays[0][1], trump)
    trumps = [(card.rank, seat) for seat, card in plays if card.suit is trump or card.suit is None]
    if trumps:
        return max(trumps)[1]
    return max((card.rank, seat) for seat, card in plays if card.suit is led)[1]


@dataclass(frozen=True, slots=True)
class _BidTable:
    """Legal bids as fixed tuples for one set of house rules (asked for on every bid):
    a non-dealer must bid over the high bid (0 = none yet); the dealer may pass or bid
    at least the high bid (stealing it; over it with `dealer_steal: off`), or must bid
    at least 2 when everyone passed (or, with `all_pass: redeal`, bids like anyone)."""

    over: dict[int, tuple[Bid, ...]]
    dealer: dict[int, tuple[Bid, ...]]
    dealer_first: tuple[Bid, ...]
    top: int

    @classmethod
    def of(cls, rules: HouseRules) -> _BidTable:
        bids = rules.bids
        steal = 0 if rules.dealer_steal == "on" else 1
        over = {high: (None, *(b for b in bids if b > high)) for high in (0, *range(1, 6))}
        dealer = {high: (None, *(b for b in bids if b >= high + steal)) for high in range(1, 6)}
        if rules.all_pass == "redeal":
            first: tuple[Bid, ...] = over[0]
        else:
            first = tuple(b for b in bids if b >= 2)
        return cls(over, dealer, first, rules.top_bid)


_BID_TABLES: dict[HouseRules, _BidTable] = {}


def _bid_table(rules: HouseRules) -> _BidTable:
    table = _BID_TABLES.get(rules)
    if table is None:
        table = _BID_TABLES[rules] = _BidTable.of(rules)
    return table


class Hand:
    """One deal: the auction, six tricks and the points. Scoring against the match
    totals is done by `Match`, which knows the scores and the target."""

    def __init__(self, settings: Settings, dealer: int, hands: Sequence[Sequence[Card]]) -> None:
        if len(hands) != settings.players or any(len(h) != HAND_SIZE for h in hands):
            raise ValueError(f"each of {settings.players} seats must be dealt {HAND_SIZE} cards")
        dealt = [card for hand in hands for card in hand]
        if len(set(dealt)) != len(dealt):
            raise ValueError("a card was dealt twice")
        if not settings.rules.has_joker and any(card.suit is None for card in dealt):
            raise ValueError("the joker was dealt at a table that plays without it")
        self.settings = settings
        self.rules = settings.rules
        self._bid_table = _bid_table(settings.rules)
        self._must_follow = settings.rules.follow == "must_follow"
        self.players = settings.players
        self.dealer = dealer
        self.dealt: tuple[tuple[Card, ...], ...] = tuple(tuple(h) for h in hands)
        self.hands: list[list[Card]] = [list(h) for h in hands]
        self.bids: list[tuple[int, Bid]] = []
        self.high_bid: int | None = None
        self.pitcher: int | None = None
        self.trump: Suit | None = None
        self.trick: list[tuple[int, Card]] = []
        self.tricks: list[Trick] = []
        self.captured: list[list[Card]] = [[] for _ in range(self.players)]
        self.turn: int | None = (dealer + 1) % self.players
        self.bidding = True
        self.thrown_in = False
        """Everyone passed under `all_pass: redeal`: the hand is over, nothing is scored."""
        self.over = False
        """Six tricks played, or thrown in: no more bids or plays."""

    # ---- queries -------------------------------------------------------------------------

    @property
    def complete(self) -> bool:
        """Over: six tricks played, or thrown in."""
        return self.over

    @property
    def step(self) -> int:
        """How many bids and plays this hand has seen: with the hand number, it names one
        turn exactly, so a move meant for an earlier turn can be told from a new one."""
        return len(self.bids) + len(self.tricks) * self.players + len(self.trick)

    @property
    def leader(self) -> int | None:
        """Who leads (or led) the current trick."""
        if self.trick:
            return self.trick[0][0]
        return self.turn if not self.bidding and not self.over else None

    def legal_bids(self, seat: int) -> tuple[Bid, ...]:
        """The bids `seat` may make now; empty when it is not that seat's turn to bid."""
        if not self.bidding or seat != self.turn:
            return ()
        table = self._bid_table
        if seat != self.dealer:
            return table.over[self.high_bid or 0]
        if self.high_bid is None:
            return table.dealer_first
        return table.dealer[self.high_bid]

    def _led_suit(self) -> Suit | None:
        """The suit of the trick being played (trump when the joker led it)."""
        return suit_as_played(self.trick[0][1], self.trump) if self.trick else None

    def legal_plays(self, seat: int) -> frozenset[Card]:
        """The cards `seat` may play now (a set, so `card in hand.legal_plays(seat)` works)."""
        if self.bidding or seat != self.turn or self.over:
            return frozenset()
        hand = self.hands[seat]
        if not self.trick:
            return frozenset(hand)
        trump = self.trump
        led = self.trick[0][1].suit or trump  # the joker led: a trump lead
        if led is trump:  # a trump lead: a trump (the joker too) if you hold one
            trumps = [c for c in hand if c.suit is trump or c.suit is None]
            return frozenset(trumps or hand)
        follows = [c for c in hand if c.suit is led]
        if not follows:
            return frozenset(hand)
        if self._must_follow:
            return frozenset(follows)
        return frozenset([c for c in hand if c.suit is led or c.suit is trump or c.suit is None])

    def _follows_suit(self, hand: list[Card], card: Card) -> bool:
        """Whether `card`, held in `hand`, is in `legal_plays` (the turn and phase being
        checked already). Runs on every play, so it answers without building the set.
        The joker (suit None) is a trump wherever trumps are asked about."""
        if not self.trick:
            return True
        trump = self.trump
        led = self.trick[0][1].suit or trump  # the joker led: a trump lead
        suit = card.suit
        if led is trump:
            return (
                suit is trump
                or suit is None
                or all(c.suit is not trump and c.suit is not None for c in hand)
            )
        if suit is led or all(c.suit is not led for c in hand):
            return True
        return not self._must_follow and (suit is trump or suit is None)

    # ---- actions -------------------------------------------------------------------------

    def _not_your_turn(self, doing: str) -> RulesError:
        """The refusal players read as it is: seats counted from 1, as the table shows them."""
        assert self.turn is not None  # the bidding and an unfinished hand always have a turn
        return RulesError(
            "not_your_turn",
            f"It is seat {self.turn + 1}'s turn to {doing}.",
            {"seat": self.turn, "why": doing},
        )

    def check_bid(self, seat: int, amount: Bid) -> None:
        """Raise RulesError if `seat` may not bid `amount` now; change nothing."""
        if not self.bidding:
            raise RulesError("not_bidding", "The bidding is over.")
        if seat != self.turn:
            raise self._not_your_turn("bid")
        top = self._bid_table.top
        if amount is not None and (type(amount) is not int or not 1 <= amount <= top):
            words = ", ".join(map(str, self.rules.bids[:-1]))
            raise RulesError(
                "bad_bid",
                f"A bid is pass, {words} or {self.rules.top_bid}.",
                {"bids": list(self.rules.bids)},
            )
        legal = self.legal_bids(seat)
        if amount not in legal:
            raise RulesError(*self._why_bid_refused(seat, amount))

    def bid(self, seat: int, amount: Bid) -> None:
        """Make `seat`'s one bid: None passes, a number bids. Raises RulesError if illegal.
        The top bid (4, or 5 with the joker) and the dealer's bid end the auction; if
        the dealer passes too (only with `all_pass: redeal`), the hand is thrown in."""
        self.check_bid(seat, amount)
        self.bids.append((seat, amount))
        if amount is not None:
            self.high_bid, self.pitcher = amount, seat
        if amount == self._bid_table.top or seat == self.dealer:
            self.bidding = False
            self.turn = self.pitcher
            if self.pitcher is None:
                self.thrown_in = self.over = True
        else:
            self.turn = (seat + 1) % self.players

    def _why_bid_refused(self, seat: int, amount: Bid) -> tuple[str, str, dict[str, Any]]:
        """The code, the English sentence and the parameters of a refused bid."""
        least, high = self.rules.min_bid, self.high_bid
        if amount is not None and amount < least:
            return (
                "below_min_bid",
                f"Nobody may bid {amount} at this table: the lowest bid is {least}.",
                {"bid": amount, "least": least},
            )
        if seat == self.dealer and high is None:
            least = max(2, least)
            if amount is None:
                return (
                    "dealer_must_bid",
                    f"Everyone passed: the dealer must bid at least {least}.",
                    {"least": least, "bid": None},
                )
            return (
                "dealer_must_bid",
                f"Everyone passed: the dealer must bid at least {least}, not {amount}.",
                {"least": least, "bid": amount},
            )
        if seat == self.dealer and self.rules.dealer_steal == "off":
            return (
                "no_steal",
                f"The dealer may not steal at this table: pass or bid more than {high}.",
                {"high": high},
            )
        if seat == self.dealer:
            return (
                "bid_too_low",
                f"The dealer must pass or bid at least {high}.",
                {"high": high, "why": "dealer"},
            )
        return "bid_too_low", f"You must pass or bid more than {high}.", {"high": high}

    def check_play(self, seat: int, card: Card) -> None:
        """Raise RulesError if `seat` may not play `card` now; change nothing."""
        if self.bidding:
            raise RulesError("not_playing", "The bidding is not over yet.", {"why": "bidding"})
        if self.over:
            raise RulesError("not_playing", "This hand is over.", {"why": "over"})
        if seat != self.turn:
            raise self._not_your_turn("play")
        if card not in self.hands[seat]:
            raise RulesError(
                "not_in_hand", f"You do not hold the {card.name}.", {"card": card.text}
            )
        if not self._follows_suit(self.hands[seat], card):
            raise RulesError("must_follow", *self._not_following())

    def play(self, seat: int, card: Card) -> Trick | None:
        """Play `card` from `seat`'s hand. Returns the trick if this card completed one.
        The first card names trump (the joker led first names spades)."""
        self.check_play(seat, card)
        if self.trump is None:
            self.trump = card.suit or Suit.SPADES
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        if len(self.trick) < self.players:
            self.turn = (seat + 1) % self.players
            return None
        winner = trick_winner(self.trick, self.trump)
        done = Trick(self.trick[0][0], tuple(self.trick), winner)
        self.tricks.append(done)
        self.captured[winner].extend([c for _, c in self.trick])
        self.trick = []
        self.over = len(self.tricks) == HAND_SIZE
        self.turn = None if self.over else winner
        return done

    def _not_following(self) -> tuple[str, dict[str, Any]]:
        """The English sentence and the parameters of a card that does not follow suit:
        `why` is "trump_led_joker", "trump_led", "follow" or "follow_or_trump"."""
        trump = self.trump
        led = self._led_suit()
        assert trump is not None and led is not None
        held = self.hands[self.turn] if self.turn is not None else []
        joker = any(c.suit is None for c in held)  # the joker, held: a trump too
        params = {"trump": trump.value, "led": led.value, "joker": joker}
        if led is trump:
            if not any(c.suit is trump for c in held):
                return (
                    "Trump was led: you must play a trump, and you hold the joker.",
                    {**params, "why": "trump_led_joker"},
                )
            also = " or the joker" if joker else ""
            return (
                f"Trump was led: you must play {trump.plural}{also}.",
                {**params, "why": "trump_led"},
            )
        if self._must_follow:
            return (
                f"You must follow suit: you hold a {led.plural[:-1]}.",
                {**params, "why": "follow"},
            )
        also = " or the joker" if joker else ""
        return (
            f"You must follow {led.plural} or play a trump ({trump.plural}{also}).",
            {**params, "why": "follow_or_trump"},
        )

    # ---- points --------------------------------------------------------------------------

    def points(self) -> _Points:
        """High/Low/Jack/Joker/Game winners, trick points and points earned per side.
        High and Low are among the natural trumps (the joker is not one of them); with
        `low: dealt` Low goes to the seat the lowest trump was dealt to."""
        assert self.complete and not self.thrown_in and self.trump is not None
        settings, trump = self.settings, self.trump
        # One pass over the captured cards: when the hand is complete every dealt card
        # has been captured exactly once, so the trumps in play are the captured trumps.
        high_card: Card | None = None
        low_card: Card | None = None
        high = low = None
        jack: int | None = None
        joker: int | None = None
        game_points = [0] * settings.sides
        for seat, cards in enumerate(self.captured):
            total = 0
            for card in cards:
                rank = card.rank
                total += GAME_POINTS.get(rank, 0)
                if card.suit is trump:
                    if high_card is None or rank > high_card.rank:
                        high_card, high = card, seat
                    if low_card is None or rank < low_card.rank:
                        low_card, low = card, seat
                    if rank == JACK:
                        jack = seat
                elif card.suit is None:
                    joker = seat
            game_points[settings.side_of(seat)] += total
        if low_card is not None and self.rules.low == "dealt":
            low = next(seat for seat, cards in enumerate(self.dealt) if low_card in cards)
        best = max(game_points)
        game = game_points.index(best) if game_points.count(best) == 1 else None
        earned = [0] * settings.sides
        for captor in (high, low, jack, joker):
            if captor is not None:
                earned[settings.side_of(captor)] += 1
        if game is not None:
            earned[game] += 1
        return _Points(high, low, jack, joker, game, game_points, earned, high_card, low_card)


class Match:
    """A whole match: hand after hand until a pitcher reaches the target.

    The deck order comes from outside (`deal(deck)`), so the engine stays
    deterministic; production passes `shuffled_deck()` from `secrets.SystemRandom`.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        dealer: int = 0,
        scores: Sequence[int] | None = None,
    ) -> None:
        self.settings = settings or Settings()
        if not 0 <= dealer < self.settings.players:
            raise ValueError("the dealer must be one of the seats")
        self.dealer = dealer
        self.scores: list[int] = list(scores) if scores is not None else [0] * self.settings.sides
        if len(self.scores) != self.settings.sides:
            raise ValueError(f"scores must have one entry per side ({self.settings.sides})")
        self.hand: Hand | None = None
        self.results: list[HandResult] = []
        self.winner: int | None = None
        self.hand_number = 0

    # ---- state ---------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        if self.winner is not None:
            return Phase.MATCH_OVER
        if self.hand is None or self.hand.complete:
            return Phase.HAND_OVER
        return Phase.BIDDING if self.hand.bidding else Phase.PLAYING

    @property
    def turn(self) -> int | None:
        if self.phase in (Phase.BIDDING, Phase.PLAYING):
            assert self.hand is not None
            return self.hand.turn
        return None

    def legal_bids(self, seat: int) -> tuple[Bid, ...]:
        return self.hand.legal_bids(seat) if self.hand else ()

    def legal_plays(self, seat: int) -> frozenset[Card]:
        return self.hand.legal_plays(seat) if self.hand else frozenset()

    @property
    def last_result(self) -> HandResult | None:
        return self.results[-1] if self.results else None

    # ---- actions -------------------------------------------------------------------------

    def deal(self, deck: Sequence[Card]) -> Hand:
        """Start the next hand from `deck` (all 52 cards, or 53 with the joker, top first),
        three cards at a time to each seat starting left of the dealer. The dealer rotates
        after each hand (a thrown-in hand too)."""
        if self.phase is Phase.MATCH_OVER:
            raise RulesError("match_over", "The match is over.")
        if self.hand is not None and not self.hand.complete:
            raise RulesError("hand_in_progress", "The current hand is not finished.")
        validate_deck(deck, joker=self.settings.rules.has_joker)
        if self.hand is not None:
            self.dealer = (self.dealer + 1) % self.settings.players
        return self.start_hand(deal_hands(deck, self.settings, self.dealer))

    def start_hand(self, hands: Sequence[Sequence[Card]]) -> Hand:
        """Start a hand with these cards already dealt, the current dealer dealing.
        `deal` uses it; so do the rules vectors, which give the hands directly."""
        self.hand = Hand(self.settings, self.dealer, hands)
        self.hand_number += 1
        return self.hand

    def check_bid(self, seat: int, amount: Bid) -> None:
        self._current_hand("bid").check_bid(seat, amount)

    def check_play(self, seat: int, card: Card) -> None:
        self._current_hand("play").check_play(seat, card)

    def bid(self, seat: int, amount: Bid) -> None:
        hand = self._current_hand("bid")
        hand.bid(seat, amount)
        if hand.thrown_in:
            self._throw_in(hand)

    def play(self, seat: int, card: Card) -> Trick | None:
        hand = self._current_hand("play")
        trick = hand.play(seat, card)
        if hand.over:
            self._score(hand)
        return trick

    def _current_hand(self, verb: str) -> Hand:
        # The checks `phase` makes, in its order, inlined: this runs on every action.
        if self.winner is not None:
            raise RulesError("match_over", "The match is over.")
        hand = self.hand
        if hand is None or hand.over:
            raise RulesError(
                "no_hand", f"There is no hand in progress to {verb} in.", {"why": verb}
            )
        return hand

    def _throw_in(self, hand: Hand) -> None:
        """Everyone passed (`all_pass: redeal`): nothing is scored, nobody wins."""
        scores = tuple(self.scores)
        zeros = (0,) * self.settings.sides
        self.results.append(
            HandResult(
                pitcher=None,
                bid=None,
                trump=None,
                trick_winners=(),
                high=None,
                low=None,
                jack=None,
                game=None,
                game_points=zeros,
                earned=zeros,
                made=False,
                scores_before=scores,
                scores=scores,
                winner=None,
                high_card=None,
                low_card=None,
                redeal=True,
            )
        )

    def _score(self, hand: Hand) -> None:
        settings, rules = self.settings, self.settings.rules
        assert hand.pitcher is not None and hand.high_bid is not None and hand.trump
        points = hand.points()
        pitching_side = settings.side_of(hand.pitcher)
        made = points.earned[pitching_side] >= hand.high_bid
        before = tuple(self.scores)
        for side in range(settings.sides):
            if side == pitching_side and not made:
                self.scores[side] -= hand.high_bid
            else:
                self.scores[side] += points.earned[side]
        # Smudge: the top bid made from a score that was not negative wins at once.
        smudge = (
            rules.smudge == "on"
            and made
            and hand.high_bid == rules.top_bid
            and before[pitching_side] >= 0
        )
        reached = self.scores[pitching_side] >= settings.target
        winner = pitching_side if reached or smudge else None
        self.results.append(
            HandResult(
                pitcher=hand.pitcher,
                bid=hand.high_bid,
                trump=hand.trump,
                trick_winners=tuple(t.winner for t in hand.tricks),
                high=points.high,
                low=points.low,
                jack=points.jack,
                game=points.game,
                game_points=tuple(points.game_points),
                earned=tuple(points.earned),
                made=made,
                scores_before=before,
                scores=tuple(self.scores),
                winner=winner,
                high_card=points.high_card,
                low_card=points.low_card,
                joker=points.joker,
                smudge=smudge,
            )
        )
        self.winner = winner


def deal_hands(deck: Sequence[Card], settings: Settings, dealer: int) -> list[list[Card]]:
    """Deal six cards to each seat, three at a time, starting left of the dealer (the
    cards left over stay hidden: 28 of 52, or 29 of 53 with the joker, at four seats)."""
    players = settings.players
    hands: list[list[Card]] = [[] for _ in range(players)]
    position = 0
    for _round in range(HAND_SIZE // 3):
        for offset in range(1, players + 1):
            seat = (dealer + offset) % players
            hands[seat].extend(deck[position : position + 3])
            position += 3
    return hands


@dataclass(frozen=True, slots=True)
class Action:
    """One action as the journal and the vectors record it: a bid (None = pass) or a play."""

    seat: int
    kind: str  # "bid" or "play"
    bid: Bid = None
    card: Card | None = None

    @classmethod
    def of_bid(cls, seat: int, amount: Bid) -> Action:
        return cls(seat, "bid", bid=amount)

    @classmethod
    def of_play(cls, seat: int, card: Card) -> Action:
        return cls(seat, "play", card=card)

    def apply_to(self, match: Match) -> None:
        if self.kind == "bid":
            match.bid(self.seat, self.bid)
        else:
            assert self.card is not None
            match.play(self.seat, self.card)
