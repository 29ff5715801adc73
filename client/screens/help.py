"""`?`: the keys of the screen underneath, and F2: the rules players ask about.

Each screen may list its keys as `KEYS_HELP` (key, meaning) rows, headings with an empty
meaning; otherwise its shown bindings are listed. The keys that work everywhere
follow, so the help never lists a key that does nothing where the player is.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from client.screens.base import PitchModal
from pitchnet.i18n import N_, _

EVERYWHERE = [
    (N_("Anywhere"), ""),
    ("ctrl+p", N_("commands: leave, last trick, rules, theme, deck colours, screenshot...")),
    ("F2", N_("the rules")),
    ("ctrl+s", N_("save a screenshot (SVG); it says where")),
    ("?", N_("this help")),
    ("ctrl+q", N_("quit")),
]
"""Rows as `KEYS_HELP` has them: headings and meanings marked with `N_`, translated when
shown (`keys_table`); the keys themselves are the keyboard's names."""


def screen_keys(screen: Screen[Any] | None) -> list[tuple[str, str]]:
    """The keys of `screen`: its KEYS_HELP list, or else its bindings that show in the footer."""
    if screen is None:
        return []
    listed = getattr(screen, "KEYS_HELP", None)
    if listed:
        return list(listed)
    rows = []
    for binding in screen.BINDINGS:
        if not isinstance(binding, Binding) or not binding.show:
            continue
        # A key the screen hides now (check_action False: the rotation outside
        # partnership play) is hidden here too, as in the footer.
        if screen.is_attached and screen.check_action(binding.action, ()) is False:
            continue
        rows.append((binding.key.replace("_", " "), binding.description))
    return [(N_("This screen"), ""), *rows] if rows else []


def keys_table(rows: list[tuple[str, str]], ascii_only: bool = False) -> Table:
    """The keys as a two-column grid; with --ascii the arrows are spelt out."""
    grid = Table(box=None, show_header=False, padding=(0, 2, 0, 0))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    for key, meaning in rows:
        if meaning:
            shown = key.replace("← →", _("Left Right")) if ascii_only else key
            grid.add_row(shown, _(meaning))
        else:
            grid.add_row(Text(_(key), style="bold underline"), "")
    return grid


class HelpScreen(PitchModal[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,enter,q", "close", N_("Close")),
    ]

    def __init__(self, under: Screen[Any] | None = None) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        ascii_only = self.app.game.ascii_only
        rows = [*screen_keys(self.under), *EVERYWHERE]
        with VerticalScroll(classes="dialog"):
            yield Static(_("Keys"), classes="dialog-title")
            yield Static(keys_table(rows, ascii_only))

    def action_close(self) -> None:
        self.dismiss()


RULES = [
    (
        N_("Winning"),
        N_(
            "First to the target wins, but only the pitcher can win: a player "
            "who reaches the target in a hand they did not pitch goes on playing. So the "
            "winner may have fewer points than someone else."
        ),
    ),
    (
        N_("Bidding"),
        N_(
            "Each player bids once, 1 to 4, or passes; a bid must beat the high "
            "bid. 4 is a pitch and ends the bidding. The dealer bids last, may take the bid by "
            "equalling it, and must bid at least 2 if everyone else passed."
        ),
    ),
    (N_("Trump"), N_("The pitcher leads the first card; its suit is trump for the hand.")),
    (
        N_("Playing"),
        N_(
            "Follow the suit led if you can, or play a trump: trumping is always "
            "allowed, even when you could follow. When trump is led you must play trump if you "
            "have one. Otherwise play anything."
        ),
    ),
    (
        N_("Points"),
        N_(
            "High (highest trump in play), Low (lowest trump in play, to whoever "
            "captures it), Jack (of trump, if dealt) and Game (most card points in tricks: "
            "ten 10, ace 4, king 3, queen 2, jack 1; a tie gives nobody Game)."
        ),
    ),
    (
        N_("Set back"),
        N_(
            "A pitcher who makes fewer points than the bid loses the bid from "
            "their score, which can go below zero."
        ),
    ),
]


def house_rules(wire: Any) -> list[str]:
    """The table's house rules as phrases (none for the book's rules, or an unreadable map)."""
    from pitchnet.house_rules import HouseRules, RulesConfigError

    try:
        return HouseRules.from_wire(wire).describe() if wire else []
    except (RulesConfigError, TypeError, ValueError):
        return []


def rules_body(wire: Any = None) -> RenderableType:
    """The rule book's answers; where the table's house rules change one, they say so."""
    house = house_rules(wire)
    grid = Table(box=None, show_header=False, padding=(0, 2, 0, 0))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    for title, text in RULES:
        grid.add_row(_(title), _(text))
    parts: list[RenderableType] = [grid, Text("")]
    if house:
        parts.append(Text(_("This table's house rules (they win over the above)"), style="bold"))
        parts += [Text(f"- {phrase}") for phrase in house]
    elif wire is None:
        parts.append(
            Text(_("The table's house rules show here once the match starts."), style="dim")
        )
    else:
        parts.append(Text(_("This table plays the rules above, with no house rules."), style="dim"))
    return Group(*parts)


class RulesScreen(HelpScreen):
    """F2 (or "Rules" in the command palette): what players ask about the rules."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f2,enter,q", "close", N_("Close")),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog"):
            yield Static(_("Rules"), classes="dialog-title")
            # In the lobby there is no view yet: the table's advertised rules say the same.
            game = self.app.game
            wire = game.view.rules if game.view is not None else None
            if wire is None and game.table is not None:
                wire = game.table.rules
            yield Static(rules_body(wire))
