"""Computer players. A bot decides from one seat's `SeatView` and nothing else.

Deciding from the view (never the `Match`) means a bot cannot cheat: it sees
exactly what a human in that seat sees. Every decision is taken from
`view.legal_bids` or `view.legal_plays`, so a bot never makes an illegal move,
and it is a pure function of the view (plus, for the random bot, its own
seeded `random.Random`), so the host can rely on "the same views give the same
choices" when it replays a journal.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ClassVar

from pitchnet.cards import JACK, Card, Suit, deck
from pitchnet.rules import HAND_SIZE, Action, Bid
from pitchnet.views import SeatView

DECK_SIZE = 52


@dataclass(frozen=True, slots=True)
class Decision:
    """A bot's choice: a bid (`bid`, None = pass) or a card to play (`card`)."""

    kind: str  # "bid" or "play"
    bid: Bid = None
    card: Card | None = None

    @classmethod
    def of_bid(cls, amount: Bid) -> Decision:
        return cls("bid", bid=amount)

    @classmethod
    def of_play(cls, card: Card) -> Decision:
        return cls("play", card=card)

    def action(self, seat: int) -> Action:
        """The same choice as the engine's `Action`, ready for `apply_to(match)`."""
        if self.kind == "bid":
            return Action.of_bid(seat, self.bid)
        assert self.card is not None
        return Action.of_play(seat, self.card)


class Bot(ABC):
    """A computer player. Subclasses decide from the view alone."""

    kind: ClassVar[str]

    def decide(self, view: SeatView) -> Decision:
        """Choose this seat's bid or play. Raises ValueError if the view does not ask
        this seat for anything (not its turn, or no hand in progress)."""
        if view.turn != view.seat:
            raise ValueError(f"it is not seat {view.seat}'s turn")
        if view.phase == "bidding" and view.legal_bids:
            return Decision.of_bid(self.choose_bid(view))
        if view.phase == "playing" and view.legal_plays:
            return Decision.of_play(self.choose_play(view))
        raise ValueError(f"seat {view.seat} has nothing to decide in phase {view.phase!r}")

    @abstractmethod
    def choose_bid(self, view: SeatView) -> Bid:
        """One of `view.legal_bids`."""

    @abstractmethod
    def choose_play(self, view: SeatView) -> Card:
        """One of the cards in `view.legal_plays`."""


class RandomBot(Bot):
    """Uniform among the legal options: the baseline every other bot must beat."""

    kind = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose_bid(self, view: SeatView) -> Bid:
        return self.rng.choice(view.legal_bids)

    def choose_play(self, view: SeatView) -> Card:
        return Card.parse(self.rng.choice(view.legal_plays))


# ---- hand evaluation (used for bidding and for choosing trump) -------------------------------


def _others_share(players: int) -> float:
    """The chance that one card we cannot see was dealt to another player."""
    return HAND_SIZE * (players - 1) / (DECK_SIZE - HAND_SIZE)


def suit_strength(cards: Iterable[Card], suit: Suit, players: int, partnership: bool) -> float:
    """Expected points (High, Low, Jack, Game) if `suit` were trump and we pitched.

    A rough model: a card we cannot see is in play with probability `_others_share`;
    our top trump is High if no higher one is in play; our bottom trump is Low if
    no lower one is, and we capture it more often with length and a big card
    beside it; a jack is kept when guarded by a higher trump or length; Game comes
    from length in trump and the trick points we hold.
    """
    hand = list(cards)
    ranks = sorted((c.rank for c in hand if c.suit is suit), reverse=True)
    if not ranks:
        return 0.0
    share = _others_share(players)
    absent = 1.0 - share
    top, bottom, length = ranks[0], ranks[-1], len(ranks)
    high = absent ** (14 - top)
    guard = 0.3 + 0.1 * min(length - 1, 4) + (0.3 if top >= 13 else 0.15 if top >= JACK else 0.0)
    low = absent ** (bottom - 2) * min(guard, 0.95)
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
    return high + low + jack + game


def best_suit(cards: Iterable[Card], players: int, partnership: bool) -> tuple[Suit, float]:
    """The suit we would name trump and its strength (ties go to the first suit in order)."""
    hand = list(cards)
    best, strength = Suit.CLUBS, -1.0
    for suit in Suit:
        value = suit_strength(hand, suit, players, partnership)
        if value > strength:
            best, strength = suit, value
    return best, strength


BID_THRESHOLDS = ((4, 3.5), (3, 1.7), (2, 1.0), (1, 0.8))
"""Strength needed for each bid: 4 only with a very strong hand."""


def bid_for(strength: float) -> int:
    """The highest bid a hand of this strength supports (0 = pass)."""
    for amount, needed in BID_THRESHOLDS:
        if strength >= needed:
            return amount
    return 0


# ---- play helpers -----------------------------------------------------------------------------


def _beats(card: Card, best: Card, led: Suit, trump: Suit) -> bool:
    """Would `card` take the trick from `best`, the card winning it so far?"""
    if card.suit is trump:
        return best.suit is not trump or card.rank > best.rank
    return best.suit is not trump and card.suit is led and card.rank > best.rank


def _winning(trick: list[tuple[int, Card]], trump: Suit) -> tuple[int, Card]:
    led = trick[0][1].suit or trump  # the joker led is a trump lead
    seat, best = trick[0]
    for player, card in trick[1:]:
        if _beats(card, best, led, trump):
            seat, best = player, card
    return seat, best


@dataclass(slots=True)
class _Table:
    """What the view tells a player mid-hand, parsed once per decision."""

    seat: int
    players: int
    side_of: Callable[[int], int]
    hand: list[Card]
    legal: list[Card]
    trick: list[tuple[int, Card]]
    trump: Suit | None
    unseen: set[Card]  # cards neither in our hand nor played: other hands or undealt

    @classmethod
    def of(cls, view: SeatView) -> _Table:
        hand = view.cards
        played = {Card.parse(text) for t in view.tricks for _, text in t["plays"]}
        trick = [(seat, Card.parse(text)) for seat, text in view.trick]
        played.update(card for _, card in trick)
        unseen = set(deck(joker=view.rules.get("joker") == "on"))
        unseen.difference_update(hand)
        unseen.difference_update(played)
        return cls(
            seat=view.seat,
            players=view.players,
            side_of=view.side_of,
            hand=hand,
            legal=view.playable,
            trick=trick,
            trump=Suit(view.trump) if view.trump else None,
            unseen=unseen,
        )

    def unseen_trump_ranks(self) -> list[int]:
        return [c.rank for c in self.unseen if c.suit is self.trump]

    def is_boss(self, card: Card) -> bool:
        """No trump we cannot see could beat this trump."""
        return card.suit is self.trump and all(r < card.rank for r in self.unseen_trump_ranks())

    def is_low_candidate(self, card: Card) -> bool:
        """A trump that may well be the lowest in play (the Low point)."""
        if card.suit is not self.trump:
            return False
        return card.rank <= 3 or all(r > card.rank for r in self.unseen_trump_ranks())


def _discard_cost(card: Card, table: _Table) -> float:
    """How much it hurts to give this card away: low for small off-suit cards, high for
    tens and trumps, highest for the jack of trump."""
    if card.suit is table.trump:
        if card.rank == JACK:
            return 200.0
        if table.is_low_candidate(card):
            return 80.0 + card.rank
        return 50.0 + 2 * card.rank
    return 3.0 * card.game_points + card.rank


def _card_key(card: Card) -> tuple[int, str]:
    """A total order for tie-breaks, so equal choices always resolve the same way."""
    return (card.rank, card.suit.value if card.suit else "")


class HeuristicBot(Bot):
    """Bids from hand strength and plays by simple, explainable rules of thumb."""

    kind = "heuristic"

    # ---- bidding ---------------------------------------------------------------------------

    def choose_bid(self, view: SeatView) -> Bid:
        legal = view.legal_bids
        _, strength = best_suit(view.cards, view.players, view.partnership)
        partner_leads = (
            view.partnership
            and view.pitcher is not None
            and view.pitcher != view.seat
            and view.side_of(view.pitcher) == view.side_of(view.seat)
        )
        if partner_leads:
            strength -= 0.6  # let partner play it unless we are clearly stronger
        wanted = bid_for(strength)
        # The dealer's legal bids include the current high bid, so a strong dealer
        # steals it here; everyone else must bid over it.
        amounts = [b for b in legal if b is not None and b <= wanted]
        if amounts:
            return max(amounts)
        if None in legal:
            return None
        return min(b for b in legal if b is not None)  # dealer forced to bid: the least

    # ---- play ------------------------------------------------------------------------------

    def choose_play(self, view: SeatView) -> Card:
        if len(view.legal_plays) == 1:
            return Card.parse(view.legal_plays[0])  # no choice: skip reading the table
        table = _Table.of(view)
        if table.trump is None:
            return self._first_lead(view, table)
        if not table.trick:
            return self._lead(table)
        return self._follow(table)

    def _first_lead(self, view: SeatView, table: _Table) -> Card:
        """Name trump: our best suit, led with its highest card unless that is an
        unguarded jack (which any higher trump would capture)."""
        suit, _ = best_suit(table.hand, view.players, view.partnership)
        trumps = sorted((c for c in table.legal if c.suit is suit), key=_card_key, reverse=True)
        lead = trumps[0]
        if lead.rank == JACK and len(trumps) > 1 and trumps[1].rank > 3:
            lead = trumps[1]
        return lead

    def _lead(self, table: _Table) -> Card:
        trump = table.trump
        trumps = sorted((c for c in table.legal if c.suit is trump), key=_card_key)
        unseen_trumps = table.unseen_trump_ranks()
        if trumps and table.is_boss(trumps[-1]):
            if unseen_trumps:
                return trumps[-1]  # draw trumps with a card nobody can beat
            return trumps[0]  # nobody else can hold a trump: every one of ours wins
        off = [c for c in table.legal if c.suit is not trump]
        plain = [c for c in off if c.game_points == 0]
        if plain:
            return min(plain, key=_card_key)
        return min(table.legal, key=lambda c: (_discard_cost(c, table), _card_key(c)))

    def _follow(self, table: _Table) -> Card:
        trump = table.trump
        assert trump is not None
        trick = table.trick
        led = trick[0][1].suit or trump  # the joker led is a trump lead
        winner, best = _winning(trick, trump)
        after_me = table.players - len(trick) - 1
        legal = table.legal
        winners = [c for c in legal if _beats(c, best, led, trump)]
        losers = [c for c in legal if c not in winners]

        def cheapest(cards: list[Card]) -> Card:
            return min(cards, key=lambda c: (_discard_cost(c, table), _card_key(c)))

        def secure(card: Card) -> bool:
            """Nobody playing after us can take the trick from this card."""
            if after_me == 0:
                return True
            if card.suit is trump:
                return table.is_boss(card)
            higher = any(
                c.suit is trump or (c.suit is card.suit and c.rank > card.rank)
                for c in table.unseen
            )
            return not higher

        if table.side_of(winner) == table.side_of(table.seat):
            # Partner is winning: never overtake; feed points if the trick is safe.
            if losers:
                if secure(best):
                    gifts = [c for c in losers if _gift(c, table) > 0]
                    if gifts:
                        return max(gifts, key=lambda c: (_gift(c, table), _card_key(c)))
                return cheapest(losers)
            return cheapest(winners)

        stake = _stake(trick, table)
        safe = [c for c in winners if secure(c)]
        if safe:
            jack = [c for c in safe if c.suit is trump and c.rank == JACK]
            if jack:
                return jack[0]  # capture our own jack
            tens = [c for c in safe if c.game_points == 10 or table.is_low_candidate(c)]
            if tens:
                return max(tens, key=_card_key)  # bank a ten, or our own Low
            if stake > 0 or after_me == 0:
                return min(safe, key=lambda c: (c.suit is trump, _card_key(c)))
            plain = [c for c in safe if c.suit is not trump]
            if plain:
                return min(plain, key=_card_key)
        if stake >= 10:
            risky = [c for c in winners if c.rank != JACK and c.game_points != 10]
            if risky:
                return max(risky, key=lambda c: (c.suit is trump, _card_key(c)))
        if losers:
            return cheapest(losers)
        return cheapest(winners)


def _gift(card: Card, table: _Table) -> float:
    """Worth to our side of throwing this card on a trick our partner surely wins."""
    if card.suit is table.trump:
        if card.rank == JACK:
            return 15.0
        if table.is_low_candidate(card):
            return 8.0
        return 0.0
    return float(card.game_points)


def _stake(trick: list[tuple[int, Card]], table: _Table) -> float:
    """How much the trick is worth taking: trick points plus the trump point cards in it."""
    value = 0.0
    for _, card in trick:
        value += card.game_points
        if card.suit is table.trump:
            if card.rank == JACK:
                value += 10
            elif card.rank >= 13 or table.is_low_candidate(card) or table.is_boss(card):
                value += 5  # may well be High or Low
    return value


BOT_KINDS: tuple[str, ...] = ("heuristic", "random")


def make_bot(kind: str, seed: int | None = None) -> Bot:
    """A bot of `kind` (one of BOT_KINDS). `seed` makes a random bot reproducible;
    the heuristic bot has no randomness and ignores it."""
    if kind == "heuristic":
        return HeuristicBot()
    if kind == "random":
        return RandomBot(random.Random(seed))
    raise ValueError(f"unknown bot kind {kind!r} (choose from {', '.join(BOT_KINDS)})")
