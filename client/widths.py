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
