"""A lean model of one hand for the search bot: cards as small ints, hands as lists.

The search plays thousands of hands per decision, and the engine's `Card` objects,
frozensets and per-play checks cost more than the search can afford. This module
plays the same rules on ints: `tests/test_playout.py` plays random hands through
it and through `pitchnet.rules` side by side, under every option, and checks
that both agree on every legal move, every trick winner and every point. The
engine stays the one truth for the rules; this is a fast copy that the tests pin.

A card is `suit * 16 + rank` (suits C D H S = 0..3, ranks 2..14). The joker is
`JOKER` until trump is known; from then on it is coded as the trump suit's rank 1,
which makes it the lowest trump with no special case in the play.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pitchnet.cards import GAME_POINTS, JACK, RANK_LETTERS
from pitchnet.rules import DEFAULT_RULES, HouseRules

SUIT_LETTERS = "CDHS"
SPADES = 3
JOKER = 64
"""The joker before trump is known (a 'suit' of its own, 4)."""
JOKER_TEXT = "JK"
JOKER_RANK = 1
NO_SIDE = -1

POINTS_OF_RANK = [GAME_POINTS.get(rank, 0) for rank in range(16)]
"""Trick points toward Game by rank (the joker's rank 1 counts 0)."""

NATURAL_CODES: tuple[int, ...] = tuple(
    suit * 16 + rank for suit in range(4) for rank in range(2, 15)
)


def code_of(text: str) -> int:
    """The int of a card in its text form ("TD", "JK")."""
    if text == JOKER_TEXT:
        return JOKER
    return SUIT_LETTERS.index(text[1]) * 16 + RANK_LETTERS.index(text[0]) + 2


def text_of(code: int) -> str:
    """The text form of a card's int (a joker coded as a trump included)."""
    if code == JOKER or code & 15 == JOKER_RANK:
        return JOKER_TEXT
    return RANK_LETTERS[(code & 15) - 2] + SUIT_LETTERS[code >> 4]


def with_trump(code: int, trump: int) -> int:
    """The card's int once `trump` is known: the joker becomes the trump suit's rank 1."""
    return trump * 16 + JOKER_RANK if code == JOKER else code


def trump_named_by(code: int) -> int:
    """The trump suit a first lead names: its suit, or spades for the joker."""
    return SPADES if code == JOKER else code >> 4


@dataclass(frozen=True, slots=True)
class Table:
    """What the lean model needs to know of the table's settings and options."""

    players: int = 4
    partnership: bool = False
    must_follow: bool = False
    low_dealt: bool = False
    joker: bool = False
    smudge: bool = False
    dealer_steal: bool = True
    all_pass_redeal: bool = False
    min_bid: int = 1
    target: int = 7
    rules: HouseRules = DEFAULT_RULES
    """The house rules these flags were read from (the bidding model reads them too)."""

    @property
    def sides(self) -> int:
        return 2 if self.partnership else self.players

    @property
    def top_bid(self) -> int:
        return 5 if self.joker else 4

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.partnership else seat

    def sides_by_seat(self) -> list[int]:
        return [self.side_of(seat) for seat in range(self.players)]

    def deck(self) -> list[int]:
        return [*NATURAL_CODES, JOKER] if self.joker else list(NATURAL_CODES)


def table_for(players: int, partnership: bool, target: int, rules: HouseRules) -> Table:
    """The lean model's settings for a table and its house rules."""
    return Table(
        players=players,
        partnership=partnership,
        must_follow=rules.follow == "must_follow",
        low_dealt=rules.low == "dealt",
        joker=rules.has_joker,
        smudge=rules.smudge == "on",
        dealer_steal=rules.dealer_steal == "on",
        all_pass_redeal=rules.all_pass == "redeal",
        min_bid=rules.min_bid,
        target=target,
        rules=rules,
    )


def legal(
    hand: Sequence[int], trick: Sequence[tuple[int, int]], trump: int, must_follow: bool
) -> list[int]:
    """The cards of `hand` that may be played on `trick` (trump known, joker coded)."""
    if not trick:
        return list(hand)
    led = trick[0][1] >> 4
    if led == trump:
        trumps = [c for c in hand if c >> 4 == trump]
        return trumps or list(hand)
    follow = [c for c in hand if c >> 4 == led]
    if not follow:
        return list(hand)
    if must_follow:
        return follow
    return [c for c in hand if c >> 4 == led or c >> 4 == trump]


def winner_of(trick: Sequence[tuple[int, int]], trump: int) -> int:
    """The seat winning `trick` so far: highest trump, else highest card of the suit led."""
    seat, best = trick[0]
    led = best >> 4
    for player, card in trick[1:]:
        if _beats(card, best, led, trump):
            seat, best = player, card
    return seat


def _beats(card: int, best: int, led: int, trump: int) -> bool:
    suit = card >> 4
    if suit == trump:
        return best >> 4 != trump or card > best
    return best >> 4 != trump and suit == led and card > best


class Tally:
    """The points so far of one hand: who took High, Low, Jack, the Joker, and trick points.

    Kept per trick as the cards are taken, so a playout never rescans the hand."""

    __slots__ = ("game", "high", "high_side", "jack_side", "joker_side", "low", "low_side")

    def __init__(self, sides: int) -> None:
        self.high, self.high_side = 0, NO_SIDE
        self.low, self.low_side = 99, NO_SIDE
        self.jack_side = self.joker_side = NO_SIDE
        self.game = [0] * sides

    def copy(self) -> Tally:
        other = Tally.__new__(Tally)
        other.high, other.high_side = self.high, self.high_side
        other.low, other.low_side = self.low, self.low_side
        other.jack_side, other.joker_side = self.jack_side, self.joker_side
        other.game = self.game[:]
        return other

    def take(
        self, trick: Sequence[tuple[int, int]], winner_side: int, trump: int, table: Table
    ) -> None:
        """Credit a finished trick's cards to the side that won it."""
        total = 0
        for seat, card in trick:
            rank = card & 15
            total += POINTS_OF_RANK[rank]
            if card >> 4 == trump:
                if rank == JOKER_RANK:
                    self.joker_side = winner_side
                    continue
                if rank > self.high:
                    self.high, self.high_side = rank, winner_side
                if rank < self.low:
                    self.low = rank
                    self.low_side = table.side_of(seat) if table.low_dealt else winner_side
                if rank == JACK:
                    self.jack_side = winner_side
        self.game[winner_side] += total

    def earned(self) -> list[int]:
        """Points won per side, as RULES.md scores them at the end of the hand."""
        earned = [0] * len(self.game)
        for side in (self.high_side, self.low_side, self.jack_side, self.joker_side):
            if side != NO_SIDE:
                earned[side] += 1
        best = max(self.game)
        if self.game.count(best) == 1:
            earned[self.game.index(best)] += 1
        return earned


def play_out(
    hands: list[list[int]],
    trick: list[tuple[int, int]],
    turn: int,
    trump: int,
    tally: Tally,
    pitch_side: int,
    table: Table,
    rng: random.Random,
    sides: Sequence[int],
) -> Tally:
    """Play the hand to its end with `choose` for every seat. Mutates `hands`, `trick`
    and `tally`; returns the tally."""
    players = table.players
    must_follow = table.must_follow
    while hands[turn] or trick:
        if len(trick) == players:
            winner = winner_of(trick, trump)
            tally.take(trick, sides[winner], trump, table)
            trick = []
            turn = winner
            if not hands[turn]:
                break
            continue
        hand = hands[turn]
        options = legal(hand, trick, trump, must_follow)
        card = choose(options, hands, trick, trump, turn, sides, pitch_side, players, rng)
        hand.remove(card)
        trick.append((turn, card))
        turn = (turn + 1) % players
    return tally


EXPLORE = 0.03
"""How often the playout policy plays a random legal card, so playouts are not all alike."""


def choose(
    options: list[int],
    hands: list[list[int]],
    trick: list[tuple[int, int]],
    trump: int,
    seat: int,
    sides: Sequence[int],
    pitch_side: int,
    players: int,
    rng: random.Random,
) -> int:
    """The playout policy: a quick rule of thumb per card, cheap enough to run a
    hundred thousand times a second. It sees every hand of the sampled deal (a playout
    is a perfect-information game), which makes it a fair judge of how that deal goes:
    lead a trump nobody can beat, else a low plain card; take a trick that holds points
    with the cheapest card nobody after us can beat; else throw the cheapest card,
    feeding our side's trick when nobody after us can take it."""
    if len(options) == 1:
        return options[0]
    if rng.random() < EXPLORE:
        return options[int(rng.random() * len(options))]
    if not trick:
        trumps = [c for c in options if c >> 4 == trump]
        if trumps:
            top = max(trumps)
            if _secure(top, top >> 4, trump, hands, seat, players - 1, players) and (
                sides[seat] == pitch_side or top & 15 >= 13
            ):
                return top
        off = [c for c in options if c >> 4 != trump]
        if off:
            return min(off, key=_lead_cost)
        return min(trumps, key=_trump_cost)
    led = trick[0][1] >> 4
    best_seat, best = trick[0]
    value = 0
    for player, card in trick:
        if _beats(card, best, led, trump):
            best_seat, best = player, card
        rank = card & 15
        value += POINTS_OF_RANK[rank]
        if card >> 4 == trump and (rank == JACK or rank <= 3 or rank >= 13):
            value += 5
    after = players - len(trick) - 1
    # The best trump and the best card of the suit led still to come to this trick: a
    # card is safe from the seats after us when neither beats it.
    top_trump = top_led = -1
    for step in range(1, after + 1):
        for other in hands[(seat + step) % players]:
            suit = other >> 4
            if suit == trump:
                if other > top_trump:
                    top_trump = other
            elif suit == led and other > top_led:
                top_led = other
    if sides[best_seat] == sides[seat]:
        if _safe(best, trump, top_trump, top_led):
            return _best(options, trump, _gift)
        return _best(options, trump, _keep)
    winners = [
        c for c in options if _beats(c, best, led, trump) and _safe(c, trump, top_trump, top_led)
    ]
    if winners and (value > 0 or after == 0 or rng.random() < 0.5):
        return _best(winners, trump, _win_cost)
    losers = [c for c in options if not _beats(c, best, led, trump)]
    return _best(losers or options, trump, _keep)


def _secure(
    card: int, led: int, trump: int, hands: list[list[int]], seat: int, after: int, players: int
) -> bool:
    """Nobody still to play to this trick holds a card that would beat `card`."""
    for step in range(1, after + 1):
        for other in hands[(seat + step) % players]:
            if _beats(other, card, led, trump):
                return False
    return True


def _safe(card: int, trump: int, top_trump: int, top_led: int) -> bool:
    """Whether `card`, winning the trick, stays winning against the best trump and the
    best card of the suit led still to come (-1: none): `_secure` from their tops."""
    if card >> 4 == trump:
        return card > top_trump
    return top_trump < 0 and card > top_led


def _best(cards: list[int], trump: int, score: Callable[[int, bool], int]) -> int:
    """The card with the highest `score(card, is_trump)` (the first of equals)."""
    chosen, top = cards[0], score(cards[0], cards[0] >> 4 == trump)
    for card in cards[1:]:
        value = score(card, card >> 4 == trump)
        if value > top:
            chosen, top = card, value
    return chosen


def _lead_cost(card: int) -> int:
    return POINTS_OF_RANK[card & 15] * 4 + (card & 15)


def _trump_cost(card: int) -> int:
    rank = card & 15
    return 40 if rank == JACK else rank


def _keep(card: int, is_trump: bool) -> int:
    """How little we mind giving the card away: low plain cards first, counters and
    trumps (the jack and the low ones above all) last."""
    rank = card & 15
    if is_trump:
        return -100 - rank - (60 if rank == JACK else 30 if rank <= 3 else 0)
    return -POINTS_OF_RANK[rank] * 3 - rank


def _gift(card: int, is_trump: bool) -> int:
    """Worth of throwing the card on a trick our side surely takes (we are last)."""
    rank = card & 15
    if is_trump:
        return 15 if rank == JACK else 8 if rank <= 3 else -rank
    return POINTS_OF_RANK[rank] * 2 - rank // 4


def _win_cost(card: int, is_trump: bool) -> int:
    """Win with the cheapest card: a plain card before a trump, low before high."""
    return -(card & 15) - (20 if is_trump else 0)
