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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

from pitchnet.bots import Bot, make_bot
from pitchnet.cards import shuffled_deck
from pitchnet.rules import Match, Phase, Settings
from pitchnet.search import Budget
from pitchnet.views import seat_view

MAX_HANDS = 10_000
Z95 = 1.959964


@dataclass
class KindTally:
    """One kind's results in one deal (over all its seatings)."""

    points: int = 0
    hands: int = 0
    wins: int = 0
    matches: int = 0


@dataclass
class DuplicateResult:
    settings: Settings
    kinds: list[str]  # by seat in the first seating
    deals: int
    seatings: int
    per_deal: list[dict[str, KindTally]] = field(default_factory=list)
    hands: int = 0
    unfinished: int = 0

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
    settings: Settings, bots: Sequence[Bot], dealer: int, deck_seed: int
) -> tuple[Match, list[int]]:
    """One match from this deal's decks; returns it and each side's change per hand."""
    deck_rng = random.Random(deck_seed)
    match = Match(settings, dealer=dealer)
    while match.phase is not Phase.MATCH_OVER and match.hand_number < MAX_HANDS:
        match.deal(shuffled_deck(deck_rng, joker=settings.rules.has_joker))
        while match.phase in (Phase.BIDDING, Phase.PLAYING):
            seat = match.turn
            assert seat is not None
            bots[seat].decide(seat_view(match, seat)).apply_to(match)
    totals = [0] * settings.sides
    for result in match.results:
        for side in range(settings.sides):
            totals[side] += result.scores[side] - result.scores_before[side]
    return match, totals


def duplicate(
    settings: Settings,
    kinds: Sequence[str],
    deals: int,
    seed: int | None = None,
    budget: Budget | None = None,
) -> DuplicateResult:
    """Play each of `deals` deals once per seating (the kinds rotated one seat each time,
    as many seatings as seats), the first dealer rotating one seat per deal."""
    players = settings.players
    master = random.Random(seed) if seed is not None else secrets.SystemRandom()
    result = DuplicateResult(settings, list(kinds), deals, players)
    for number in range(deals):
        deck_seed = master.getrandbits(64)
        bot_seed = master.getrandbits(64)
        tallies = {kind: KindTally() for kind in result.kind_names}
        for rotation in range(players):
            seating = [kinds[(seat - rotation) % players] for seat in range(players)]
            bots = [make_bot(kind, bot_seed + seat, budget) for seat, kind in enumerate(seating)]
            match, totals = _play(settings, bots, number % players, deck_seed)
            result.hands += len(match.results)
            if match.winner is None:
                result.unfinished += 1
            for seat, kind in enumerate(seating):
                tally = tallies[kind]
                side = settings.side_of(seat)
                tally.points += totals[side]
                tally.hands += len(match.results)
                tally.matches += 1
                tally.wins += match.winner == side
        result.per_deal.append(tallies)
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
