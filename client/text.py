"""Turning untrusted strings and cards into Rich `Text`, never markup.

Every string that came over the network (player names, table names, error
sentences, TXT records) passes through `plain()` before it reaches a widget: control
and escape characters are dropped and the result is a `Text` object, which Rich and
Textual never parse as markup. A name like ``[red]x[/red]`` therefore shows as typed.
"""

from __future__ import annotations

from string import Formatter

from rich.text import Text

from pitchnet.cards import Card, CardParseError, Suit
from pitchnet.i18n import _, number
from pitchnet.text import printable

DECKS: dict[tuple[str, bool], dict[Suit, str]] = {
    # (deck, dark background): the style of each suit. Spades take the theme's own text
    # colour. The four-colour deck's hues (vermilion, sky blue, yellow / dark: green-blue)
    # were chosen with tests/colour_vision.py, which simulates deuteranopia and
    # protanopia (Machado 2009) and checks every pair of suits stays apart.
    ("four", True): {
        Suit.SPADES: "bold",
        Suit.HEARTS: "bold #ff5f3f",
        Suit.DIAMONDS: "bold #56b4e9",
        Suit.CLUBS: "bold #f0e442",
    },
    ("four", False): {
        Suit.SPADES: "bold",
        Suit.HEARTS: "bold #d55e00",
        Suit.DIAMONDS: "bold #0060c0",
        Suit.CLUBS: "bold #007a5a",
    },
    ("two", True): {
        Suit.SPADES: "bold",
        Suit.HEARTS: "bold #ff5f5f",
        Suit.DIAMONDS: "bold #ff5f5f",
        Suit.CLUBS: "bold",
    },
    ("two", False): {
        Suit.SPADES: "bold",
        Suit.HEARTS: "bold #c00000",
        Suit.DIAMONDS: "bold #c00000",
        Suit.CLUBS: "bold",
    },
}
"""Suits differ by symbol (or letter) always; by colour as well in the four-colour deck."""
JOKER_STYLE = "bold #d787ff"
"""The joker (five-point Pitch) has no suit: a colour of its own."""

SUIT_STYLES = dict(DECKS["four", True])
"""The deck in use, changed in place by `use_deck` (the app has one deck at a time)."""


def use_deck(deck: str, dark: bool) -> None:
    """Draw cards from now on with `deck` ("four" or "two") for a dark or light theme."""
    SUIT_STYLES.update(DECKS.get((deck, dark), DECKS["four", True]))


def plain(value: object, style: str = "", limit: int = 64) -> Text:
    """An untrusted value as plain `Text` (never interpreted as markup)."""
    return Text(printable(value, limit), style=style)


def suit_text(suit: Suit | str | None, ascii_only: bool = False) -> Text:
    """A suit as its coloured symbol (or letter with --ascii); '-' when unknown."""
    if suit is None:
        return Text("-")
    try:
        parsed = suit if isinstance(suit, Suit) else Suit.parse(suit)
    except CardParseError:
        return Text("?")
    glyph = parsed.value if ascii_only else parsed.symbol
    return Text(glyph, style=SUIT_STYLES[parsed])


def card_text(card: Card | str, ascii_only: bool = False, *, dim: bool = False) -> Text:
    """A card as rank letter plus coloured suit: "A♥" (or "AH")."""
    try:
        parsed = card if isinstance(card, Card) else Card.parse(card)
    except CardParseError:
        return Text("??")
    style = SUIT_STYLES[parsed.suit] if parsed.suit is not None else JOKER_STYLE
    text = Text(parsed.pretty(ascii_only), style=style)
    if dim:
        text.stylize("dim")
    return text


def signed(number: int) -> str:
    """A score change with its sign: "+2", "-3", "0"."""
    return f"{number:+d}" if number else "0"


def counted(number: int, noun: str, plural: str = "") -> str:
    """ "1 seat", "2 seats": a count in words a person reads, never "2 seat(s)".
    English only: a translated count is `ngettext` with the whole phrase."""
    return f"{number} {noun if number == 1 else (plural or noun + 's')}"


def styled(template: str, style: str = "", **parts: Text | str | int) -> Text:
    """A translated `template` as `Text`, its `{placeholders}` filled from `parts`: a
    `Text` part keeps its own style (a coloured card, a bold name), a number is written
    as the language in use writes it, a string is taken as it is. A template a translator
    broke (an unknown or unbalanced brace) is shown as it is rather than raising."""
    out = Text(style=style)
    try:
        pieces = list(Formatter().parse(template))
    except ValueError:
        return out.append(template)
    for literal, name, _spec, _conversion in pieces:
        out.append(literal)
        if name is None:
            continue
        value = parts.get(name)
        if isinstance(value, Text):
            out.append_text(value)
        elif isinstance(value, int) and not isinstance(value, bool):
            out.append(number(value))
        elif isinstance(value, str):
            out.append(value)
        else:
            out.append("{" + name + "}")
    return out


def duration(seconds: float) -> str:
    """A wait as a clock reads it: "45 s", "1 min 05 s" (in the language in use)."""
    whole = max(0, int(seconds))
    if whole < 60:
        return _("{seconds} s", seconds=whole)
    return _("{minutes} min {seconds} s", minutes=whole // 60, seconds=str(whole % 60).zfill(2))


def level_name(level: str) -> str:
    """A bot level (an identifier on the wire: "easy", "normal", "hard") in words; one
    this client does not know (a newer host's) as the host named it, made printable."""
    names = {"easy": _("easy"), "normal": _("normal"), "hard": _("hard"), "random": _("random")}
    return names.get(level) or printable(level, 16)
