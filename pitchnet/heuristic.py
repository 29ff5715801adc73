"""The rule-of-thumb player behind the `normal` and `easy` levels.

It reads the view once per decision (`_Table`): its own cards, the cards played,
the suits each seat has shown it lacks, and from these the cards still unseen. It
bids from `pitchnet.handvalue`, names its best suit, draws trumps with cards
nobody can beat, takes tricks worth taking with the cheapest card that holds them,
and throws its cheapest card on a trick it cannot hold.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pitchnet.cards import JACK, Card, Suit, deck
from pitchnet.handvalue import SMUDGE_STRENGTH, best_suit, bid_for
from pitchnet.inference import shown_voids, trick_plays
from pitchnet.rules import Bid, HouseRules, suit_as_played
from pitchnet.views import SeatView


def beats(card: Card, best: Card, led: Suit | None, trump: Suit) -> bool:
    """Would `card` take the trick from `best`, the card winning it so far?"""
    if suit_as_played(card, trump) is trump:
        return suit_as_played(best, trump) is not trump or card.rank > best.rank
    return suit_as_played(best, trump) is not trump and card.suit is led and card.rank > best.rank


def winning(trick: list[tuple[int, Card]], trump: Suit) -> tuple[int, Card]:
    led = suit_as_played(trick[0][1], trump)
    seat, best = trick[0]
    for player, card in trick[1:]:
        if beats(card, best, led, trump):
            seat, best = player, card
    return seat, best


def bid_up_to(view: SeatView, rules: HouseRules, wanted: int) -> Bid:
    """The bid to make for a hand worth bidding `wanted` (0: a pass). A seat before the
    dealer bids all its hand is worth, so that those after it must bid more to take the
    contract. The dealer bids last and its bid ends the auction, so it bids the least
    that takes the contract (stealing at the high bid where the house rules allow):
    more would only risk a bigger set-back for the same points. The exception is a top
    bid under `smudge: on`, which wins the match at once if made. A dealer who may not
    pass (everyone passed) bids the least."""
    legal = view.legal_bids
    amounts = [b for b in legal if b is not None and b <= wanted]
    if not amounts:
        return None if None in legal else min(b for b in legal if b is not None)
    smudging = rules.smudge == "on" and wanted >= rules.top_bid
    if view.seat == view.dealer and not smudging:
        return min(amounts)
    return max(amounts)


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
    voids: dict[int, set[str]] = field(default_factory=dict)  # suits a seat has shown it lacks
    low_dealt: bool = False  # `low: dealt`: Low is the dealt holder's, whoever takes it

    @classmethod
    def of(cls, view: SeatView) -> _Table:
        hand = view.cards
        played = {card for t in view.tricks for _, card in t.plays}
        trick = [(seat, Card.parse(text)) for seat, text in view.trick]
        played.update(card for _, card in trick)
        rules = view.house_rules
        unseen = set(deck(joker=rules.has_joker))
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
            voids=shown_voids(trick_plays(view), view.trump, rules.follow == "must_follow"),
            low_dealt=rules.low == "dealt",
        )

    def may_hold(self, seat: int, suit: Suit) -> bool:
        """Whether `seat` may still hold a card of `suit`, as far as we can tell."""
        return suit.value not in self.voids.get(seat, ()) and any(
            suit_as_played(c, self.trump) is suit for c in self.unseen
        )

    def may_trump(self, seats: list[int]) -> bool:
        """Whether any of `seats` may still hold a trump."""
        return self.trump is not None and any(self.may_hold(s, self.trump) for s in seats)

    def unseen_trump_ranks(self) -> list[int]:
        return [c.rank for c in self.unseen if suit_as_played(c, self.trump) is self.trump]

    def is_boss(self, card: Card) -> bool:
        """No trump we cannot see could beat this trump."""
        return suit_as_played(card, self.trump) is self.trump and all(
            r < card.rank for r in self.unseen_trump_ranks()
        )

    def point_to_capture(self, card: Card) -> bool:
        """A low trump whose captor scores a point: the joker, or a card that may be Low
        (unless Low is the dealt holder's, `low: dealt`, when taking it gains nothing)."""
        return card.is_joker or (not self.low_dealt and self.is_low_candidate(card))

    def is_low_candidate(self, card: Card) -> bool:
        """A trump that may well be the lowest in play (the Low point)."""
        if suit_as_played(card, self.trump) is not self.trump:
            return False
        return card.rank <= 3 or all(r > card.rank for r in self.unseen_trump_ranks())


def _discard_cost(card: Card, table: _Table) -> float:
    """How much it hurts to give this card away: low for small off-suit cards, high for
    tens and trumps, highest for the jack of trump."""
    if suit_as_played(card, table.trump) is table.trump:
        if card.rank == JACK:
            return 200.0
        if table.point_to_capture(card):
            return 80.0 + card.rank
        return 50.0 + 2 * card.rank
    return 3.0 * card.game_points + card.rank


def _smudge_worth_trying(view: SeatView, rules: HouseRules, strength: float) -> bool:
    """Under `smudge: on` a made top bid wins the match at once, if our score is not
    negative: worth bidding with a hand short of a sure 4 (with the joker in play the
    top bid is 5, which needs the joker in our hand)."""
    if rules.smudge != "on" or view.scores[view.side_of(view.seat)] < 0:
        return False
    if rules.has_joker:
        return strength >= SMUDGE_STRENGTH + 1.0 and any(c.is_joker for c in view.cards)
    return strength >= SMUDGE_STRENGTH


def card_key(card: Card) -> tuple[int, str]:
    """A total order for tie-breaks, so equal choices always resolve the same way."""
    return (card.rank, card.suit.value if card.suit else "")


class Heuristic:
    """Bids from hand strength and plays by simple, explainable rules of thumb: the
    `normal` level, and the base the `easy` level makes its mistakes from."""

    # ---- bidding ---------------------------------------------------------------------------

    def choose_bid(self, view: SeatView) -> Bid:
        rules = view.house_rules
        cards = view.cards
        _, strength = best_suit(cards, view.players, view.partnership, rules)
        partner_leads = (
            view.partnership
            and view.pitcher is not None
            and view.pitcher != view.seat
            and view.side_of(view.pitcher) == view.side_of(view.seat)
        )
        if partner_leads:
            strength -= 0.6  # let partner play it unless we are clearly stronger
        wanted = bid_for(strength, rules, any(c.is_joker for c in cards))
        if wanted < rules.top_bid and _smudge_worth_trying(view, rules, strength):
            wanted = rules.top_bid
        return bid_up_to(view, rules, wanted)

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
        rules = view.house_rules
        suit, _ = best_suit(table.hand, view.players, view.partnership, rules)
        trumps = sorted((c for c in table.legal if c.suit is suit), key=card_key, reverse=True)
        if not trumps:  # only the joker makes spades our suit: leading it names them
            return next((c for c in table.legal if c.is_joker), max(table.legal, key=card_key))
        lead = trumps[0]
        if lead.rank == JACK and len(trumps) > 1 and trumps[1].rank > 3:
            lead = trumps[1]
        return lead

    def _lead(self, table: _Table) -> Card:
        trump = table.trump
        trumps = sorted((c for c in table.legal if suit_as_played(c, trump) is trump), key=card_key)
        unseen_trumps = table.unseen_trump_ranks()
        if trumps and table.is_boss(trumps[-1]):
            if unseen_trumps:
                return trumps[-1]  # draw trumps with a card nobody can beat
            return trumps[0]  # nobody else can hold a trump: every one of ours wins
        off = [c for c in table.legal if suit_as_played(c, trump) is not trump]
        plain = [c for c in off if c.game_points == 0]
        if plain:
            return min(plain, key=card_key)
        return min(table.legal, key=lambda c: (_discard_cost(c, table), card_key(c)))

    def _follow(self, table: _Table) -> Card:
        trump = table.trump
        assert trump is not None
        trick = table.trick
        led = suit_as_played(trick[0][1], trump)
        winner, best = winning(trick, trump)
        after_me = table.players - len(trick) - 1
        legal = table.legal
        winners = [c for c in legal if beats(c, best, led, trump)]
        losers = [c for c in legal if c not in winners]

        def cheapest(cards: list[Card]) -> Card:
            return min(cards, key=lambda c: (_discard_cost(c, table), card_key(c)))

        later = [(table.seat + step) % table.players for step in range(1, after_me + 1)]

        def secure(card: Card) -> bool:
            """Nobody playing after us can take the trick from this card."""
            if after_me == 0:
                return True
            if suit_as_played(card, trump) is trump:
                return table.is_boss(card)
            higher = [c for c in table.unseen if c.suit is card.suit and c.rank > card.rank]
            return not any(
                table.may_hold(seat, trump)
                or (higher and str(card)[1] not in table.voids.get(seat, ()))
                for seat in later
            )

        if table.side_of(winner) == table.side_of(table.seat):
            # Partner is winning: never overtake; feed points if the trick is safe.
            if losers:
                if secure(best):
                    gifts = [c for c in losers if _gift(c, table) > 0]
                    if gifts:
                        return max(gifts, key=lambda c: (_gift(c, table), card_key(c)))
                return cheapest(losers)
            return cheapest(winners)

        stake = _stake(trick, table)
        safe = [c for c in winners if secure(c)]
        if safe:
            jack = [c for c in safe if suit_as_played(c, trump) is trump and c.rank == JACK]
            if jack:
                return jack[0]  # capture our own jack
            tens = [c for c in safe if c.game_points == 10 or table.point_to_capture(c)]
            if tens:
                return max(tens, key=card_key)  # bank a ten, or our own Low
            if stake > 0 or after_me == 0:
                return min(safe, key=lambda c: (suit_as_played(c, trump) is trump, card_key(c)))
            plain = [c for c in safe if suit_as_played(c, trump) is not trump]
            if plain:
                return min(plain, key=card_key)
        if stake >= 10:
            # Worth a gamble, but not with a card of our own that gives the trick more
            # points if it is beaten: a plain counter could be trumped by a later seat
            # (the blunder of throwing an ace into the pitcher's trick).
            risky = [
                c
                for c in winners
                if c.rank != JACK
                and c.game_points != 10
                and (
                    suit_as_played(c, trump) is trump
                    or c.game_points == 0
                    or not table.may_trump(later)
                )
            ]
            if risky:
                return max(risky, key=lambda c: (suit_as_played(c, trump) is trump, card_key(c)))
        if losers:
            return cheapest(losers)
        return cheapest(winners)


def _gift(card: Card, table: _Table) -> float:
    """Worth to our side of throwing this card on a trick our partner surely wins."""
    if suit_as_played(card, table.trump) is table.trump:
        if card.rank == JACK:
            return 15.0
        if table.point_to_capture(card):
            return 8.0
        return 0.0
    return float(card.game_points)


def _stake(trick: list[tuple[int, Card]], table: _Table) -> float:
    """How much the trick is worth taking: trick points plus the trump point cards in it."""
    value = 0.0
    for _, card in trick:
        value += card.game_points
        if suit_as_played(card, table.trump) is table.trump:
            if card.rank == JACK:
                value += 10
            elif card.rank >= 13 or table.point_to_capture(card) or table.is_boss(card):
                value += 5  # may well be High or Low
    return value
