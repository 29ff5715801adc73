"""How well and how fast the bot levels play, quoted in BENCHMARKS.md. Run by hand:

    uv run python benchmarks/bots.py strength --bots hard,normal --deals 30
    uv run python benchmarks/bots.py strength --bots hard,normal --partnership --deals 30
    uv run python benchmarks/bots.py strength --bots normal,easy --deals 40
    uv run python benchmarks/bots.py strength --bots easy,random --deals 40
    uv run python benchmarks/bots.py speed --decisions 300
    uv run python benchmarks/bots.py bidding --deals 64 --rules joker --workers 2

`strength` is `pitchnet simulate --duplicate` (every deal once per seating, the
kinds rotated through the seats) with the machine's load and the wall time around
it: the first kind sits in one seat (or one team) and the second fills the rest.
`speed` times the `hard` bot's decisions in seeded matches against `normal` bots
(median, p90, p99, max, per kind of decision), counts its playouts per second
beside the engine's own speed playing the same hands (the baseline), and profiles
where the search's time goes.

Goals (issue 16): hard vs three normal >= 40% of matches and >= +0.4 points per hand
in duplicate, both intervals excluding the fair share; a hard team vs a normal team
>= 65%; hard's decisions p99 <= 1.0 s and median <= 0.3 s at that budget; normal vs
three easy and easy vs three random clearly above a fair share.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import io
import os
import pstats
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pitchnet import playout, search
from pitchnet.bots import Bot, SearchBot, make_bot
from pitchnet.cards import Card, shuffled_deck
from pitchnet.duplicate import duplicate, report_bidding, report_duplicate
from pitchnet.house_rules import PRESETS
from pitchnet.rules import Bid, Match, Phase, Settings
from pitchnet.search import Budget
from pitchnet.views import SeatView, seat_view

TREES: dict[str, Any] = {}
"""Label -> another checkout's `pitchnet` modules, for kinds written KIND@TREE."""


def _load_tree(tree: str) -> Any:
    """Import another checkout's bots beside this one's: its `pitchnet` modules are
    imported afresh from `tree` and then taken out of `sys.modules` again, so they keep
    referring to each other while this checkout's modules stay in place."""

    def ours() -> dict[str, Any]:
        return {
            n: m for n, m in sys.modules.items() if n == "pitchnet" or n.startswith("pitchnet.")
        }

    saved = ours()
    for name in saved:
        del sys.modules[name]
    sys.path.insert(0, tree)
    try:
        loaded = SimpleNamespace(
            bots=importlib.import_module("pitchnet.bots"),
            views=importlib.import_module("pitchnet.views"),
            search=importlib.import_module("pitchnet.search"),
        )
    finally:
        sys.path.remove(tree)
        for name in ours():
            del sys.modules[name]
        sys.modules.update(saved)
    if Path(loaded.bots.__file__).resolve().parent.parent != Path(tree).resolve():
        raise SystemExit(f"{tree} has no pitchnet package of its own")
    return loaded


class TreeBot(Bot):
    """A bot of another checkout, seated at this checkout's table: it is shown each view
    through the wire form (as a client would be) and its card is read back as text."""

    kind = "tree"
    thinks_long = True

    def __init__(self, inner: Any, views: Any) -> None:
        self.inner, self.views = inner, views

    def _view(self, view: SeatView) -> Any:
        return self.views.SeatView.from_wire(view.to_wire())

    def choose_bid(self, view: SeatView) -> Bid:
        return self.inner.choose_bid(self._view(view))  # type: ignore[no-any-return]

    def choose_play(self, view: SeatView) -> Card:
        return Card.parse(str(self.inner.choose_play(self._view(view))))


def _commit(tree: str) -> str:
    """The tree's commit (with + for uncommitted changes), or "no git" for a plain copy."""
    done = subprocess.run(
        ["git", "-C", tree, "describe", "--always", "--dirty=+"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or "no git"


def make_any_bot(kind: str, seed: int | None, budget: Budget | None) -> Bot:
    """`make_bot`, and KIND@TREE for a bot of another checkout (loaded into `TREES`). A
    bot of another checkout thinks with that checkout's own default budget (`--samples`
    is this checkout's): the comparison is of the two bots as each tree ships them."""
    if "@" not in kind:
        return make_bot(kind, seed, budget)
    name, tree = kind.split("@", 1)
    loaded = TREES[tree]
    return TreeBot(loaded.bots.make_bot(name, seed, None), loaded.views)


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def _settings(args: argparse.Namespace, players: int) -> Settings:
    preset = PRESETS[args.rules]
    return Settings(players, args.partnership, args.target or preset.target or 7, preset.rules)


def _run(args: argparse.Namespace, settings: Settings, kinds: list[str]) -> None:
    print(f"before: {load()}; rules {args.rules}; {args.workers} worker processes")
    for kind in kinds:
        if "@" in kind and kind.split("@", 1)[1] not in TREES:
            tree = kind.split("@", 1)[1]
            TREES[tree] = _load_tree(tree)
            print(f"{kind}: the bots of {tree} ({_commit(tree)})")
    start = time.perf_counter()
    result = duplicate(
        settings,
        kinds,
        args.deals,
        args.seed,
        Budget(args.samples),
        workers=args.workers,
        make=make_any_bot,
    )
    wall = time.perf_counter() - start
    report_duplicate(result, sys.stdout, args.seed)
    report_bidding(result, sys.stdout)
    print(f"\nhard budget: {args.samples} sampled deals per decision (count only)")
    print(f"{wall:.0f} s wall; after: {load()}")


def strength(args: argparse.Namespace) -> None:
    first, rest = args.bots.split(",")
    players = 4
    kinds = [first, rest, first, rest] if args.partnership else [first] + [rest] * (players - 1)
    _run(args, _settings(args, players), kinds)


def bidding(args: argparse.Namespace) -> None:
    """Every level at one table, rotated through the seats: how each bids, is set back and
    steals as the dealer, under one preset."""
    kinds = args.seats.split(",")
    _run(args, _settings(args, len(kinds)), kinds)


def _decisions(samples: int, decisions: int, seed: int) -> tuple[list[tuple[str, float]], int]:
    """Time `decisions` non-forced decisions of a hard bot at seat 0 against normal bots.
    Returns (kind, seconds) per decision and the playouts it ran."""
    rng = random.Random(seed)
    hard = SearchBot(seed, Budget(samples))
    normal = make_bot("normal")
    times: list[tuple[str, float]] = []
    counter = [0]
    real = playout.play_out

    def counting(*a, **k):  # type: ignore[no-untyped-def]
        counter[0] += 1
        return real(*a, **k)

    search.play_out = counting  # type: ignore[assignment]
    try:
        while len(times) < decisions:
            match = Match(Settings(4), dealer=len(times) % 4)
            while match.phase is not Phase.MATCH_OVER and len(times) < decisions:
                match.deal(shuffled_deck(rng))
                while match.phase in (Phase.BIDDING, Phase.PLAYING):
                    seat = match.turn
                    assert seat is not None
                    view = seat_view(match, seat)
                    if seat != 0:
                        normal.decide(view).apply_to(match)
                        continue
                    choices = view.legal_bids if view.phase == "bidding" else view.legal_plays
                    start = time.perf_counter()
                    action = hard.decide(view)
                    elapsed = time.perf_counter() - start
                    if len(choices) > 1:
                        times.append((action.kind, elapsed))
                    action.apply_to(match)
    finally:
        search.play_out = real  # type: ignore[assignment]
    return times, counter[0]


def _engine_hands_per_second(hands: int, seed: int) -> float:
    """Baseline: whole hands of random legal play through the engine, per second."""
    rng = random.Random(seed)
    start = time.perf_counter()
    for number in range(hands):
        match = Match(Settings(4), dealer=number % 4)
        match.deal(shuffled_deck(rng))
        while match.phase in (Phase.BIDDING, Phase.PLAYING):
            seat = match.turn
            assert seat is not None
            if match.phase is Phase.BIDDING:
                match.bid(seat, rng.choice(match.legal_bids(seat)))
            else:
                match.play(seat, rng.choice(sorted(match.legal_plays(seat))))
    return hands / (time.perf_counter() - start)


def _playouts_per_second(count: int, seed: int) -> float:
    """Whole 4-player hands through the lean model's playout policy, per second."""
    rng = random.Random(seed)
    table = playout.Table()
    sides = table.sides_by_seat()
    deck = list(playout.NATURAL_CODES)
    start = time.perf_counter()
    for number in range(count):
        rng.shuffle(deck)
        hands = [deck[6 * s : 6 * s + 6] for s in range(4)]
        trump = number % 4
        tally = playout.Tally(4)
        playout.play_out(hands, [], number % 4, trump, tally, number % 4, table, rng, sides)
        tally.earned()
    return count / (time.perf_counter() - start)


def _quantile(values: list[float], q: float) -> float:
    """The q-quantile of sorted `values` (nearest rank)."""
    return values[min(len(values) - 1, int(q * len(values)))]


def speed(args: argparse.Namespace) -> None:
    print(f"before: {load()}")
    print(f"baseline, the engine: {_engine_hands_per_second(2000, 1):,.0f} random hands/s")
    print(f"lean model, policy playouts: {_playouts_per_second(5000, 2):,.0f} whole hands/s")
    explore, playout.EXPLORE = playout.EXPLORE, 1.0  # every card random: no policy cost
    try:
        print(f"lean model, random playouts: {_playouts_per_second(5000, 3):,.0f} whole hands/s")
    finally:
        playout.EXPLORE = explore
    start = time.perf_counter()
    times, playouts = _decisions(args.samples, args.decisions, args.seed)
    wall = time.perf_counter() - start
    print(
        f"hard at {args.samples} samples: {len(times)} decisions (forced ones not counted), "
        f"{playouts:,} playouts in {wall:.1f} s wall ({playouts / wall:,.0f} playouts/s, "
        "the normal bots' turns included in the time)"
    )
    for kind in ("bid", "play", "all"):
        values = sorted(t for k, t in times if kind in (k, "all"))
        if not values:
            continue
        print(
            f"  {kind:>4}: n={len(values):4d}  median {statistics.median(values):.3f} s  "
            f"p90 {_quantile(values, 0.9):.3f} s  p99 {_quantile(values, 0.99):.3f} s  "
            f"max {values[-1]:.3f} s"
        )
    print(f"after: {load()}")
    profiler = cProfile.Profile()
    profiler.enable()
    _decisions(args.samples, args.decisions // 4, args.seed + 1)
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(12)
    print("\nwhere the time goes (cProfile, sorted by own time):")
    print("\n".join(line for line in text.getvalue().splitlines() if line.strip())[:4000])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("strength", help="duplicate matches, one kind against another")
    one.add_argument("--bots", default="hard,normal", help="FIRST,REST (default hard,normal)")
    one.add_argument("--partnership", action="store_true")
    three = commands.add_parser("bidding", help="every level at one table: how each bids")
    three.add_argument(
        "--seats", default="hard,normal,easy,normal", help="the kinds by seat (rotated)"
    )
    for command in (one, three):
        command.add_argument("--deals", type=int, default=30)
        command.add_argument("--target", type=int, help="default: the preset's, else 7")
        command.add_argument("--seed", type=int, default=2026)
        command.add_argument("--samples", type=int, default=Budget().samples)
        command.add_argument("--rules", choices=list(PRESETS), default="standard")
        command.add_argument("--workers", type=int, default=1, help="processes (same result)")
    three.set_defaults(partnership=False)
    two = commands.add_parser("speed", help="hard's decision times, playouts/s, profile")
    two.add_argument("--decisions", type=int, default=300)
    two.add_argument("--samples", type=int, default=Budget().samples)
    two.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    {"strength": strength, "bidding": bidding, "speed": speed}[args.command](args)


if __name__ == "__main__":
    main()
