"""The match-end chart against textual-plotext, on the same matches, in the same run.

For each of N seeded bot matches (four players, to 11, the standard rules), both
charts draw the score history in the box the match end gives them (60x8 and 80x8
cells), and this counts:
  - plot rows: rows that can hold a point (plotext spends the rest on its frame, its
    ticks and its labels);
  - sides lost: (match, side) pairs of which no mark at all is left in the plot area,
    of all pairs. plotext is given each side's number as its marker (it joins the
    points with runs of the marker); ours writes each side's number at each hand when
    the hands are far enough apart, else at the last hand. A side that ends level with
    another, or runs under it, can vanish under it;
  - render time: the median time to build the chart's text, in microseconds.

Run: uv run --with textual-plotext python benchmarks/chart.py [--matches N]
(textual-plotext is not a dependency of pitchnet: it was measured and kept out.)
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from client.widgets.chart import score_chart, side_marker  # noqa: E402
from pitchnet.bots import make_bot  # noqa: E402
from pitchnet.rules import Settings  # noqa: E402
from pitchnet.simulate import play_match  # noqa: E402

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def histories(matches: int, seed: int) -> list[list[list[int]]]:
    """The score after every hand of `matches` seeded matches of four normal bots."""
    master = random.Random(seed)
    settings = Settings(players=4, target=11)
    out = []
    for number in range(matches):
        bots = [make_bot("normal", master.getrandbits(64)) for _ in range(4)]
        deck = random.Random(master.getrandbits(64))
        match, _hands = play_match(settings, bots, number % 4, deck)
        out.append([list(result.scores) for result in match.results])
    return out


def game_of(history: list[list[int]]) -> Any:
    last = history[-1]
    view = SimpleNamespace(
        sides=len(last), score_history=history, target=11, scores=last, winner=None
    )
    return SimpleNamespace(view=view, ascii_only=False, side_name=str)


def ours(history: list[list[int]], width: int, height: int) -> str:
    return score_chart(game_of(history), width, height).plain


def plotext_chart(history: list[list[int]], width: int, height: int) -> str:
    import plotext as plt

    plt.clear_figure()
    plt.plotsize(width, height)
    plt.theme("clear")
    hands = list(range(len(history) + 1))
    for side in range(len(history[0])):
        scores = [0] + [row[side] for row in history]
        plt.plot(hands, scores, marker=side_marker(side))
    plt.hline(11)
    return ANSI.sub("", plt.build())


def plot_area(text: str) -> list[str]:
    """The rows that can hold a point, each without its axis labels (which hold digits
    that would count as markers): right of the first axis glyph."""
    rows = []
    for line in text.split("\n"):
        cut = min((line.find(g) for g in "│┤├|" if g in line), default=-1)
        if cut >= 0 and not line.lstrip().startswith(("└", "┌")):
            rows.append(line[cut + 1 :])
    return rows


def timed(draw: Any, history: list[list[int]], width: int, height: int) -> float:
    start = time.perf_counter()
    draw(history, width, height)
    return (time.perf_counter() - start) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    games = histories(args.matches, args.seed)
    hands = sum(len(h) for h in games)
    print(f"{args.matches} matches, {hands} hands ({hands / len(games):.1f} a match)")
    print(f"{'chart':<10} {'size':>5} {'plot rows':>9} {'sides lost':>12} {'render us':>9}")
    for width, height in ((60, 8), (80, 8)):
        for name, draw in (("pitchnet", ours), ("plotext", plotext_chart)):
            rows, lost, pairs, times = 0, 0, 0, []
            for history in games:
                area = plot_area(draw(history, width, height))
                times.append(timed(draw, history, width, height))
                rows = len(area)
                sides = len(history[0])
                pairs += sides
                lost += sum(not any(side_marker(s) in row for row in area) for s in range(sides))
            share = f"{lost} ({100 * lost / pairs:.1f}%)"
            print(
                f"{name:<10} {width}x{height:<2} {rows:>9} {share:>12} "
                f"{statistics.median(times):>9.0f}"
            )


if __name__ == "__main__":
    main()
