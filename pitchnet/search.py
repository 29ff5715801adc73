"""The `hard` bot's thinking: determinized Monte Carlo search from one seat's view.

For each decision it deals the cards it cannot see at random, but only in ways
consistent with everything public (the cards played, the suits a seat has shown
it lacks, what each bid and each pass says of a hand: `bid_bounds`), plays every
legal choice out to the end of the hand in each such deal with the fast
rule-of-thumb policy of `pitchnet.playout`, and picks the
choice with the best average outcome for its side: its points minus the others'
(a set pitcher's bid counted against it), plus a bonus for winning the match in
this hand and a malus for letting another side win it. It stops sampling early
once one choice leads every other clearly (`settled`), so an obvious move costs
less time than a close one.

It starts from a `SeatView` and nothing else, so it cannot know more than a
player in that seat: `tests/test_search.py` builds different deals that give the
same view and checks that the choices are the same.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from pitchnet.cards import JACK, Card, Suit
from pitchnet.cards import JOKER as JOKER_CARD
from pitchnet.handvalue import best_suit, bid_for, strength_for, suit_strength
from pitchnet.inference import shown_voids, trick_plays
from pitchnet.playout import (
    JOKER,
    JOKER_RANK,
    NATURAL_CODES,
    SUIT_LETTERS,
    Table,
    Tally,
    code_of,
    play_out,
    table_for,
    text_of,
    trump_named_by,
    with_trump,
)
from pitchnet.views import SeatView

WIN_BONUS = 4.0
"""Worth, in points, of winning the match in this hand (and the loss of letting another
side win it): more than any one hand's points, so the search goes out when it can."""


PLAUSIBLE_TRIES = 8
"""Deals tried per sample for one in which every seat's hand fits its bid or pass."""
PLAUSIBLE_SLACK = 0.5
"""How far outside the bidding model's strength for its bid (or pass) a hand may be:
people (and the easy bot) bid less exactly than the model."""
PARTNER_RESTRAINT = 0.6
"""How much weaker the bidding model plays a hand whose partner holds the high bid
(`Heuristic.choose_bid`): such a pass says less."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How long the search may think: `samples` deals per decision, and optionally no
    longer than `seconds`. A count alone makes runs reproducible; the time limit is
    for tables, where the machine's load must not slow the game."""

    samples: int = 192
    seconds: float | None = None
    settle: bool = True
    """Stop before `samples` once one choice leads every other clearly (`settled`): an
    obvious choice needs fewer deals than a close one. Still a count, so reproducible."""


TABLE_BUDGET = Budget(samples=192, seconds=0.8)
"""The `hard` bot's thinking at a table: as many deals as in the benchmarks' win rates,
but never more than 0.8 s on a loaded machine (a host runs it off its loop)."""


def table_of(view: SeatView) -> Table:
    """The lean model's settings for the view's table and its house rules."""
    return table_for(view.players, view.partnership, view.target, view.house_rules)


@dataclass(slots=True)
class Knowledge:
    """What one seat knows in the middle of a hand, parsed from its view once."""

    table: Table
    seat: int
    sides: list[int]
    hand: list[int]
    trump: int | None
    trick: list[tuple[int, int]]
    tally: Tally
    unseen: list[int]
    counts: list[int]
    voids: list[int]  # per seat, a bit per suit it has shown it does not hold
    pitcher: int | None
    bid: int | None
    scores: list[int]
    bids: list[tuple[int, int | None]]
    dealer: int
    played_by: dict[int, list[int]]  # seat -> the cards it has played this hand
    bounds: list[tuple[int, float | None, float]]  # (seat, least strength or None, most)
    led_below: tuple[int, int] | None = None  # (pitcher, a bit per trump its first lead denies)

    @classmethod
    def of(cls, view: SeatView) -> Knowledge:
        table = table_of(view)
        trump = SUIT_LETTERS.index(view.trump) if view.trump else None
        sides = table.sides_by_seat()

        def code(text: str) -> int:
            card = code_of(text)
            return with_trump(card, trump) if trump is not None else card

        tally = Tally(table.sides)
        seen: set[int] = set()
        for done in view.tricks:
            plays = [(seat, code(card.text)) for seat, card in done.plays]
            seen.update(card for _, card in plays)
            assert trump is not None
            tally.take(plays, sides[done.winner], trump, table)
        trick = [(seat, code(text)) for seat, text in view.trick]
        seen.update(card for _, card in trick)
        voids = [0] * table.players
        for seat, suits in shown_voids(trick_plays(view), view.trump, table.must_follow).items():
            for suit in suits:
                voids[seat] |= 1 << SUIT_LETTERS.index(suit)
        hand = [code(text) for text in view.hand]
        seen.update(hand)
        played_by: dict[int, list[int]] = {}
        for shown in trick_plays(view):
            for player, text in shown:
                played_by.setdefault(player, []).append(code(text))
        deck = table.deck()
        if trump is not None:
            deck = [with_trump(c, trump) for c in deck]
        return cls(
            table=table,
            seat=view.seat,
            sides=sides,
            hand=hand,
            trump=trump,
            trick=trick,
            tally=tally,
            unseen=[c for c in deck if c not in seen],
            counts=list(view.hand_counts),
            voids=voids,
            pitcher=view.pitcher,
            bid=view.high_bid,
            scores=list(view.scores),
            bids=[(seat, amount) for seat, amount in view.bids],
            dealer=view.dealer,
            played_by=played_by,
            bounds=bid_bounds(view.bids, view.seat, view.dealer, table),
            led_below=first_lead_denies(trick_plays(view), view.seat, trump),
        )

    def sample(self, rng: random.Random) -> list[list[int]]:
        """One deal of the unseen cards to the other seats, each getting as many as it
        holds and none of a suit it has shown it lacks, and each seat a hand that fits
        what it bid or passed (`misfit`): of a few tries, the first that fits, else the
        one that fits best."""
        hands = self._deal(rng)
        if not self.bounds and self.led_below is None:
            return hands
        worst = self.misfit(hands)
        for _ in range(PLAUSIBLE_TRIES):
            if worst <= 0.0:
                break
            other = self._deal(rng)
            miss = self.misfit(other)
            if miss < worst:
                hands, worst = other, miss
        return hands

    def _deal(self, rng: random.Random) -> list[list[int]]:
        """A deal that respects the shown voids. The most constrained seats are served
        first, each from a fresh shuffle; after many failures (a near-impossible
        combination of voids) the voids are ignored rather than loop for ever."""
        others = [s for s in range(self.table.players) if s != self.seat]
        order = sorted(others, key=lambda s: -bin(self.voids[s]).count("1"))
        for attempt in range(40):
            pool = self.unseen[:]
            rng.shuffle(pool)
            hands: list[list[int]] = [[] for _ in range(self.table.players)]
            hands[self.seat] = self.hand[:]
            ok = True
            for seat in order:
                need, mask = self.counts[seat], self.voids[seat] if attempt < 39 else 0
                if not mask:  # a fresh shuffle's first cards are a fair draw
                    hands[seat], pool = pool[:need], pool[need:]
                    continue
                taken: list[int] = []
                rest: list[int] = []
                for card in pool:
                    if len(taken) < need and not (mask >> (card >> 4)) & 1:
                        taken.append(card)
                    else:
                        rest.append(card)
                if len(taken) < need:
                    ok = False
                    break
                hands[seat], pool = taken, rest
            if ok:
                return hands
        raise AssertionError("unreachable: the last attempt ignores every void")

    def misfit(self, hands: list[list[int]]) -> float:
        """How far this deal's hands are from what their seats bid and passed: for each
        bound (`bid_bounds`) the bidding model's strength falls outside, by how much
        (0: every seat's hand fits its bids and passes). The pitcher's floor is its
        strength in the trump it named, once it has."""
        table, total = self.table, 0.0
        if self.led_below is not None:
            pitcher, denied = self.led_below
            total += LEAD_MISFIT * sum((denied >> card) & 1 for card in hands[pitcher])
        for seat, floor, ceiling in self.bounds:
            cards = _cards([*hands[seat], *self.played_by.get(seat, ())])
            best = best_suit(cards, table.players, table.partnership, table.rules)[1]
            if best > ceiling:
                total += best - ceiling
            if floor is not None:
                strength = best
                if self.trump is not None and seat == self.pitcher:
                    trump = Suit(SUIT_LETTERS[self.trump])
                    strength = suit_strength(
                        cards, trump, table.players, table.partnership, table.rules
                    )
                if strength < floor:
                    total += floor - strength
        return total

    # ---- outcomes --------------------------------------------------------------------------

    def utility(self, earned: list[int], pitcher: int, bid: int) -> float:
        """The hand's worth to our side: our change of score minus the others' mean, with
        the match bonus when the pitcher goes out (or smudges)."""
        table, sides = self.table, self.sides
        pitch_side, mine = sides[pitcher], sides[self.seat]
        made = earned[pitch_side] >= bid
        delta = earned[:]
        if not made:
            delta[pitch_side] = -bid
        others = (sum(delta) - delta[mine]) / (len(delta) - 1)
        value = delta[mine] - others
        score = self.scores[pitch_side]
        smudged = table.smudge and made and bid == table.top_bid and score >= 0
        if smudged or score + delta[pitch_side] >= table.target:
            value += WIN_BONUS if pitch_side == mine else -WIN_BONUS
        return value

    def play_hand(
        self, hands: list[list[int]], pitcher: int, trump: int, rng: random.Random
    ) -> list[int]:
        """Points per side when `pitcher` names `trump` by its first lead and the hand is
        played out. The first lead is a trump (it is what names the suit): the highest,
        as the bots lead it, unless that is a jack a higher trump could catch."""
        coded = [[with_trump(c, trump) for c in hand] for hand in hands]
        lead = first_lead(coded[pitcher], trump)
        coded[pitcher].remove(lead)
        tally = Tally(self.table.sides)
        trick = [(pitcher, lead)]
        turn = (pitcher + 1) % self.table.players
        play_out(coded, trick, turn, trump, tally, self.sides[pitcher], self.table, rng, self.sides)
        return tally.earned()

    def play_card(self, hands: list[list[int]], card: int, rng: random.Random) -> float:
        """Our worth of playing `card` now in this deal, the rest played by the policy."""
        assert self.pitcher is not None and self.bid is not None
        seat, trump = self.seat, self.trump
        if trump is None:  # the first lead names trump
            trump = trump_named_by(card)
            hands = [[with_trump(c, trump) for c in hand] for hand in hands]
            card = with_trump(card, trump)
        else:
            hands = [hand[:] for hand in hands]
        hands[seat].remove(card)
        trick = [*self.trick, (seat, card)]
        tally = self.tally.copy()
        turn = (seat + 1) % self.table.players
        pitch_side = self.sides[self.pitcher]
        play_out(hands, trick, turn, trump, tally, pitch_side, self.table, rng, self.sides)
        return self.utility(tally.earned(), self.pitcher, self.bid)


LEAD_MISFIT = 1.0
"""Misfit of each trump a pitcher holds above the one it named trump with (`first_lead`
says it leads its highest): as much as a bid's whole slack, since most players lead so."""


def first_lead_denies(
    plays: list[list[tuple[int, str]]], seat: int, trump: int | None
) -> tuple[int, int] | None:
    """The trumps the pitcher's first lead says it does not hold (a bit per card code),
    if another seat pitched and has led: those above its lead, as `first_lead` leads, the
    jack excepted when the lead was below it and above the three (the jack kept back);
    after a lead of the joker, every natural trump."""
    if trump is None or not plays or not plays[0]:
        return None
    pitcher, text = plays[0][0]
    if pitcher == seat:
        return None
    rank = with_trump(code_of(str(text)), trump) & 15
    above = range(2, 15) if rank == JOKER_RANK else range(rank + 1, 15)
    denied = 0
    for other in above:
        if not (other == JACK and 3 < rank < JACK):
            denied |= 1 << (trump * 16 + other)
    return int(pitcher), denied


def first_lead(hand: list[int], trump: int) -> int:
    """The card a pitcher names `trump` with: its highest trump, but not a jack when it
    holds another trump above the three (the jack is kept for later); the joker coded as
    a trump counts as the lowest. A hand with no trump (the model's suit came from the
    joker alone) leads its lowest card."""
    trumps = sorted((c for c in hand if c >> 4 == trump), reverse=True)
    if not trumps:
        return min(hand)
    if trumps[0] & 15 == JACK and len(trumps) > 1 and trumps[1] & 15 > 3:
        return trumps[1]
    return trumps[0]


def bid_bounds(
    bids: list[tuple[int, int | None]],
    seat: int,
    dealer: int,
    table: Table,
) -> list[tuple[int, float | None, float]]:
    """What each other seat's bid or pass says of its hand, as the bidding model reads
    it: the least strength (None: nothing) and the most, slack included. A bid of X says
    the hand is worth X but not X + 1 (the model bids as high as its hand allows, but
    for the dealer, who bids the least that takes the contract); a pass
    says the hand is worth less than the lowest bid it could have made. Only public
    information: the bids in order, the dealer, the table."""
    rules = table.rules
    steal = 0 if table.dealer_steal else 1
    high, leader = 0, None
    found: dict[int, tuple[float | None, float]] = {}
    for bidder, amount in bids:
        assert bidder is not None
        floor: float | None = None
        ceiling = float("inf")
        restraint = (
            PARTNER_RESTRAINT
            if table.partnership and leader is not None and leader % 2 == bidder % 2
            else 0.0
        )
        if amount is None:
            stealing = bidder == dealer and high
            lowest = high + steal if stealing else max(high + 1, rules.min_bid)
            if lowest <= table.top_bid:
                ceiling = strength_for(lowest) + PLAUSIBLE_SLACK + restraint
        else:
            forced = bidder == dealer and not high and not table.all_pass_redeal
            if not (forced and amount == max(2, rules.min_bid)):
                floor = strength_for(amount) - PLAUSIBLE_SLACK
            # The dealer bids the least that takes the contract, however strong: its bid
            # says nothing of how much more the hand is worth.
            if amount < table.top_bid and bidder != dealer:
                ceiling = strength_for(amount + 1) + PLAUSIBLE_SLACK + restraint
            high, leader = amount, bidder
        if bidder == seat:
            continue
        old_floor, old_ceiling = found.get(bidder, (None, float("inf")))
        if old_floor is not None and (floor is None or old_floor > floor):
            floor = old_floor
        found[bidder] = (floor, min(ceiling, old_ceiling))
    return [
        (bidder, floor, ceiling)
        for bidder, (floor, ceiling) in sorted(found.items())
        if floor is not None or ceiling != float("inf")
    ]


# ---- decisions ---------------------------------------------------------------------------------


class Clock:
    """The search's deadline, from an injectable clock (tests pass none: count only)."""

    def __init__(self, budget: Budget, now: Callable[[], float] = time.perf_counter) -> None:
        self.budget, self.now = budget, now
        self.stop = now() + budget.seconds if budget.seconds is not None else None

    def more(self, done: int) -> bool:
        if done >= self.budget.samples:
            return False
        return done == 0 or self.stop is None or self.now() < self.stop


SETTLE_FROM = 24
"""Deals sampled before the search may stop early, and how often it looks again."""
SETTLE_EVERY = 8
SETTLE_Z = 3.0
"""How many standard errors the leading choice must be ahead of each other one by."""


def settled(values: list[list[float]], done: int) -> bool:
    """Whether, after `done` deals, the leading choice is ahead of every other by
    SETTLE_Z standard errors of their paired difference (both were played out on the
    same deals with the same dice), or never behind one it ties with exactly."""
    if done < SETTLE_FROM or done % SETTLE_EVERY:
        return False
    totals = [sum(series) for series in values]
    lead = max(range(len(values)), key=lambda i: (totals[i], -i))
    best = values[lead]
    for index, series in enumerate(values):
        if index == lead:
            continue
        diffs = [a - b for a, b in zip(best, series, strict=True)]
        mean = sum(diffs) / done
        spread = sum((d - mean) ** 2 for d in diffs) / (done - 1)
        if mean < 0 or mean * mean * done < SETTLE_Z * SETTLE_Z * spread:
            return False
    return True


def choose_play(view: SeatView, budget: Budget, rng: random.Random) -> str:
    """The card to play (its text), by the average outcome over sampled deals."""
    return rank_plays(view, budget, rng)[0][0]


def rank_plays(view: SeatView, budget: Budget, rng: random.Random) -> list[tuple[str, float]]:
    """Every legal card (its text) with its average outcome over the sampled deals, the
    best first (ties: the first card in text order). A forced card is worth 0.0: it is
    played without a search."""
    options = sorted(view.legal_plays)
    if len(options) == 1:
        return [(options[0], 0.0)]
    knowledge = Knowledge.of(view)
    codes = [code_of(text) for text in options]
    if knowledge.trump is not None:
        codes = [with_trump(c, knowledge.trump) for c in codes]
    values: list[list[float]] = [[] for _ in codes]
    clock, done = Clock(budget), 0
    while clock.more(done):
        hands = knowledge.sample(rng)
        seed = rng.getrandbits(32)
        for index, card in enumerate(codes):
            # The same policy dice for every choice in one deal: the choices are compared
            # on equal terms, which takes much of the noise out of the comparison.
            values[index].append(knowledge.play_card(hands, card, random.Random(seed)))
        done += 1
        if budget.settle and settled(values, done):
            break
    totals = [sum(series) for series in values]
    order = sorted(range(len(codes)), key=lambda i: (-totals[i], i))
    return [(options[i], totals[i] / done) for i in order]


def choose_bid(view: SeatView, budget: Budget, rng: random.Random) -> int | None:
    """The bid with the best average outcome over sampled deals (`rank_bids`)."""
    return rank_bids(view, budget, rng).choice


@dataclass(frozen=True, slots=True)
class BidRanking:
    """What the search found of each bid: `worth` (average outcome per legal bid, pass as
    None), the `choice`, and for the suit we would name with it (`suit`, a letter of
    SUIT_LETTERS, None for a pass) the points our side took in the deals in which we
    pitched (`points`) and how often that made the bid (`made`, a share)."""

    worth: dict[int | None, float]
    choice: int | None
    suit: str | None = None
    points: float | None = None
    made: float | None = None


def rank_bids(view: SeatView, budget: Budget, rng: random.Random) -> BidRanking:
    """For each bid (or a pass) the rest of the auction is played by the bidding model on
    the sampled hands of the seats still to bid, and the contract it ends in is played
    out: ours in each suit we could name (the best suit counts), or another seat's in its
    best suit. The choice is the bid with the best average outcome."""
    knowledge = Knowledge.of(view)
    # Five takes every point, the joker among them: bid only holding it.
    legal = [b for b in view.legal_bids if b != 5 or JOKER in knowledge.hand]
    if len(legal) == 1:
        return BidRanking({legal[0]: 0.0}, legal[0])
    seat = knowledge.seat
    suits = sorted({c >> 4 for c in knowledge.hand if c != JOKER})
    if JOKER in knowledge.hand:
        suits = sorted({*suits, trump_named_by(JOKER)})
    values: dict[tuple[int, int | None], list[float]] = {
        (suit, bid): [] for suit in suits for bid in legal
    }
    pitched: dict[tuple[int, int | None], list[int]] = {}  # our side's points, as pitcher
    mine = knowledge.sides[seat]
    clock, done = Clock(budget), 0
    while clock.more(done):
        hands = knowledge.sample(rng)
        seed = rng.getrandbits(32)
        ours: dict[int, list[int]] = {}
        theirs: dict[tuple[int, int, int], float] = {}
        wants: dict[int, tuple[int, int]] = {}  # the bidding model's verdict per seat
        for bid in legal:
            contract = _auction(knowledge, hands, bid, wants)
            if contract is None:  # thrown in: nobody scores
                for suit in suits:
                    values[suit, bid].append(0.0)
                continue
            pitcher, amount, trump = contract
            if pitcher == seat:
                for suit in suits:
                    if suit not in ours:
                        ours[suit] = knowledge.play_hand(hands, seat, suit, random.Random(seed))
                    values[suit, bid].append(knowledge.utility(ours[suit], seat, amount))
                    pitched.setdefault((suit, bid), []).append(ours[suit][mine] - amount)
                continue
            if contract not in theirs:
                earned = knowledge.play_hand(hands, pitcher, trump, random.Random(seed))
                theirs[contract] = knowledge.utility(earned, pitcher, amount)
            for suit in suits:
                values[suit, bid].append(theirs[contract])
        done += 1
        if budget.settle and settled(_best_suits(values, suits, legal), done):
            break
    series = _best_suits(values, suits, legal)
    worth = {bid: sum(series[i]) / done for i, bid in enumerate(legal)}
    choice = max(legal, key=lambda b: (worth[b], -(b or 0)))
    if choice is None:
        return BidRanking(worth, None)
    suit = max(suits, key=lambda s: sum(values[s, choice]))
    margins = pitched.get((suit, choice), [])
    if not margins:  # in no deal did the auction end with us
        return BidRanking(worth, choice, SUIT_LETTERS[suit])
    points = sum(m + choice for m in margins) / len(margins)
    made = sum(m >= 0 for m in margins) / len(margins)
    return BidRanking(worth, choice, SUIT_LETTERS[suit], points, made)


def _best_suits(
    values: dict[tuple[int, int | None], list[float]], suits: list[int], legal: list[int | None]
) -> list[list[float]]:
    """Per bid, the outcomes in the suit that has done best with it so far."""
    return [max((values[suit, bid] for suit in suits), key=sum) for bid in legal]


def _cards(codes: list[int]) -> list[Card]:
    """The engine's cards, for the bidding model."""
    return [_CARD_OF_CODE[c] for c in codes]


_CARD_OF_CODE = {
    **{code: Card.parse(text_of(code)) for code in NATURAL_CODES},
    JOKER: JOKER_CARD,
    **{with_trump(JOKER, trump): JOKER_CARD for trump in range(4)},
}


def _wanted(hand: list[int], table: Table) -> tuple[int, int]:
    """What the bots' bidding model would bid with this hand, and its trump suit."""
    cards = _cards(hand)
    suit, strength = best_suit(cards, table.players, table.partnership, table.rules)
    wanted = bid_for(strength, table.rules, any(c.is_joker for c in cards))
    return wanted, SUIT_LETTERS.index(suit.value)


def _auction(
    knowledge: Knowledge,
    hands: list[list[int]],
    ours: int | None,
    wants: dict[int, tuple[int, int]],
) -> tuple[int, int, int] | None:
    """Who would pitch, at what bid and in which suit, if we bid `ours` (None: pass)
    now: the bids made so far, ours, then each later seat bidding what the bidding
    model says of its sampled hand. None when the hand would be thrown in (everyone
    passes, under `all_pass: redeal`). `wants` keeps each seat's verdict of this deal
    from one bid of ours to the next."""
    table = knowledge.table
    seat, dealer, players = knowledge.seat, knowledge.dealer, table.players
    high, leader = knowledge.bid or 0, knowledge.pitcher
    if ours is not None:
        high, leader = ours, seat
    if ours is None or ours < table.top_bid:
        for step in range(1, (dealer - seat) % players + 1):
            other = (seat + step) % players
            if other not in wants:
                wants[other] = _wanted(hands[other], table)
            wanted = wants[other][0]
            if wanted < table.min_bid:
                wanted = 0
            if other == dealer:
                # The dealer bids the least that takes the contract (`bid_up_to`): the
                # high bid where it may steal, one over it where not; the least it may
                # when everyone passed. A top bid that would smudge is the exception.
                forced = high == 0 and not table.all_pass_redeal
                if high == 0:
                    least = table.min_bid if table.all_pass_redeal else max(2, table.min_bid)
                else:
                    least = high if table.dealer_steal else high + 1
                if forced or wanted >= least:
                    smudging = table.smudge and wanted >= table.top_bid
                    high, leader = (table.top_bid if smudging else least), other
            elif wanted > high:
                high, leader = wanted, other
                if wanted >= table.top_bid:
                    break
    if leader is None:
        return None
    if leader == seat:
        return seat, high, -1
    if leader not in wants:
        wants[leader] = _wanted(hands[leader], table)
    return leader, high, wants[leader][1]
