"""How the client draws a reaction (pitchnet/reactions.py): a symbol and a few words.

Symbols are one cell wide in any terminal font (no emoji, whose width terminals
disagree on), with plain ASCII stand-ins for `--ascii`. A reaction is shown beside its
sender's seat for `SHOW_SECONDS` and told in the log.
"""

from __future__ import annotations

from rich.cells import cell_len

from pitchnet.i18n import N_, _
from pitchnet.reactions import Reaction

SHOW_SECONDS = 5.0
"""How long a reaction stays beside its sender's seat."""

LABELS: dict[Reaction, tuple[str, str, str, str]] = {
    Reaction.NICE: ("★", "*", N_("nice play"), N_("nice")),
    Reaction.OOPS: ("↯", "!", N_("oops"), N_("oops")),
    Reaction.WELL_BID: ("✓", "+", N_("well bid"), N_("bid!")),
    Reaction.HURRY: ("…", "zz", N_("hurry up"), N_("hurry")),
    Reaction.GG: ("♥", "<3", N_("good game"), N_("gg")),
    Reaction.LAUGH: ("☺", ":D", N_("ha ha"), N_("haha")),
}
"""Each reaction's symbol, its ASCII stand-in, its words and the words where room is
short (a phone's seat), in the picker's order; the words marked with `N_`, translated
when drawn."""


def reaction_label(reaction: Reaction, ascii_only: bool = False, width: int = 0) -> str:
    """What a seat shows: "★ nice play" ("* nice play" in ASCII); within `width`
    columns (if given) "★ nice", never words cut short."""
    symbol, plain, words, short = LABELS[reaction]
    words, short = _(words), _(short)
    mark = plain if ascii_only else symbol
    full = f"{mark} {words}"
    if not width or cell_len(full) <= width:  # cells, as drawn: Telugu has fewer than code points
        return full
    return f"{mark} {short}" if cell_len(f"{mark} {short}") <= width else mark
