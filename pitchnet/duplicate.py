"""`pitchnet simulate --duplicate`: bot against bot with the luck of the cards taken out.

As in duplicate bridge, every deal is played several times, the bots rotated one
seat each time, so that each kind of bot sits in every seat of the same cards.
A "deal" here is a whole match's worth of decks: the n-th hand of every seating
is dealt from the same deck, with the same first dealer. A kind's results are
averaged per deal first, and the 95% confidence intervals are taken over the
deals (the independent units), so the cards' luck, shared by all seatings of a
deal, drops out of the comparison.
"""

from __future__ import annotations

import math
import random
import secrets
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from pitchnet.bots import Bot, make_bot
from pitchnet.cards import shuffled_deck
from pitchnet.rules import Hand, HandResult, Match, Phase, Settings
from pitchnet.search import Budget
from pitchnet.views import seat_view

MAX_HANDS = 10_000
BotFactory = Callable[[str, int | None, Budget | None], Bot]
"""Makes a seat's bot from its kind, a seed and the hard bot's budget (`make_bot`)."""
Z95 = 1.959964


@dataclass
class KindTally:
    """One kind's results in one deal (over all its seatings)."""

    points: int = 0
    hands: int = 0
    wins: int = 0
    matches: int = 0


@dataclass
class BidTally:
    """How one kind bids, over a whole run: the complaints players make of bots are about
    bidding (bids with no power, a 4 with no chance, a dealer who outbids instead of
    stealing), so these are counted apart from the points.

    `bids[n]` counts every bid of n the kind made (outbid or not); `pitched[n]` the hands
    it won the auction with n, `set[n]` those it was set back on. The dealer's choices
    when someone has bid: `steals` (bid the high bid), `outbids` (over it), `passes`;
    `forced`: the dealer bid after everyone passed (forced to, unless all pass redeals)."""

    chances: int = 0
    bids: dict[int, int] = field(default_factory=dict)
    pitched: dict[int, int] = field(default_factory=dict)
    set: dict[int, int] = field(default_factory=dict)
    steals: int = 0
    steals_set: int = 0
    outbids: int = 0
    outbids_set: int = 0
    passes: int = 0
    forced: int = 0

    def add(self, other: BidTally) -> None:
        self.chances += other.chances
        for mine, theirs in (
            (self.bids, other.bids),
            (self.pitched, other.pitched),
            (self.set, other.set),
        ):
            for amount, count in theirs.items():
                mine[amount] = mine.get(amount, 0) + count
        self.steals += other.steals
        self.steals_set += other.steals_set
        self.outbids += other.outbids
        self.outbids_set += other.outbids_set
        self.passes += other.passes
        self.forced += other.forced


def tally_auction(
    hand: Hand, result: HandResult, kinds: Sequence[str], out: dict[str, BidTally]
) -> None:
    """Add one finished hand's auction to each kind's `BidTally` (kinds by seat)."""
    high: int | None = None
    for seat, amount in hand.bids:
        tally = out[kinds[seat]]
        tally.chances += 1
        if amount is not None:
            tally.bids[amount] = tally.bids.get(amount, 0) + 1
        if seat == hand.dealer:
            was_set = result.pitcher == seat and not result.made
            if high is None:
                tally.forced += amount is not None
            elif amount is None:
                tally.passes += 1
            elif amount == high:
                tally.steals += 1
                tally.steals_set += was_set
            else:
                tally.outbids += 1
                tally.outbids_set += was_set
        if amount is not None:
            high = amount
    if result.pitcher is not None and result.bid is not None:
        tally = out[kinds[result.pitcher]]
        tally.pitched[result.bid] = tally.pitched.get(result.bid, 0) + 1
        if not result.made:
            tally.set[result.bid] = tally.set.get(result.bid, 0) + 1


@dataclass
class DuplicateResult:
    settings: Settings
    kinds: list[str]  # by seat in the first seating
    deals: int
    seatings: int
    per_deal: list[dict[str, KindTally]] = field(default_factory=list)
    hands: int = 0
    unfinished: int = 0
    bidding: dict[str, BidTally] = field(default_factory=dict)
    """Each kind's bidding over every seating (`BidTally`)."""

    @property
    def kind_names(self) -> list[str]:
        return list(dict.fromkeys(self.kinds))

    def points_per_hand(self, kind: str) -> list[float]:
        return [d[kind].points / d[kind].hands for d in self.per_deal if d[kind].hands]

    def win_rates(self, kind: str) -> list[float]:
        return [d[kind].wins / d[kind].matches for d in self.per_deal if d[kind].matches]

    def difference(self, kind: str, other: str) -> list[float]:
        """Per deal: `kind`'s points per hand minus `other`'s."""
        return [
            d[kind].points / d[kind].hands - d[other].points / d[other].hands
            for d in self.per_deal
            if d[kind].hands and d[other].hands
        ]


def interval(values: Sequence[float]) -> tuple[float, float, float]:
    """The mean and its 95% confidence interval (normal approximation over the deals)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan, math.nan
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def _play(
    settings: Settings,
    bots: Sequence[Bot],
    dealer: int,
    deck_seed: int,
    auction: tuple[Sequence[str], dict[str, BidTally]] | None = None,
) -> tuple[Match, list[int]]:
    """One match from this deal's decks; returns it and each side's change per hand.
    With `auction` (kinds by seat, and the tallies), every hand's bidding is counted."""
    deck_rng = random.Random(deck_seed)
    match = Match(settings, dealer=dealer)
    while match.phase is not Phase.MATCH_OVER and match.hand_number < MAX_HANDS:
        hand = match.deal(shuffled_deck(deck_rng, joker=settings.rules.has_joker))
        while match.phase in (Phase.BIDDING, Phase.PLAYING):
            seat = match.turn
            assert seat is not None
            bots[seat].decide(seat_view(match, seat)).apply_to(match)
        if auction is not None:
            kinds, tallies = auction
            tally_auction(hand, match.results[-1], kinds, tallies)
    totals = [0] * settings.sides
    for result in match.results:
        for side in range(settings.sides):
            totals[side] += result.scores[side] - result.scores_before[side]
    return match, totals


@dataclass(frozen=True)
class _Deal:
    """One deal's work, as a worker process gets it (all plain, so it pickles)."""

    settings: Settings
    kinds: tuple[str, ...]
    number: int
    deck_seed: int
    bot_seed: int
    budget: Budget | None
    make: BotFactory


def _play_deal(deal: _Deal) -> tuple[dict[str, KindTally], dict[str, BidTally], int, int]:
    """Every seating of one deal: each kind's tally, its bidding, hands, unfinished."""
    settings, kinds, players = deal.settings, deal.kinds, deal.settings.players
    tallies = {kind: KindTally() for kind in dict.fromkeys(kinds)}
    bidding = {kind: BidTally() for kind in dict.fromkeys(kinds)}
    hands = unfinished = 0
    for rotation in range(players):
        seating = [kinds[(seat - rotation) % players] for seat in range(players)]
        bots = [
            deal.make(kind, deal.bot_seed + seat, deal.budget) for seat, kind in enumerate(seating)
        ]
        match, totals = _play(
            settings, bots, deal.number % players, deal.deck_seed, (seating, bidding)
        )
        hands += len(match.results)
        unfinished += match.winner is None
        for seat, kind in enumerate(seating):
            tally = tallies[kind]
            side = settings.side_of(seat)
            tally.points += totals[side]
            tally.hands += len(match.results)
            tally.matches += 1
            tally.wins += match.winner == side
    return tallies, bidding, hands, unfinished


def duplicate(
    settings: Settings,
    kinds: Sequence[str],
    deals: int,
    seed: int | None = None,
    budget: Budget | None = None,
    workers: int = 1,
    make: BotFactory = make_bot,
) -> DuplicateResult:
    """Play each of `deals` deals once per seating (the kinds rotated one seat each time,
    as many seatings as seats), the first dealer rotating one seat per deal. `workers`
    processes share the deals; the result is the same for any number of them (each
    deal's seeds are drawn before any is played). `make` makes each seat's bot from its
    kind (benchmarks/bots.py passes one that also seats bots of another checkout)."""
    master = random.Random(seed) if seed is not None else secrets.SystemRandom()
    result = DuplicateResult(settings, list(kinds), deals, settings.players)
    result.bidding = {kind: BidTally() for kind in result.kind_names}
    work = []
    for number in range(deals):
        deck_seed = master.getrandbits(64)
        bot_seed = master.getrandbits(64)
        work.append(_Deal(settings, tuple(kinds), number, deck_seed, bot_seed, budget, make))
    if workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers) as pool:
            done = list(pool.map(_play_deal, work, chunksize=1))
    else:
        done = [_play_deal(deal) for deal in work]
    for tallies, bidding, hands, unfinished in done:
        result.per_deal.append(tallies)
        for kind, tally in bidding.items():
            result.bidding[kind].add(tally)
        result.hands += hands
        result.unfinished += unfinished
    return result


def _signed(value: float) -> str:
    return "    -" if math.isnan(value) else f"{value:+.2f}"


def _percent(value: float) -> str:
    return "   -" if math.isnan(value) else f"{100 * value:.1f}"


def report_duplicate(result: DuplicateResult, out: TextIO, seed: int | None) -> None:
    """Per kind: mean points per hand and match win rate, each with its 95% interval;
    then the first kind's lead in points per hand over each other kind."""
    settings = result.settings
    mode = "partnership, " if settings.partnership else ""
    seeded = f"seed {seed}" if seed is not None else "unseeded (production shuffle)"
    matches = result.deals * result.seatings
    out.write(
        f"duplicate: {result.deals} deals x {result.seatings} seatings = {matches} matches, "
        f"{settings.players} players, {mode}target {settings.target}, {seeded}\n"
    )
    out.write(
        f"{result.hands} hands dealt; a fair share of match wins is "
        f"{100 / settings.sides:.1f}%; intervals are 95% over the {result.deals} deals\n\n"
    )
    names = result.kind_names
    width = max(8, *(len(name) for name in names))
    out.write(
        f"{'bot kind':<{width}}  {'seats':>5}  {'points/hand':>11}  {'95% CI':>15}  "
        f"{'match wins':>10}  {'95% CI':>13}\n"
    )
    for name in names:
        seats = result.kinds.count(name)
        points, low, high = interval(result.points_per_hand(name))
        wins, wlow, whigh = interval(result.win_rates(name))
        out.write(
            f"{name:<{width}}  {seats:>5}  {_signed(points):>11}  "
            f"{_signed(low) + '..' + _signed(high):>15}  {_percent(wins) + '%':>10}  "
            f"{_percent(wlow) + '..' + _percent(whigh) + '%':>13}\n"
        )
    first = names[0]
    for other in names[1:]:
        lead, low, high = interval(result.difference(first, other))
        out.write(
            f"\n{first} - {other}: {_signed(lead)} points/hand "
            f"(95% CI {_signed(low)}..{_signed(high)})"
        )
    if len(names) > 1:
        out.write("\n")
    if result.unfinished:
        out.write(
            f"\n{result.unfinished} matches were stopped unfinished after {MAX_HANDS} hands\n"
        )


def report_bidding(result: DuplicateResult, out: TextIO) -> None:
    """Per kind and bid: how often it was bid, won the auction and was set back (with the
    set rate's 95% interval), then how the kind deals with a bid as the dealer."""
    out.write(
        "\nbidding, per kind over every seating (bids: every bid made, outbid or not; "
        "pitched: auctions won; set: of those, set back; 95% Wilson intervals)\n"
    )
    names = result.kind_names
    width = max(8, *(len(name) for name in names))
    out.write(
        f"{'bot kind':<{width}}  {'bid':>3}  {'bids':>7}  {'per turn':>8}  {'pitched':>7}  "
        f"{'set':>6}  {'set %':>6}  {'95% CI':>13}\n"
    )
    for name in names:
        tally = result.bidding.get(name, BidTally())
        for amount in sorted(set(tally.bids) | set(tally.pitched)):
            bids, pitched = tally.bids.get(amount, 0), tally.pitched.get(amount, 0)
            was_set = tally.set.get(amount, 0)
            share = bids / tally.chances if tally.chances else math.nan
            low, high = wilson(was_set, pitched)
            out.write(
                f"{name:<{width}}  {amount:>3}  {bids:>7}  {_percent(share) + '%':>8}  "
                f"{pitched:>7}  {was_set:>6}  {_percent(_ratio(was_set, pitched)) + '%':>6}  "
                f"{_percent(low) + '..' + _percent(high) + '%':>13}\n"
            )
        pitched = sum(tally.pitched.values())
        was_set = sum(tally.set.values())
        low, high = wilson(was_set, pitched)
        out.write(
            f"{name:<{width}}  all  {sum(tally.bids.values()):>7}  {'':>8}  {pitched:>7}  "
            f"{was_set:>6}  {_percent(_ratio(was_set, pitched)) + '%':>6}  "
            f"{_percent(low) + '..' + _percent(high) + '%':>13}\n"
        )
    out.write("\nthe dealer, when someone has bid (steal: bids the high bid; outbid: over it)\n")
    out.write(
        f"{'bot kind':<{width}}  {'steals':>6}  {'set':>5}  {'outbids':>7}  {'set':>5}  "
        f"{'passes':>6}  {'bid after all passed':>20}\n"
    )
    for name in names:
        tally = result.bidding.get(name, BidTally())
        out.write(
            f"{name:<{width}}  {tally.steals:>6}  {tally.steals_set:>5}  {tally.outbids:>7}  "
            f"{tally.outbids_set:>5}  {tally.passes:>6}  {tally.forced:>20}\n"
        )


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else math.nan


def wilson(part: int, whole: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (sound at 0 and near it, where the
    normal approximation is not): NaNs when there is nothing to count."""
    if not whole:
        return math.nan, math.nan
    share, z2 = part / whole, Z95 * Z95
    centre = (share + z2 / (2 * whole)) / (1 + z2 / whole)
    half = Z95 * math.sqrt(share * (1 - share) / whole + z2 / (4 * whole * whole))
    half /= 1 + z2 / whole
    return max(0.0, centre - half), min(1.0, centre + half)
