"""The match-end chart (issue 28, item 4): one line a side over the hands, level scores
never hiding each other, the whole width used, and ASCII terminals served too."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from client.widgets.chart import chart_legend, score_chart


def game_of(
    history: list[list[int]],
    *,
    ascii_only: bool = False,
    target: int = 7,
    pitchers: list[str] | None = None,
) -> Any:
    """The part of a GameState the chart reads: the view's scores, the side names and
    who pitched each hand (`TableInfo.pitchers`; none from an older host)."""
    last = history[-1]
    winner = max(range(len(last)), key=lambda side: last[side])
    view = SimpleNamespace(
        sides=len(last),
        score_history=history,
        target=target,
        scores=last,
        winner=winner,
        partnership=False,
    )
    seats = [SimpleNamespace(name=name) for name in ("Ann", "Eve", "Bot 2")]
    return SimpleNamespace(
        view=view,
        table=SimpleNamespace(pitchers=pitchers or [], seats=seats),
        ascii_only=ascii_only,
        side_name=lambda side: ("You", "Bot 1", "Bot 2")[side],
    )


def rows(game: Any, width: int = 60, height: int = 8) -> list[str]:
    return score_chart(game, width, height).plain.split("\n")


@pytest.mark.parametrize("ascii_only", [False, True])
def test_sides_level_at_every_hand_show_both_numbers(ascii_only: bool) -> None:
    """Two sides on the same score after each hand: both numbers show at each hand, side
    by side (the old chart wrote one digit over the other)."""
    history = [[1, 1, 0], [2, 2, 0], [2, 2, 1], [4, 4, 1]]
    lines = rows(game_of(history, ascii_only=ascii_only))
    text = "\n".join(lines)
    assert text.count("12") == len(history), text  # at every hand, 1 and 2 together
    assert text.count("3") == len(history), text  # side 3 alone, at its own points


def test_the_lines_join_the_points_in_braille() -> None:
    lines = rows(game_of([[0, 3], [5, 3], [7, 2]]))
    braille = sum(1 for line in lines for ch in line if 0x2800 < ord(ch) <= 0x28FF)
    assert braille > 20  # the lines, not only the points
    ascii_lines = rows(game_of([[0, 3], [5, 3], [7, 2]], ascii_only=True))
    assert all(ord(ch) < 128 for line in ascii_lines for ch in line)
    assert sum(line.count(".") for line in ascii_lines) > 20


def test_a_short_match_fills_the_width() -> None:
    """Three hands at 80 columns: the last hand's numbers are at the right edge, not in
    the first quarter (the old chart gave each hand four columns)."""
    lines = rows(game_of([[2, 0, 1], [3, 2, 1], [7, 2, 1]]), width=80)
    last_seen = max(max(line.rfind("1"), line.rfind("2"), line.rfind("3")) for line in lines)
    assert last_seen >= 80 - 3 - 1, lines  # room kept for three numbers side by side


def test_the_legend_gives_each_sides_final_score_and_the_winner() -> None:
    legend = chart_legend(game_of([[2, 0, 1], [7, 2, -2]])).plain
    assert "You: 7 won" in legend and "Bot 1: 2" in legend and "Bot 2: -2" in legend
    assert "Set back (reversed): hand 2 Bot 2" in legend


def test_the_legend_names_who_pitched_the_hand_not_who_sits_there_now() -> None:
    """Bob pitched hand 2 and was set back, then left; Eve holds his seat at the end. The
    legend names Bob (the host sends who pitched each hand); from an older host, which
    sends none, it falls back to the seat's name now."""
    game = game_of([[2, 0, 1], [7, 2, -2]], pitchers=["Ann", "Bob"])
    assert "Set back (reversed): hand 2 Bob" in chart_legend(game).plain
    older = game_of([[2, 0, 1], [7, 2, -2]], pitchers=[])
    assert "Set back (reversed): hand 2 Bot 2" in chart_legend(older).plain
    # A seat that kept its name is named as the legend names it: "You" for our own.
    ours = game_of([[-2, 0, 1], [7, 2, 1]], pitchers=["Ann", "Bot 2"])
    assert "Set back (reversed): hand 1 You" in chart_legend(ours).plain
