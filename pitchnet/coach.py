"""The coach: what the `hard` bot would do now, and why, in one line a beginner can read.

It decides exactly as the `hard` bot does (`pitchnet.search`), from the seat's own view
and nothing else, so it knows no more than the player asking: tests/test_coach.py gives
it two deals that show one seat the same view and checks that the advice is the same.
The reason it gives is what the search found over the deals it sampled: for a bid, the
suit it would name, the cards of it in the hand, the points it expects to take and how
often that makes the bid; for a card, what the card does to the trick and how much
better it did than the next best card.
"""

from __future__ import annotations

from dataclasses import dataclass

from pitchnet.bots import view_dice
from pitchnet.cards import Card, Suit
from pitchnet.heuristic import winning
from pitchnet.rules import Bid, Phase, suit_as_played
from pitchnet.search import BidRanking, Budget, rank_bids, rank_plays
from pitchnet.views import SeatView

COACH_BUDGET = Budget(samples=192, seconds=1.0)
"""The table's budget for the `hard` bot, a little longer on a slow machine: a person
asked and waits for the answer, no table waits for it."""

CLOSE = 0.05
"""Two choices whose average outcomes are closer than this (in points) are as good."""


@dataclass(frozen=True, slots=True)
class Advice:
    """One suggestion: the bid or the card (its text form), and the line that says why.
    `moment` is the (hand, step) of the decision it answers: one decision, one advice."""

    bid: Bid
    card: str | None
    line: str
    moment: tuple[int, int]


def moment(view: SeatView) -> tuple[int, int]:
    """Which decision a view asks for: its hand and its step (bids and plays so far)."""
    return view.hand_number, view.step


def advise(view: SeatView, budget: Budget = COACH_BUDGET, seed: int = 0) -> Advice | None:
    """What the `hard` bot would do in this view, and why. None when the view asks
    nothing of its seat: not its turn, a spectator's view, or no hand being played."""
    if view.spectator or view.turn != view.seat:
        return None
    dice = view_dice(seed, view)
    if view.phase == Phase.BIDDING and view.legal_bids:
        ranking = rank_bids(view, budget, dice)
        return Advice(ranking.choice, None, _bid_line(view, ranking), moment(view))
    if view.phase == Phase.PLAYING and view.legal_plays:
        ranked = rank_plays(view, budget, dice)
        return Advice(None, ranked[0][0], _play_line(view, ranked), moment(view))
    return None


def _spoken_cards(cards: list[Card]) -> str:
    """ "the ace, jack and 2" of one suit, highest first."""
    words = [_rank_word(card) for card in sorted(cards, key=lambda c: -c.rank)]
    if len(words) == 1:
        return f"the {words[0]}"
    return "the " + ", ".join(words[:-1]) + f" and {words[-1]}"


def _rank_word(card: Card) -> str:
    return {14: "ace", 13: "king", 12: "queen", 11: "jack"}.get(card.rank, str(card.rank))


def _bid_line(view: SeatView, ranking: BidRanking) -> str:
    bids = [b for b in ranking.worth if b is not None]
    if ranking.choice is None:
        if not bids:
            return "Pass: it is the only bid you have."
        best = max(bids, key=lambda b: ranking.worth[b])
        loss = ranking.worth[None] - ranking.worth[best]
        if loss < CLOSE:
            return f"Pass: bidding {best} is about as good, but no better."
        return (
            f"Pass: no suit of yours is worth a bid here; bidding {best} would cost about "
            f"{loss:.1f} points on average."
        )
    bid = ranking.choice
    steal = view.seat == view.dealer and view.high_bid == bid
    verb = f"Bid {bid} (steal the bid)" if steal else f"Bid {bid}"
    if ranking.suit is None:
        return f"{verb}: it is the only bid you have."
    suit = Suit(ranking.suit)
    held = [c for c in view.cards if c.suit is suit]
    trumps = (
        f"with {suit.plural} as trump you hold {_spoken_cards(held)}"
        if held
        else f"the joker names {suit.plural} trump"
    )
    if ranking.points is None or ranking.made is None:
        return f"{verb}: {trumps}."
    return (
        f"{verb}: {trumps}; you would take about {ranking.points:.1f} points and make "
        f"{bid} in {ranking.made:.0%} of the deals like this one."
    )


def _play_line(view: SeatView, ranked: list[tuple[str, float]]) -> str:
    card = Card.parse(ranked[0][0])
    named = f"Play the {card.name}"
    if len(ranked) == 1:
        return f"{named}: it is the only card you may play."
    role = _role(view, card)
    runner, value = Card.parse(ranked[1][0]), ranked[1][1]
    margin = ranked[0][1] - value
    if margin < CLOSE:
        return f"{named}: {role}; the {runner.name} is about as good."
    return (
        f"{named}: {role}; it does about {margin:.1f} points better on average than the "
        f"next best, the {runner.name}."
    )


def _role(view: SeatView, card: Card) -> str:
    """What the card does: names trump, leads, takes the trick for now, or throws off."""
    if view.trump is None:
        return "your first lead names trump"
    if not view.trick:
        return "you lead it"
    trump = Suit(view.trump)
    trick = [(seat, Card.parse(text)) for seat, text in view.trick]
    seat, _ = winning([*trick, (view.seat, card)], trump)
    if seat == view.seat:
        return "it takes the trick for now"
    if suit_as_played(card, trump) is trump:
        return "a trump you can spare"
    return "it throws off a card you can spare"
