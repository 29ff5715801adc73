"""A character grid to draw on: text and boxes at given cells, clipped at the edges.

The felt places seats, cards and labels by coordinates (a ring of seats does not fit
Textual's box layout), so it draws them here and hands the result to Rich as one
`Text`. A cell holds one grapheme cluster as a terminal lays it out: a character one
cell wide with the marks that draw on it (Telugu's vowel signs and viramas, a
decomposed "č"), which take no cell of their own. Anything wider (an emoji in a name)
is replaced, so one odd name can never shift the rest of the table.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from client.widths import cut

BOX_GLYPHS = {
    "round": "╭╮╰╯─│",
    "heavy": "┏┓┗┛━┃",
    "double": "╔╗╚╝═║",
    "dashed": "╭╮╰╯┄┆",
    "ascii": "++++-|",
    "ascii_heavy": "####=#",
}


@dataclass(frozen=True)
class Rect:
    x: int
    y: int
    w: int
    h: int

    def overlaps(self, other: Rect) -> bool:
        return not (
            self.x + self.w <= other.x
            or other.x + other.w <= self.x
            or self.y + self.h <= other.y
            or other.y + other.h <= self.y
        )

    def inside(self, width: int, height: int) -> bool:
        return (
            self.x >= 0 and self.y >= 0 and self.x + self.w <= width and self.y + self.h <= height
        )


def one_cell(text: str) -> str:
    """`text` with every character that is not exactly one cell wide replaced by '?'
    (marks that take no cell are kept: they draw on the character before them)."""
    return "".join(cells(text))


def cells(text: str) -> list[str]:
    """`text` cut into the clusters a terminal draws one per cell: each character one
    cell wide with the zero-width marks after it; a wider character is '?', and a mark
    with no character before it is dropped. `len(cells(t))` is `cell_len(t)` once the
    wide characters are replaced."""
    if cell_len(text) == len(text):
        return list(text)
    out: list[str] = []
    for ch in text:
        width = cell_len(ch)
        if width == 1:
            out.append(ch)
        elif width == 0:
            if out and out[-1] != "?":
                out[-1] += ch
        else:
            out.append("?")
    return out


class Canvas:
    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = max(0, width), max(0, height)
        self.cells: list[list[tuple[str, Style | str]]] = [
            [(" ", "")] * self.width for _ in range(self.height)
        ]

    def put(self, x: int, y: int, text: str, style: Style | str = "") -> None:
        """Write `text` from cell (x, y) rightwards, cut at the right edge."""
        if not 0 <= y < self.height:
            return
        row = self.cells[y]
        for offset, ch in enumerate(cells(text)):
            col = x + offset
            if 0 <= col < self.width:
                row[col] = (ch, style)

    def put_text(self, x: int, y: int, text: Text) -> None:
        """Write a Rich `Text` (one line) keeping its styles (a cell takes the style of
        its cluster's first character)."""
        base = _style(text.style)
        styles = [base] * len(text.plain)
        for span in text.spans:
            extra = _style(span.style)
            for index in range(max(0, span.start), min(len(styles), span.end)):
                styles[index] = styles[index] + extra
        if not 0 <= y < self.height:
            return
        row, start = self.cells[y], 0
        for offset, cluster in enumerate(cells(text.plain)):
            col = x + offset
            if 0 <= col < self.width:
                row[col] = (cluster, styles[start] if start < len(styles) else base)
            start += 1 if cluster == "?" else len(cluster)

    def box(
        self, rect: Rect, kind: str = "round", style: Style | str = "", title: Text | None = None
    ) -> None:
        """A frame around `rect` (the frame is its outer cells), with an optional title."""
        tl, tr, bl, br, h, v = tuple(BOX_GLYPHS[kind])
        x, y, w, hh = rect.x, rect.y, rect.w, rect.h
        if w < 2 or hh < 2:
            return
        self.put(x, y, tl + h * (w - 2) + tr, style)
        self.put(x, y + hh - 1, bl + h * (w - 2) + br, style)
        for row in range(y + 1, y + hh - 1):
            self.put(x, row, v, style)
            self.put(x + w - 1, row, v, style)
        if title is not None and w > 4:
            self.put_text(x + 1, y, cut(title, w - 2))

    def fill(self, rect: Rect) -> None:
        for row in range(rect.y, rect.y + rect.h):
            self.put(rect.x, row, " " * rect.w)

    def to_text(self) -> Text:
        out = Text(no_wrap=True, overflow="crop", end="")
        for index, row in enumerate(self.cells):
            if index:
                out.append("\n")
            run, run_style = "", None
            for ch, style in row:
                if style is run_style or style == run_style:
                    run += ch
                    continue
                if run:
                    out.append(run, run_style or None)
                run, run_style = ch, style
            if run:
                out.append(run, run_style or None)
        return out


def _style(style: Style | str) -> Style:
    return Style.parse(style) if isinstance(style, str) else style
