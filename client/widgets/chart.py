"""The match as a picture: each side's score after every hand, drawn with characters.

Each side is drawn with its own number (1, 2, ...) as well as its own colour, so the
chart reads without colour; a hand in which a side was set back (its score fell: only
a pitcher loses points) is drawn in reverse video and listed under the chart. The
target is a dotted line. Textual's own Static shows it, so it works in every
terminal, ASCII ones included.

textual-plotext was tried in its place (issue 13) and kept out: in the 8 rows the
match end has at 60x20, its frame, ticks and legend leave about four rows of plot (the
legend box covers the lines); it joins the points with runs of the marker, so one
hand is no longer one mark and a set-back marked with a second scatter is overdrawn
by the lines; the target line is overdrawn too; and it draws its frame with
box-drawing glyphs, which the ASCII mode must not use.
"""

from __future__ import annotations

from rich.text import Text

from client.model import GameState
from client.widgets.canvas import Canvas

SIDE_COLOURS = ("#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7")
"""Okabe and Ito's palette, chosen to stay apart for the common colour-vision types."""


def side_marker(side: int) -> str:
    return str(side + 1)


def setbacks(history: list[list[int]]) -> list[tuple[int, int]]:
    """(hand number, side) for every hand in which a side's score fell."""
    out: list[tuple[int, int]] = []
    before: list[int] | None = None
    for number, row in enumerate(history, start=1):
        previous = before if before is not None else [0] * len(row)
        out.extend((number, side) for side, score in enumerate(row) if score < previous[side])
        before = row
    return out


def score_chart(game: GameState, width: int, height: int) -> Text:
    """A `width` x `height` chart (axis labels included) of the view's score history."""
    view = game.view
    history = [[0] * view.sides, *view.score_history] if view is not None else []
    if view is None or len(history) < 2 or width < 12 or height < 4:
        return Text("")
    low = min(0, *(min(row) for row in history))
    high = max(view.target, *(max(row) for row in history))
    label_w = max(len(str(low)), len(str(high))) + 1
    plot_w = width - label_w - 1
    plot_h = height - 1
    hands = len(history) - 1
    step = max(1, min(4, plot_w // max(1, hands)))
    if hands * step > plot_w:  # many hands: show the latest that fit
        history = history[-(plot_w + 1) :]
        hands, step = len(history) - 1, 1
    canvas = Canvas(width, height)

    def row_of(score: int) -> int:
        return round((high - score) * (plot_h - 1) / max(1, high - low))

    for score in (high, low, 0, view.target):  # the target last: it wins a shared row
        canvas.put(0, row_of(score), str(score).rjust(label_w - 1), "dim")
    axis = "|" if game.ascii_only else "│"
    for row in range(plot_h):
        canvas.put(label_w, row, axis, "dim")
    canvas.put(
        label_w,
        plot_h,
        ("+" if game.ascii_only else "└") + ("-" if game.ascii_only else "─") * plot_w,
        "dim",
    )
    dot = "." if game.ascii_only else "┄"
    canvas.put(label_w + 1, row_of(view.target), dot * plot_w, "dim")
    if low < 0:
        canvas.put(label_w + 1, row_of(0), ("-" if game.ascii_only else "─") * plot_w, "dim")
    fell = set(setbacks(view.score_history))
    offset = len(view.score_history) - hands  # hand number of the first column after 0
    for column, scores in enumerate(history):
        x = label_w + 1 + column * step
        for side, score in enumerate(scores):
            number = column + offset
            style = f"bold {SIDE_COLOURS[side % len(SIDE_COLOURS)]}"
            if (number, side) in fell:
                style += " reverse"
            canvas.put(x, row_of(score), side_marker(side), style)
    return canvas.to_text()


def chart_legend(game: GameState) -> Text:
    view = game.view
    if view is None:
        return Text("")
    legend = Text()
    for side in range(view.sides):
        if legend.plain:
            legend.append("  ")
        colour = SIDE_COLOURS[side % len(SIDE_COLOURS)]
        legend.append(side_marker(side), style=f"bold {colour}").append(" ")
        legend.append(game.side_name(side))
    fell = setbacks(view.score_history)
    if fell:
        legend.append("\nSet back (reversed): ", style="dim")
        legend.append(", ".join(f"hand {n} {game.side_name(s)}" for n, s in fell), style="dim")
    return legend
