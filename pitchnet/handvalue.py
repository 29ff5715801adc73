"""How much a hand is worth before it is played: the bidding model of the bots.

The `normal` and `easy` bots bid from it, and the search bot uses it to guess what
the other seats would bid in the deals it samples.
"""

from __future__ import annotations

from collections.abc import Iterable

from pitchnet.cards import JACK, Card, Suit
from pitchnet.rules import DEFAULT_RULES, HAND_SIZE, HouseRules

DECK_SIZE = 52


def _others_share(players: int, joker: bool = False) -> float:
    """The chance that one card we cannot see was dealt to another player."""
    return HAND_SIZE * (players - 1) / (DECK_SIZE + joker - HAND_SIZE)


def suit_strength(
    cards: Iterable[Card],
    suit: Suit,
    players: int,
    partnership: bool,
    rules: HouseRules = DEFAULT_RULES,
) -> float:
    """Expected points (High, Low, Jack, Game) if `suit` were trump and we pitched.

    A rough model: a card we cannot see is in play with probability `_others_share`;
    our top trump is High if no higher one is in play; our bottom trump is Low if
    no lower one is, and we capture it more often with length and a big card
    beside it; a jack is kept when guarded by a higher trump or length; Game comes
    from length in trump and the trick points we hold.

    The house rules count: under `low: dealt` our bottom trump is Low if it is the
    lowest in play, whoever takes it; with the joker, holding it is nearly a point
    (the holder chooses the trick it falls in) and lengthens our trumps.
    """
    hand = list(cards)
    joker = any(c.is_joker for c in hand)
    ranks = sorted((c.rank for c in hand if c.suit is suit), reverse=True)
    if not ranks:
        return JOKER_HELD if joker and suit is Suit.SPADES else 0.0  # the joker led names spades
    share = _others_share(players, rules.has_joker)
    absent = 1.0 - share
    top, bottom, length = ranks[0], ranks[-1], len(ranks) + joker
    high = absent ** (14 - top)
    guard = 0.3 + 0.1 * min(length - 1, 4) + (0.3 if top >= 13 else 0.15 if top >= JACK else 0.0)
    low = absent ** (bottom - 2)
    if rules.low != "dealt":
        low *= min(guard, 0.95)
    if JACK in ranks and top > JACK:  # guarded by a higher trump
        jack = 0.95 if top == 14 else 0.85
    elif JACK in ranks:
        jack = 0.6 if length >= 3 else 0.4
    else:
        catcher = 0.5 if top == 14 else (0.3 if top > JACK else 0.1)
        jack = share * catcher
    trick_points = sum(c.game_points for c in hand)
    game = 0.05 + 0.09 * length + 0.012 * trick_points
    if partnership:
        game += 0.15
    game = min(game, 0.85)
    extra = 0.0
    if joker:
        extra = JOKER_HELD + 0.05 * min(length - 1, 3)
    elif rules.has_joker:
        extra = share * (0.3 if top >= 13 else 0.15)  # catching someone else's joker
    return high + low + jack + game + extra


JOKER_HELD = 0.6
"""What holding the joker adds: its point, unless a higher trump falls on it."""


def best_suit(
    cards: Iterable[Card], players: int, partnership: bool, rules: HouseRules = DEFAULT_RULES
) -> tuple[Suit, float]:
    """The suit we would name trump and its strength (ties go to the first suit in order)."""
    hand = list(cards)
    best, strength = Suit.CLUBS, -1.0
    for suit in Suit:
        value = suit_strength(hand, suit, players, partnership, rules)
        if value > strength:
            best, strength = suit, value
    return best, strength


BID_THRESHOLDS = ((4, 3.5), (3, 1.7), (2, 1.0), (1, 0.8))
"""Strength needed for each bid: 4 only with a very strong hand."""


FIVE_STRENGTH = 4.3
"""Strength needed to bid 5 (with the joker in play, and only holding it: all five
points are needed, the joker among them)."""
SMUDGE_STRENGTH = 3.0
"""Under `smudge: on`, strength at which a pitcher bids the top bid: made, it wins
the match at once, which is worth a risk the bid alone is not."""


def bid_for(strength: float, rules: HouseRules = DEFAULT_RULES, joker: bool = False) -> int:
    """The highest bid a hand of this strength supports (0 = pass); `joker` says
    whether the hand holds the joker."""
    if rules.has_joker and joker and strength >= FIVE_STRENGTH:
        return 5
    for amount, needed in BID_THRESHOLDS:
        if strength >= needed:
            return amount
    return 0


def strength_for(amount: int) -> float:
    """The least strength at which the bidding model bids `amount`."""
    if amount >= 5:
        return FIVE_STRENGTH
    for bid, needed in BID_THRESHOLDS:
        if amount >= bid:
            return needed
    return 0.0
