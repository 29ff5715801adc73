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
from pitchnet.i18n import _, babel_locale, number
from pitchnet.rules import Bid, Phase, suit_as_played
from pitchnet.search import BidRanking, Budget, rank_bids, rank_plays
from pitchnet.views import SeatView
from pitchnet.words import card_name, suit_plural

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
        return _("the {rank}", rank=words[0])
    return _("the {ranks} and {last}", ranks=", ".join(words[:-1]), last=words[-1])


def _rank_word(card: Card) -> str:
    names = {14: _("ace"), 13: _("king"), 12: _("queen"), 11: _("jack")}
    return names.get(card.rank) or number(card.rank)


def _decimal(value: float) -> str:
    return number(round(value, 1))


def _percent(share: float) -> str:
    """ "63 %" as the language writes a share (Babel loads only for the coach's advice)."""
    from babel.numbers import format_percent

    return str(format_percent(share, locale=babel_locale()))


def _bid_line(view: SeatView, ranking: BidRanking) -> str:
    bids = [b for b in ranking.worth if b is not None]
    if ranking.choice is None:
        if not bids:
            return _("Pass: it is the only bid you have.")
        best = max(bids, key=lambda b: ranking.worth[b])
        loss = ranking.worth[None] - ranking.worth[best]
        if loss < CLOSE:
            return _("Pass: bidding {bid} is about as good, but no better.", bid=best)
        return _(
            "Pass: no suit of yours is worth a bid here; bidding {bid} would cost about "
            "{points} points on average.",
            bid=best,
            points=_decimal(loss),
        )
    bid = ranking.choice
    steal = view.seat == view.dealer and view.high_bid == bid
    verb = _("Bid {bid} (steal the bid)", bid=bid) if steal else _("Bid {bid}", bid=bid)
    if ranking.suit is None:
        return _("{advice}: it is the only bid you have.", advice=verb)
    suit = Suit(ranking.suit)
    held = [c for c in view.cards if c.suit is suit]
    trumps = (
        _(
            "with {suit} as trump you hold {cards}",
            suit=suit_plural(suit.value),
            cards=_spoken_cards(held),
        )
        if held
        else _("the joker names {suit} trump", suit=suit_plural(suit.value))
    )
    if ranking.points is None or ranking.made is None:
        return _("{advice}: {why}.", advice=verb, why=trumps)
    return _(
        "{advice}: {why}; you would take about {points} points and make {bid} in {percent} "
        "of the deals like this one.",
        advice=verb,
        why=trumps,
        points=_decimal(ranking.points),
        bid=bid,
        percent=_percent(ranking.made),
    )


def _play_line(view: SeatView, ranked: list[tuple[str, float]]) -> str:
    card = Card.parse(ranked[0][0])
    named = _("Play {card}", card=card_name(card.text))
    if len(ranked) == 1:
        return _("{advice}: it is the only card you may play.", advice=named)
    role = _role(view, card)
    runner, value = Card.parse(ranked[1][0]), ranked[1][1]
    margin = ranked[0][1] - value
    if margin < CLOSE:
        return _(
            "{advice}: {why}; {card} is about as good.",
            advice=named,
            why=role,
            card=card_name(runner.text),
        )
    return _(
        "{advice}: {why}; it does about {points} points better on average than the next "
        "best, {card}.",
        advice=named,
        why=role,
        points=_decimal(margin),
        card=card_name(runner.text),
    )


def _role(view: SeatView, card: Card) -> str:
    """What the card does: names trump, leads, takes the trick for now, or throws off."""
    if view.trump is None:
        return _("your first lead names trump")
    if not view.trick:
        return _("you lead it")
    trump = Suit(view.trump)
    trick = [(seat, Card.parse(text)) for seat, text in view.trick]
    seat, _card = winning([*trick, (view.seat, card)], trump)
    if seat == view.seat:
        return _("it takes the trick for now")
    if suit_as_played(card, trump) is trump:
        return _("a trump you can spare")
    return _("it throws off a card you can spare")
