"""The match as a picture: each side's score after every hand, a line in its colour.

Each side's line is drawn with braille dots (two by four to a cell, so a line climbs
smoothly over a few rows), and every hand's point carries the side's own number (1, 2,
...) so the chart reads without colour. Sides level at a hand show their numbers side
by side ("14"), never one on top of the other: the old chart of bare digits hid a
side under another whenever their scores were equal, which at the start of a match is
always. A hand in which a side was set back (its score fell: only a pitcher loses
points) has that number in reverse video and is listed under the chart, with the
final scores and the winner. The target is a dotted line. The chart fills the width
it is given (the old one used four columns a hand, a quarter of an 80-column screen
for a short match). ASCII terminals get the same chart with '.' for the lines.

textual-plotext was tried in its place (issue 13, and again for issue 28: see
BENCHMARKS.md "Match-end chart") and kept out: in the 8 rows the match end has at
60x20, its frame, ticks and legend leave about four rows of plot (the legend box covers
the lines); a set-back marked with a second scatter is overdrawn by the lines; level
scores hide each other as in the old chart; the target line is overdrawn too; and it
draws its frame with box-drawing glyphs, which the ASCII mode must not use.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.widget import Widget

from client.model import GameState
from client.widgets.canvas import Canvas
from pitchnet.i18n import _, number

SIDE_COLOURS = ("#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7")
"""Okabe and Ito's palette, chosen to stay apart for the common colour-vision types."""

BRAILLE_BITS = ((0x01, 0x02, 0x04, 0x40), (0x08, 0x10, 0x20, 0x80))
"""The bit of each dot of a braille cell, by dot column (0, 1) and dot row (0-3)."""


def side_marker(side: int) -> str:
    return str(side + 1)


def setbacks(history: list[list[int]]) -> list[tuple[int, int]]:
    """(hand number, side) for every hand in which a side's score fell."""
    out: list[tuple[int, int]] = []
    before: list[int] | None = None
    for hand, row in enumerate(history, start=1):
        previous = before if before is not None else [0] * len(row)
        out.extend((hand, side) for side, score in enumerate(row) if score < previous[side])
        before = row
    return out


class DotGrid:
    """Lines on a grid of dots: braille (2x4 dots a cell), or one dot a cell in ASCII.
    A cell takes the colour of the last side whose line crossed it."""

    def __init__(self, width: int, height: int, *, ascii_only: bool) -> None:
        self.ascii_only = ascii_only
        self.across, self.down = (1, 1) if ascii_only else (2, 4)
        self.width, self.height = width, height
        self.bits: dict[tuple[int, int], int] = {}
        self.owner: dict[tuple[int, int], int] = {}

    @property
    def dots_wide(self) -> int:
        return self.width * self.across

    @property
    def dots_high(self) -> int:
        return self.height * self.down

    def dot(self, x: int, y: int, side: int) -> None:
        if not (0 <= x < self.dots_wide and 0 <= y < self.dots_high):
            return
        cell = (x // self.across, y // self.down)
        bit = 1 if self.ascii_only else BRAILLE_BITS[x % 2][y % 4]
        self.bits[cell] = self.bits.get(cell, 0) | bit
        self.owner[cell] = side

    def line(self, x0: int, y0: int, x1: int, y1: int, side: int) -> None:
        """Bresenham's line from (x0, y0) to (x1, y1), both ends included."""
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
        error = dx + dy
        while True:
            self.dot(x0, y0, side)
            if x0 == x1 and y0 == y1:
                return
            twice = 2 * error
            if twice >= dy:
                error += dy
                x0 += sx
            if twice <= dx:
                error += dx
                y0 += sy

    def draw_on(self, canvas: Canvas, left: int, top: int) -> None:
        for (cx, cy), bits in self.bits.items():
            glyph = "." if self.ascii_only else chr(0x2800 + bits)
            colour = SIDE_COLOURS[self.owner[(cx, cy)] % len(SIDE_COLOURS)]
            canvas.put(left + cx, top + cy, glyph, colour)


def score_chart(game: GameState, width: int, height: int) -> Text:
    """A `width` x `height` chart (axis labels included) of the view's score history."""
    view = game.view
    history = [[0] * view.sides, *view.score_history] if view is not None else []
    if view is None or len(history) < 2 or width < 12 or height < 4:
        return Text("")
    sides = view.sides
    low = min(0, *(min(row) for row in history))
    high = max(view.target, *(max(row) for row in history))
    label_w = max(len(str(low)), len(str(high))) + 1
    plot_left = label_w + 1
    plot_w = width - plot_left
    plot_h = height - 1
    # The last hand's numbers need `sides` cells at the right: the lines end before them.
    line_w = max(1, plot_w - sides)
    hands = len(history) - 1
    if hands > line_w:  # more hands than columns: show the latest that fit
        history = history[-(line_w + 1) :]
        hands = len(history) - 1
    offset = len(view.score_history) - hands  # hand number of the first column after 0
    grid = DotGrid(line_w, plot_h, ascii_only=game.ascii_only)
    canvas = Canvas(width, height)

    def dot_x(column: int) -> int:
        return round(column * (grid.dots_wide - 1) / max(1, hands))

    def dot_y(score: int) -> int:
        return round((high - score) * (grid.dots_high - 1) / max(1, high - low))

    def row_of(score: int) -> int:
        return dot_y(score) // grid.down

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
    canvas.put(plot_left, row_of(view.target), dot * plot_w, "dim")
    if low < 0:
        canvas.put(plot_left, row_of(0), ("-" if game.ascii_only else "─") * plot_w, "dim")
    for side in range(sides):
        for column in range(hands):
            before, after = history[column][side], history[column + 1][side]
            grid.line(dot_x(column), dot_y(before), dot_x(column + 1), dot_y(after), side)
    grid.draw_on(canvas, plot_left, 0)
    _number_the_points(canvas, game, history, offset, plot_left, dot_x, row_of, grid.across)
    return canvas.to_text()


def _number_the_points(
    canvas: Canvas,
    game: GameState,
    history: list[list[int]],
    offset: int,
    left: int,
    dot_x: Callable[[int], int],
    row_of: Callable[[int], int],
    across: int,
) -> None:
    """Each side's number at each hand's point, sides level at a hand side by side. Where
    hands are too close for that, only the last hand's points are numbered."""
    view = game.view
    assert view is not None
    sides, hands = view.sides, len(history) - 1
    fell = set(setbacks(view.score_history))
    spacing = (dot_x(1) - dot_x(0)) // across if hands else 0
    every_hand = spacing > sides
    for column in range(1, hands + 1) if every_hand else (hands,):
        placed: dict[int, int] = {}  # row: numbers already written there at this hand
        for side in sorted(range(sides), key=lambda s: history[column][s], reverse=True):
            row = row_of(history[column][side])
            x = left + dot_x(column) // across + placed.get(row, 0)
            placed[row] = placed.get(row, 0) + 1
            style = f"bold {SIDE_COLOURS[side % len(SIDE_COLOURS)]}"
            if (column + offset, side) in fell:
                style += " reverse"
            canvas.put(x, row, side_marker(side), style)


def chart_legend(game: GameState) -> Text:
    view = game.view
    if view is None:
        return Text("")
    legend = Text()
    for side in range(view.sides):
        if legend.plain:
            legend.append("  ")
        colour = SIDE_COLOURS[side % len(SIDE_COLOURS)]
        winner = side == view.winner
        legend.append(side_marker(side), style=f"bold {colour}").append(" ")
        legend.append(game.side_name(side), style="bold" if winner else "")
        legend.append(f": {number(view.scores[side])}", style=f"bold {colour}")
        if winner:
            legend.append(" " + _("won"), style="bold green")
    fell = setbacks(view.score_history)
    if fell:
        legend.append("\n" + _("Set back (reversed): "), style="dim")
        legend.append(
            ", ".join(_("hand {n} {name}", n=n, name=_set_back(game, n, s)) for n, s in fell),
            style="dim",
        )
    return legend


def _set_back(game: GameState, hand: int, side: int) -> str:
    """Who was set back at `hand`: the pitcher by the name their seat had then (a seat can
    change hands during a match); the side as it is named now ("You" too, as in the
    legend above) while that seat still has that name, or from an older host."""
    table = game.table
    pitchers = table.pitchers if table is not None else []
    then = pitchers[hand - 1] if 0 < hand <= len(pitchers) else ""
    view = game.view
    same = (
        table is not None
        and view is not None
        and not view.partnership
        and 0 <= side < len(table.seats)
        and table.seats[side].name == then
    )
    return then if then and not same else game.side_name(side)


class ScoreChart(Widget):
    """The score-after-every-hand chart, drawn to the width it is given (at a hand's end
    and at the match's end alike)."""

    DEFAULT_CSS = """
    ScoreChart { height: 8; width: 1fr; margin-top: 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.game: GameState | None = None

    def show(self, game: GameState) -> None:
        self.game = game
        self.refresh()

    def render(self) -> Text:
        if self.game is None:
            return Text("")
        return score_chart(self.game, self.size.width, self.size.height)
