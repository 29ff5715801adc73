"""Untrusted text made safe to show: one rule for names, table names and sentences.

Anything that crossed the network (a player's name, a TXT record, an error
sentence) passes through `printable` before it is stored or drawn. Control, format,
private-use and unassigned characters (Unicode category C: ESC, BEL, bidi overrides,
zero-width characters) are dropped, and so are the characters that draw nothing
although Unicode calls them letters or symbols (the Hangul fillers such as U+3164,
the braille blank...); every kind of space (tabs, newlines, U+3000...) becomes one
plain space; combining marks with nothing before them to mark are dropped. Such text
cannot move a terminal's cursor, recolour it, reorder a line or be invisible.

`player_name` adds what a person may not call themselves: the words the host and the
client use for seats that are not a person's (bots, stand-ins, empty seats), also when
spelt with look-alike letters: a name is compared by its Unicode skeleton (UTS #39,
`skeleton`), so "(yоu)" with a Cyrillic "о" is "(you)", and the host numbers a name
whose skeleton is another player's ("Cаrol" beside "Carol" becomes "Cаrol 2").
"""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path

from pitchnet.protocol import MAX_NAME

INVISIBLE = frozenset(
    "\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0\u034f\u180e\u2028\u2029"
    "\u061c\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"
)
"""Characters that draw nothing whatever their category: Hangul fillers (U+115F, U+1160,
U+3164, U+FFA0), Khmer inherent vowels, the braille blank, the combining grapheme
joiner, the Mongolian vowel separator, and zero-width characters (also category Cf)."""

RESERVED = re.compile(
    r"^\W*bots?\b|\(\s*bot\s*\)|\(\s*you\s*\)|waiting for|empty\s*seat|^\W*empty\W*$",
    re.IGNORECASE,
)
"""Wordings that only the host and the client may put on a seat: "Bot 1", "Ann (bot)",
"(you)", "waiting for a player...", "empty seat"."""


CONFUSABLES = Path(__file__).with_name("confusables.txt")
"""Unicode's confusables (UTS #39 data), as code point -> the code points it looks like."""


@functools.cache
def _prototypes() -> dict[int, str]:
    table: dict[int, str] = {}
    for line in CONFUSABLES.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            source, target = line.split(";")
            table[int(source, 16)] = "".join(chr(int(c, 16)) for c in target.split())
    return table


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of `text`: two strings that look alike have the same one
    ("раура" in Cyrillic and "paypa" in Latin). Decomposed, each character replaced by
    its prototype, decomposed again; then case-folded, as names are told apart here."""
    decomposed = unicodedata.normalize("NFD", text)
    mapped = "".join(_prototypes().get(ord(ch), ch) for ch in decomposed)
    return unicodedata.normalize("NFD", mapped).casefold()


def printable(value: object, limit: int | None = None) -> str:
    """The printable part of `value`, single-spaced, at most `limit` characters."""
    text = value if isinstance(value, str) else str(value)
    kept: list[str] = []
    for ch in text:
        if ch in INVISIBLE:
            continue
        category = unicodedata.category(ch)
        if ch.isspace() or category[0] == "Z":
            kept.append(" ")
        elif category[0] == "C":
            continue
        elif category[0] == "M" and (not kept or kept[-1] == " "):
            continue  # a mark with no base would draw on whatever is beside it
        else:
            kept.append(ch)
    return " ".join("".join(kept).split())[:limit].strip()


def display_name(raw: object, fallback: str) -> str:
    """A display name: printable, at most MAX_NAME characters, never empty."""
    return printable(raw, MAX_NAME) or fallback


def skeletons(text: str) -> frozenset[str]:
    """The skeletons of `text` as typed, lower-cased and upper-cased: look-alike tables
    map some letters of one case only (Cyrillic "т" to a small capital T, "Т" to "T")."""
    return frozenset(skeleton(variant) for variant in (text, text.lower(), text.upper()))


def _any_of(word: str) -> str:
    return "(?:" + "|".join(sorted(map(re.escape, skeletons(word)))) + ")"


@functools.cache
def _reserved_skeletons() -> re.Pattern[str]:
    """RESERVED, each word as any of its skeletons: matched against a name's."""
    bot, you, empty = _any_of("bot"), _any_of("you"), _any_of("empty")
    return re.compile(
        rf"^\W*{_any_of('bots')}\b|^\W*{bot}\b|\(\s*{bot}\s*\)|\(\s*{you}\s*\)"
        rf"|{_any_of('waiting')}\s*{_any_of('for')}|{empty}\s*{_any_of('seat')}|^\W*{empty}\W*$"
    )


def reserved(name: str) -> bool:
    """`name` uses, or imitates with look-alike letters, a wording reserved for seats
    that are not a person's."""
    pattern = _reserved_skeletons()
    return bool(RESERVED.search(name) or any(pattern.search(k) for k in skeletons(name)))


def look_alike(a: str, b: str) -> bool:
    """Two names a player could not tell apart on screen (a skeleton in common)."""
    return not skeletons(a).isdisjoint(skeletons(b))


def player_name(raw: object, fallback: str) -> str:
    """A name a person asked for: as `display_name`, and `fallback` if it is empty or
    uses (or imitates) a wording reserved for seats that are not a person's."""
    name = printable(raw, MAX_NAME)
    if not name or reserved(name):
        return fallback
    return name
