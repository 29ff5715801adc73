"""How the client draws a reaction (pitchnet/reactions.py): a symbol and a few words.

Symbols are one cell wide in any terminal font (no emoji, whose width terminals
disagree on), with plain ASCII stand-ins for `--ascii`. A reaction is shown beside its
sender's seat for `SHOW_SECONDS` and told in the log.
"""

from __future__ import annotations

from pitchnet.reactions import Reaction

SHOW_SECONDS = 5.0
"""How long a reaction stays beside its sender's seat."""

LABELS: dict[Reaction, tuple[str, str, str, str]] = {
    Reaction.NICE: ("★", "*", "nice play", "nice"),
    Reaction.OOPS: ("↯", "!", "oops", "oops"),
    Reaction.WELL_BID: ("✓", "+", "well bid", "bid!"),
    Reaction.HURRY: ("…", "zz", "hurry up", "hurry"),
    Reaction.GG: ("♥", "<3", "good game", "gg"),
    Reaction.LAUGH: ("☺", ":D", "ha ha", "haha"),
}
"""Each reaction's symbol, its ASCII stand-in, its words and the words where room is
short (a phone's seat), in the picker's order."""


def reaction_label(reaction: Reaction, ascii_only: bool = False, width: int = 0) -> str:
    """What a seat shows: "★ nice play" ("* nice play" in ASCII); within `width`
    columns (if given) "★ nice", never words cut short."""
    symbol, plain, words, short = LABELS[reaction]
    mark = plain if ascii_only else symbol
    full = f"{mark} {words}"
    if not width or len(full) <= width:
        return full
    return f"{mark} {short}" if len(mark) + 1 + len(short) <= width else mark
