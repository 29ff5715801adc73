"""Engine and bot speed, quoted in BENCHMARKS.md. Run by hand:

    uv run python benchmarks/engine.py [--hands N] [--decisions N] [--repeats N]

Prints, all in one process on one core:
- baselines: shuffling and dealing alone (seeded `random.Random` and the production
  `secrets.SystemRandom`), so the other figures have a reference measured in the same run;
- random 4-player hands per second through the engine (deal, bidding, six tricks,
  scoring), legal moves taken straight from `Match.legal_bids` / `legal_plays`;
- the same through the bot path (a `SeatView` per decision and a `RandomBot`);
- heuristic bot decision time (median, p99, max) over many decisions, beside the
  random bot's and the cost of building the view it decides from.

Goals: at least 10,000 hands/s, and p99 heuristic decision under 5 ms.
"""

from __future__ import annotations

import argparse
import platform
import random
import secrets
import statistics
import sys
import time
from collections.abc import Callable

from pitchnet.bots import make_bot
from pitchnet.cards import shuffled_deck
from pitchnet.rules import Match, Phase, Settings, deal_hands
from pitchnet.views import seat_view

SETTINGS = Settings(players=4)


def best_rate(run: Callable[[], int], repeats: int) -> tuple[float, float, float]:
    """Run `run` (which returns a count) `repeats` times. Returns counts per second:
    the best and the median by the wall clock, and the best by this process's CPU time
    (which other work on a shared machine disturbs less)."""
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        count = run()
        wall.append(count / (time.perf_counter() - start))
        cpu.append(count / (time.process_time() - start_cpu))
    return max(wall), statistics.median(wall), max(cpu)


def shuffle_and_deal(hands: int, rng: random.Random) -> Callable[[], int]:
    def run() -> int:
        for number in range(hands):
            deal_hands(shuffled_deck(rng), SETTINGS, number % 4)
        return hands

    return run


def engine_hands(hands: int, seed: int) -> Callable[[], int]:
    """Random legal play straight through the engine: what the rules cost."""

    def run() -> int:
        rng = random.Random(seed)
        random_float = rng.random
        match = Match(SETTINGS)
        for _ in range(hands):
            if match.phase is Phase.MATCH_OVER:
                match = Match(SETTINGS)
            match.deal(shuffled_deck(rng))
            hand = match.hand
            assert hand is not None
            while hand.bidding:
                seat = hand.turn
                match.bid(seat, rng.choice(hand.legal_bids(seat)))
            while not hand.complete:
                seat = hand.turn
                legal = hand.legal_plays(seat)
                held = hand.hands[seat]
                # A uniform choice among the legal plays by rejection sampling from the
                # hand (a list): cheap, and unlike iterating the set it does not depend on
                # hash order, so every run plays the same hands.
                card = held[int(random_float() * len(held))]
                while card not in legal:
                    card = held[int(random_float() * len(held))]
                match.play(seat, card)
        return hands

    return run


def bot_path_hands(hands: int, seed: int) -> Callable[[], int]:
    """Random bots deciding from views: what a simulated or hosted hand costs."""

    def run() -> int:
        rng = random.Random(seed)
        bots = [make_bot("random", seed + seat) for seat in range(4)]
        match = Match(SETTINGS)
        for _ in range(hands):
            if match.phase is Phase.MATCH_OVER:
                match = Match(SETTINGS)
            match.deal(shuffled_deck(rng))
            while match.phase in (Phase.BIDDING, Phase.PLAYING):
                seat = match.turn
                assert seat is not None
                bots[seat].decide(seat_view(match, seat)).apply_to(match)
        return hands

    return run


def decision_times(decisions: int, seed: int) -> dict[str, list[int]]:
    """Time, in ns, heuristic decisions (and, for reference, a random bot's decision and
    the view build) from every seat's views, in seeded matches where seat 0 plays the
    heuristic choices and seats 1-3 the random ones."""
    rng = random.Random(seed)
    heuristic = make_bot("heuristic", None)
    randoms = [make_bot("random", seed + seat) for seat in range(4)]
    times: dict[str, list[int]] = {"heuristic": [], "random": [], "view": []}
    clock = time.perf_counter_ns
    match = Match(SETTINGS)
    while len(times["heuristic"]) < decisions:
        if match.phase is Phase.MATCH_OVER:
            match = Match(SETTINGS, dealer=len(times["heuristic"]) % 4)
        match.deal(shuffled_deck(rng))
        while match.phase in (Phase.BIDDING, Phase.PLAYING):
            seat = match.turn
            assert seat is not None
            start = clock()
            view = seat_view(match, seat)
            built = clock()
            times["view"].append(built - start)
            chosen = heuristic.decide(view)
            decided = clock()
            times["heuristic"].append(decided - built)
            random_choice = randoms[seat].decide(view)
            times["random"].append(clock() - decided)
            # Seat 0 follows its heuristic choice; the others play randomly.
            decision = chosen if seat == 0 else random_choice
            decision.apply_to(match)
    return times


def percentile(sorted_values: list[int], fraction: float) -> float:
    index = min(len(sorted_values) - 1, int(fraction * len(sorted_values)))
    return float(sorted_values[index])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000, help="hands per timed run")
    parser.add_argument("--decisions", type=int, default=100_000, help="heuristic decisions")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per figure")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    hands, repeats, seed = args.hands, args.repeats, args.seed

    print(f"pitchnet engine benchmark: Python {platform.python_version()} on {platform.machine()}")
    print(f"one process, {repeats} runs of {hands:,} hands each, per second:")
    print("wall clock best (median), and best by CPU time\n")

    def line(label: str, rates: tuple[float, float, float], unit: str) -> None:
        print(f"  {label:<46} {rates[0]:>8,.0f} ({rates[1]:,.0f}) {unit:<8} cpu {rates[2]:>8,.0f}")

    print("baselines")
    line(
        "shuffle + deal, seeded random.Random",
        best_rate(shuffle_and_deal(hands, random.Random(seed)), repeats),
        "deals/s",
    )
    line(
        "shuffle + deal, secrets.SystemRandom",
        best_rate(shuffle_and_deal(hands, secrets.SystemRandom()), repeats),
        "deals/s",
    )
    print("random 4-player hands (deal, bidding, six tricks, scoring)")
    line("engine: legal moves from Match", best_rate(engine_hands(hands, seed), repeats), "hands/s")
    line(
        "bot path: SeatView + RandomBot per decision",
        best_rate(bot_path_hands(max(1, hands // 5), seed), repeats),
        "hands/s",
    )

    times = decision_times(args.decisions, seed)
    print(f"\ndecision times over {len(times['heuristic']):,} decisions (microseconds)")
    print(f"  {'':<22} {'median':>8} {'p99':>8} {'max':>8}")
    for name, label in (
        ("heuristic", "heuristic bot decide"),
        ("random", "random bot decide"),
        ("view", "seat_view build"),
    ):
        values = sorted(times[name])
        print(
            f"  {label:<22} {statistics.median(values) / 1e3:>8.1f} "
            f"{percentile(values, 0.99) / 1e3:>8.1f} {values[-1] / 1e3:>8.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
