"""Computer players, at three levels. A bot decides from one seat's `SeatView` only.

Deciding from the view (never the `Match`) means a bot cannot cheat: it sees
exactly what a human in that seat sees. Every decision is taken from
`view.legal_bids` or `view.legal_plays`, so a bot never makes an illegal move.
The levels (`LEVELS`, what a table offers):

- `easy`: the rule-of-thumb player making a beginner's mistakes now and then
  (a misjudged hand, the highest card when a low one would do);
- `normal`: the rule-of-thumb player of `pitchnet.heuristic`;
- `hard`: determinized Monte Carlo search (`pitchnet.search`).

`random` (uniform among the legal moves) is the baseline the levels are measured
against. The `easy` and `hard` bots draw their dice from their seed and the view,
so each is a pure function of (seed, view): the same view gives the same choice.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import ClassVar

from pitchnet.cards import Card, Suit
from pitchnet.handvalue import best_suit, bid_for
from pitchnet.heuristic import Heuristic, beats, bid_up_to, card_key, winning
from pitchnet.rules import Action, Bid, Phase, suit_as_played
from pitchnet.search import Budget, choose_bid, choose_play
from pitchnet.views import SeatView


class Bot(ABC):
    """A computer player. Subclasses decide from the view alone."""

    kind: ClassVar[str]
    thinks_long: ClassVar[bool] = False
    """True for a bot whose decision takes long enough (tenths of a second) that a host
    should run it off its event loop."""

    def decide(self, view: SeatView) -> Action:
        """Choose this seat's bid or play, as the engine's `Action`. Raises ValueError if
        the view does not ask this seat for anything (not its turn, or no hand in
        progress)."""
        if view.turn != view.seat:
            raise ValueError(f"it is not seat {view.seat}'s turn")
        if view.phase == Phase.BIDDING and view.legal_bids:
            return Action.of_bid(view.seat, self.choose_bid(view))
        if view.phase == Phase.PLAYING and view.legal_plays:
            return Action.of_play(view.seat, self.choose_play(view))
        raise ValueError(f"seat {view.seat} has nothing to decide in phase {view.phase!r}")

    @abstractmethod
    def choose_bid(self, view: SeatView) -> Bid:
        """One of `view.legal_bids`."""

    @abstractmethod
    def choose_play(self, view: SeatView) -> Card:
        """One of the cards in `view.legal_plays`."""


def view_dice(seed: int | None, view: SeatView) -> random.Random:
    """Dice that depend on the seed and the view alone, so a bot's choice is a pure
    function of both (a string seed is hashed the same way in every process)."""
    return random.Random(f"{seed}:{sorted(view.to_wire().items())!r}")


class RandomBot(Bot):
    """Uniform among the legal options: the baseline every other bot must beat."""

    kind = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose_bid(self, view: SeatView) -> Bid:
        return self.rng.choice(view.legal_bids)

    def choose_play(self, view: SeatView) -> Card:
        return Card.parse(self.rng.choice(view.legal_plays))


class NormalBot(Heuristic, Bot):
    """The `normal` level: the rule-of-thumb player (no randomness)."""

    kind = "normal"


MISTAKE_RATE = 0.5
"""How often the `easy` bot plays a beginner's card instead of a considered one."""


class EasyBot(Heuristic, Bot):
    """The `easy` level: the rule-of-thumb player with a beginner's habits. It misjudges
    its hand when bidding (a random error on its strength, and no thought of its
    partner) and now and then plays without counting: leading its highest card, or
    heading a trick with its highest card of the suit led when that takes it and
    throwing its lowest card when it does not."""

    kind = "easy"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def choose_bid(self, view: SeatView) -> Bid:
        dice = view_dice(self.seed, view)
        rules = view.house_rules
        cards = view.cards
        _, strength = best_suit(cards, view.players, view.partnership, rules)
        joker = any(c.is_joker for c in cards)
        wanted = bid_for(strength + dice.gauss(0.0, 0.7), rules, joker)
        # A beginner misjudges a hand by a bid, not by a whole contract: a bid of 4 or
        # more (nearly every point) only with a hand that is really worth it.
        worth = bid_for(strength, rules, joker)
        if wanted >= 4 and wanted > worth:
            wanted = max(worth, 3)
        return bid_up_to(view, rules, wanted)

    def choose_play(self, view: SeatView) -> Card:
        legal = view.playable
        if len(legal) == 1 or view_dice(self.seed, view).random() >= MISTAKE_RATE:
            return super().choose_play(view)
        by_rank = sorted(legal, key=card_key)
        if not view.trick or view.trump is None:
            return by_rank[-1]
        trump = Suit(view.trump)
        trick = [(seat, Card.parse(text)) for seat, text in view.trick]
        led = suit_as_played(trick[0][1], trump)
        _, best = winning(trick, trump)
        headers = [c for c in by_rank if c.suit is led and beats(c, best, led, trump)]
        return headers[-1] if headers else by_rank[0]


class SearchBot(Bot):
    """The `hard` level: determinized Monte Carlo search (see `pitchnet.search`)."""

    kind = "hard"
    thinks_long = True

    def __init__(self, seed: int | None = None, budget: Budget | None = None) -> None:
        self.seed = seed
        self.budget = budget or Budget()

    def choose_bid(self, view: SeatView) -> Bid:
        return choose_bid(view, self.budget, view_dice(self.seed, view))

    def choose_play(self, view: SeatView) -> Card:
        return Card.parse(choose_play(view, self.budget, view_dice(self.seed, view)))


LEVELS: tuple[str, ...] = ("easy", "normal", "hard")
"""The levels a table offers, weakest first (`pitchnet host --bot-level`, the setup screen)."""
DEFAULT_LEVEL = "normal"
BOT_KINDS: tuple[str, ...] = (*LEVELS, "random")
"""Every kind `make_bot` knows: the levels and the random baseline."""
ALIASES = {"heuristic": "normal"}
"""Older names still accepted: `heuristic` was the name of the `normal` level."""


def make_bot(kind: str, seed: int | None = None, budget: Budget | None = None) -> Bot:
    """A bot of `kind` (one of BOT_KINDS, or an alias). `seed` makes the random, easy and
    hard bots reproducible; `budget` is the hard bot's thinking time (default `Budget()`)."""
    kind = ALIASES.get(kind, kind)
    if kind == "normal":
        return NormalBot()
    if kind == "easy":
        return EasyBot(seed)
    if kind == "hard":
        return SearchBot(seed, budget)
    if kind == "random":
        return RandomBot(random.Random(seed))
    raise ValueError(f"unknown bot kind {kind!r} (choose from {', '.join(BOT_KINDS)})")
