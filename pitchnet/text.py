"""Untrusted text made safe to show: one rule for names, table names and sentences.

Anything that crossed the network (a player's name, a TXT record, an error
sentence) passes through `printable` before it is stored or drawn. Control, format,
private-use and unassigned characters (Unicode category C: ESC, BEL, bidi overrides)
are dropped and runs of white space (tabs and newlines included) become one space,
so such text cannot move a terminal's cursor, recolour it or reorder a line.
"""

from __future__ import annotations

import unicodedata

from pitchnet.protocol import MAX_NAME


def printable(value: object, limit: int | None = None) -> str:
    """The printable part of `value`, single-spaced, at most `limit` characters."""
    text = value if isinstance(value, str) else str(value)
    kept = "".join(ch for ch in text if ch.isspace() or unicodedata.category(ch)[0] != "C")
    return " ".join(kept.split())[:limit].strip()


def display_name(raw: object, fallback: str) -> str:
    """A display name: printable, at most MAX_NAME characters, never empty."""
    return printable(raw, MAX_NAME) or fallback
