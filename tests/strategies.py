"""Helpers shared by the engine tests: table configurations, deep state snapshots,
random legal play from a seeded `random.Random`, and an independent reading of
RULES.md (legal bids, legal plays, trick winners, points) to check the engine against.

The reference functions here are written from RULES.md, not from pitchnet.rules, so a
property test that compares the two is not the engine checking itself.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from random import Random
from typing import Any

from pitchnet.cards import FULL_DECK, JOKER_DECK, Card, Suit, shuffled_deck
from pitchnet.rules import Action, Hand, HandResult, Match, Phase, Settings

CONFIGS: list[tuple[int, bool]] = [(n, False) for n in range(2, 8)] + [(4, True)]
"""Every table the rules allow: 2..7 players, and 4 in partnership."""

CONFIG_IDS = [f"{n}p{'-teams' if teams else ''}" for n, teams in CONFIGS]

ALL_BIDS: tuple[Any, ...] = (None, 1, 2, 3, 4, 5, 0, True)
"""Every bid value the tests try: the legal ones and some that never are (5, 0, True)."""

MAX_HANDS = 500


# ---- state snapshots ---------------------------------------------------------------------


def deep_copy(value: Any) -> Any:
    """`copy.deepcopy`, sharing the 52 immutable deck cards instead of copying them
    (the property tests copy the match hundreds of times a hand)."""
    return copy.deepcopy(value, {id(card): card for card in JOKER_DECK})


def hand_state(hand: Hand) -> dict[str, Any]:
    """A deep copy of everything a Hand holds, comparable with ==."""
    state: dict[str, Any] = deep_copy(vars(hand))
    return state


def match_state(match: Match) -> dict[str, Any]:
    """A deep copy of everything a Match holds (its hand included), comparable with ==."""
    state = {k: deep_copy(v) for k, v in vars(match).items() if k != "hand"}
    state["hand"] = hand_state(match.hand) if match.hand is not None else None
    return state


# ---- random legal play -------------------------------------------------------------------


def legal_actions(match: Match) -> list[Action]:
    """Every action the engine says is legal now, in a stable order."""
    seat = match.turn
    if seat is None:
        return []
    if match.phase is Phase.BIDDING:
        return [Action.of_bid(seat, amount) for amount in match.legal_bids(seat)]
    return [Action.of_play(seat, card) for card in sorted(match.legal_plays(seat))]


def play_hand(match: Match, rng: Random) -> HandResult:
    """Play the current hand to its end with uniformly random legal actions."""
    while match.phase in (Phase.BIDDING, Phase.PLAYING):
        rng.choice(legal_actions(match)).apply_to(match)
    result = match.last_result
    assert result is not None
    return result


def play_match(settings: Settings, rng: Random, dealer: int = 0) -> Match:
    """A whole match of random legal play, dealt from seeded shuffles."""
    match = Match(settings, dealer=dealer)
    while match.phase is not Phase.MATCH_OVER and match.hand_number < MAX_HANDS:
        match.deal(shuffled_deck(rng))
        play_hand(match, rng)
    return match


def random_hands(players: int, rng: Random) -> list[list[Card]]:
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    return [deck[6 * seat : 6 * seat + 6] for seat in range(players)]


# ---- RULES.md, read independently -----------------------------------------------------------


def ref_legal_bids(
    players: int, dealer: int, bids: Sequence[tuple[int, int | None]]
) -> set[int | None]:
    """Legal bids for the seat whose turn it is, from the bids made so far."""
    amounts = [amount for _, amount in bids if amount is not None]
    if len(bids) == players or 4 in amounts:
        return set()
    seat = (dealer + 1 + len(bids)) % players
    high = max(amounts, default=0)
    if seat == dealer:
        if high == 0:
            return {2, 3, 4}
        return {None, *range(high, 5)}
    return {None, *range(high + 1, 5)}


def ref_legal_plays(hand: Sequence[Card], trick: Sequence[Card], trump: Suit | None) -> set[Card]:
    if not trick:
        return set(hand)
    led = trick[0].suit
    trumps = {c for c in hand if c.suit is trump}
    if led is trump:
        return trumps or set(hand)
    follows = {c for c in hand if c.suit is led}
    return (follows | trumps) if follows else set(hand)


def ref_trick_winner(plays: Sequence[tuple[int, Card]], trump: Suit) -> int:
    led = plays[0][1].suit
    best_seat, best = plays[0]
    for seat, card in plays[1:]:
        beats = (card.suit is trump and (best.suit is not trump or card.rank > best.rank)) or (
            card.suit is led and best.suit is led and card.rank > best.rank
        )
        if beats:
            best_seat, best = seat, card
    return best_seat


GAME_VALUE = {"T": 10, "A": 4, "K": 3, "Q": 2, "J": 1}


def ref_points(
    settings: Settings,
    dealt: Sequence[Sequence[Card]],
    captured: Sequence[Sequence[Card]],
    trump: Suit,
) -> dict[str, Any]:
    """High, Low, Jack, Game and points earned per side, straight from RULES.md."""

    def side(seat: int) -> int:
        return seat % 2 if settings.partnership else seat

    sides = 2 if settings.partnership else settings.players
    captor = {card: seat for seat, cards in enumerate(captured) for card in cards}
    in_play = [c for hand in dealt for c in hand if c.suit is trump]
    high = captor[max(in_play, key=lambda c: c.rank)]
    low = captor[min(in_play, key=lambda c: c.rank)]
    jack_card = Card.parse("J" + trump.value)
    jack = captor.get(jack_card)
    game_points = [0] * sides
    for seat, cards in enumerate(captured):
        game_points[side(seat)] += sum(GAME_VALUE.get(str(c)[0], 0) for c in cards)
    top = max(game_points)
    game = game_points.index(top) if game_points.count(top) == 1 else None
    earned = [0] * sides
    earned[side(high)] += 1
    earned[side(low)] += 1
    if jack is not None:
        earned[side(jack)] += 1
    if game is not None:
        earned[game] += 1
    return {
        "high": high,
        "low": low,
        "jack": jack,
        "game": game,
        "game_points": tuple(game_points),
        "earned": tuple(earned),
    }
