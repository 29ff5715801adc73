"""Cells as terminals count them: a spacing combining mark takes one.

Rich (15), and so Textual, counts every combining mark as taking no cell, the spacing
ones too (Unicode category Mc: Telugu's vowel signs ు ూ ృ ౄ and its anusvara ం,
Devanagari's ा ...). Terminals do not: xterm.js (the browser's terminal, with the
Unicode 11 widths textual-serve turns on), VTE (GNOME Terminal) and xterm draw each of
them in a cell of its own, as wcwidth does. Measured Rich's way, a line of Telugu is
laid out narrower than it is drawn, and everything after it on the line is pushed out
of place (a seat's frame, the log's border). `count_spacing_marks` makes Rich count an
Mc character as one cell, the terminals' way; the marks that do take no cell (Mn:
Telugu's ె and its virama ్) stay at none. Layout code then measures with `cell_len`
as everywhere, and a cell of the felt's canvas holds a character with the zero-width
marks after it (client/widgets/canvas.py).
"""

from __future__ import annotations

import functools
import unicodedata
from importlib import import_module

from rich.cells import cell_len
from rich.text import Text


@functools.cache
def count_spacing_marks() -> None:
    """Patch the width table Rich measures with (the Unicode version it chose) once per
    process, and drop the widths it has cached; idempotent."""
    from rich import cells
    from rich._unicode_data import load

    table = load("auto")
    module = import_module(f"rich._unicode_data.unicode{table.unicode_version.replace('.', '-')}")
    widths: list[tuple[int, int, int]] = []
    for start, end, width in table.widths:
        if width != 0:
            widths.append((start, end, width))
            continue
        run = start
        for code in range(start, end + 1):  # leave the spacing marks out: width 1
            if unicodedata.category(chr(code)) == "Mc":
                if run < code:
                    widths.append((run, code - 1, 0))
                run = code + 1
        if run <= end:
            widths.append((run, end, 0))
    vars(module)["cell_table"] = table._replace(widths=widths)
    load.cache_clear()
    cells.get_character_cell_size.cache_clear()
    cells.cached_cell_len.cache_clear()


VIRAMA = 9
"""The canonical combining class of a virama (Telugu's ్): the consonant after it is
drawn joined to the one before (a conjunct), so the two are one letter to cut."""


def clusters(text: str) -> list[str]:
    """`text` as the letters a reader sees (grapheme clusters, as UAX #29's extended
    clusters for the scripts pitchnet speaks): a character with the marks on it, a
    spacing vowel sign (Mc) with the consonant it belongs to, a consonant after a
    virama with the one before. Cutting between two of these never leaves a Telugu
    consonant without its vowel sign nor a sign with a dotted circle for a base."""
    out: list[str] = []
    for ch in text:
        if out:
            last = out[-1][-1]
            mark = unicodedata.category(ch) in ("Mn", "Me", "Mc") or ch in "\u200c\u200d"
            conjunct = unicodedata.combining(last) == VIRAMA and unicodedata.category(ch) == "Lo"
            if mark or conjunct or last == "\u200d":
                out[-1] += ch
                continue
        out.append(ch)
    return out


def cut(text: Text, width: int) -> Text:
    """The longest start of `text` (its styles kept) that fits in `width` cells, cut
    between letters (`clusters`), never inside one: Rich's slicing counts code points,
    which a Telugu line has more of than cells, and its cropping cuts between cells."""
    if cell_len(text.plain) <= width:
        return text
    end = used = 0
    for letter in clusters(text.plain):
        size = cell_len(letter)
        if used + size > width:
            break
        used += size
        end += len(letter)
    return text[:end]


def head(words: str, width: int) -> str:
    """The longest start of `words` that fits in `width` cells, between letters (`cut`)."""
    return cut(Text(words), width).plain


def fit(words: str, width: int) -> str:
    """`words` cut (`head`) or padded with spaces to exactly `width` cells."""
    shown = head(words, width)
    return shown + " " * (width - cell_len(shown))


INDIC = range(0x0900, 0x0E00)
"""Devanagari to Sinhala: the scripts whose clusters the browser's page joins."""


@functools.cache
def joining_marks() -> str:
    """The browser page's share of these widths, as JSON: the spacing marks (Mc, BMP
    ranges) and the viramas, for host/web_pages/play.html, which has xterm.js draw a
    letter and its spacing marks, or a conjunct, as one cluster over the cells they
    take (each drawn alone showed a dotted circle for a base)."""
    import json

    spacing: list[list[int]] = []
    viramas: list[int] = []
    for code in INDIC:  # the page joins within these scripts only (its `indic`)
        ch = chr(code)
        if unicodedata.category(ch) == "Mc":
            if spacing and spacing[-1][1] == code - 1:
                spacing[-1][1] = code
            else:
                spacing.append([code, code])
        if unicodedata.combining(ch) == VIRAMA:
            viramas.append(code)
    return json.dumps({"spacing": spacing, "viramas": viramas}, separators=(",", ":"))
