"""The setup of a table hosted here: name, players, partnership, target, password (and
the house-rules preset and bot level, where this pitchnet has them).

With "serve to phones", the table is also served to browsers on the LAN
(host/web.py, as `pitchnet host --web PORT`), and the hosting window shows the
address and its QR code.

`pitchnet play` shows it when no table on the network has a seat to offer, and "host a
table here" in the finder does too. Every field has a sensible default, so Enter on
any field accepts them all; Esc goes back to the finder. It dismisses with the
`HostConfig` fields it chose (or None), and never deals a hand: the table opens in its
lobby and its creator starts it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from rich.cells import cell_len
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Select, Static

from client.discovery import FoundTable
from client.hosting import TableSetup
from client.screens.base import translate_bindings
from client.text import level_name, styled
from pitchnet.bots import LEVELS
from pitchnet.house_rules import PRESETS, resolve
from pitchnet.i18n import LANGUAGES, N_, _, current, ngettext
from pitchnet.protocol import MAX_NAME
from pitchnet.rules import DEFAULT_RULES, MAX_PLAYERS, MIN_PLAYERS, TARGETS
from pitchnet.text import printable

SHORT_BELOW = 26
"""Fewer rows than this and the form scrolls (the field with the focus always shows),
the help paragraph goes and the buttons take one row, saying their keys: at 40x15 the
way to open the table stays on screen (client.tcss: `SetupScreen.-short`)."""

WEB_PORT = 8080
"""The web join's port offered by default (0: any free port, as `pitchnet host --web 0`)."""


class Tick(Checkbox, inherit_bindings=False):
    """A checkbox that Space toggles (Enter opens the table, as the dialog says), and
    whose ticked and unticked states differ in shape, not only colour: "X" or blank
    (in --ascii, "[X]" or "[ ]")."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_button", N_("Toggle"), show=False),
    ]

    def on_mount(self) -> None:
        if self.app.has_class("-ascii"):
            self.BUTTON_LEFT, self.BUTTON_RIGHT = "[", "]"
        self._draw_tick(self.value)

    def _watch_value(self, value: bool) -> None:
        self._draw_tick(value)

    def _draw_tick(self, value: bool) -> None:
        self.BUTTON_INNER = "X" if value else " "
        self.refresh()


class Choice(Select[Any], inherit_bindings=False):
    """A list field that opens with Space or the arrows; Enter opens the table. Always
    one of its options (never blank) and one row tall, as every field of the form."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,space,up", "show_overlay", N_("Show menu"), show=False),
    ]

    def __init__(self, options: Iterable[tuple[str, Any]], value: Any, **kwargs: Any) -> None:
        super().__init__(options, value=value, allow_blank=False, compact=True, **kwargs)


LABEL_WIDTH = 16
"""The narrowest labels' column (English's)."""


@dataclass(frozen=True)
class JoinInstead:
    """The setup screen's answer when its player took the table it offered instead."""

    table: FoundTable


LOOK_AGAIN: Literal["look again"] = "look again"
"""The setup screen's answer when it gave way, untouched, to a table found a moment late."""

SetupAnswer = TableSetup | JoinInstead | Literal["look again"] | None
"""A table to open, one to join instead, look again, or None (Esc: back to the finder)."""


class SetupScreen(ModalScreen[SetupAnswer]):
    """A short form for a new table; Enter accepts, Esc cancels."""

    AUTO_FOCUS = "#setup-name"
    """The name first, as `on_mount` says too: the language list above it comes first on
    the screen, and a focus that moved from it to the name would count as a touch."""

    DEFAULT_CSS = """
    SetupScreen .setup-title { height: 2; }
    SetupScreen .setup-title .dialog-title { width: 1fr; }
    SetupScreen .setup-title Select { width: 14; }
    SetupScreen .setup-row { height: 1; }
    SetupScreen .setup-row Input, SetupScreen .setup-row Select { width: 1fr; }
    SetupScreen .setup-row Input.setup-port { width: 7; margin-left: 1; }
    SetupScreen .setup-row Tick { width: 1fr; }
    SetupScreen #setup-form { height: auto; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", N_("Back to the finder")),
        # From any field; ctrl+s is the screenshot key.
        Binding("ctrl+o", "accept", N_("Open the table"), show=False),
        # Enter from a tick box or a list (which leave it to the screen): open the table.
        Binding("enter", "accept", N_("Open the table"), show=False),
        # Not a letter: the table's name is typed here. Ctrl+T: take that table instead.
        Binding("ctrl+t", "join_offered", N_("Join the table that opened"), show=False),
    ]

    def __init__(self, player_name: str, *, note: str = "") -> None:
        super().__init__()
        translate_bindings(self)
        self.default_name = printable(_("{name}'s table", name=player_name), MAX_NAME)
        self.note = note
        self.presets = list(PRESETS)
        self.levels = list(LEVELS)

    def compose(self) -> ComposeResult:
        words = {
            "name": _("Table name"),
            "players": _("Players ({least}-{most})", least=MIN_PLAYERS, most=MAX_PLAYERS),
            "partnership": _("Partnership"),
            "target": _("Target"),
            "password": _("Password"),
            "rules": _("House rules"),
            "level": _("Bots play"),
            "reactions": _("Reactions"),
            "web": _("Browsers"),
        }
        # The labels' column: as wide as the widest label in the language in use and a
        # space (Tagalog's "Mga patakaran ng mesa" is 21 cells), 16 at the least.
        width = max(LABEL_WIDTH, *(cell_len(said) + 1 for said in words.values()))

        def label(key: str) -> Static:
            shown = Static(words[key], classes="setup-label")
            shown.styles.width = width
            return shown

        with Vertical(classes="dialog setup", id="setup"):
            # The language on the title's line, at its right: the form is no taller.
            with Horizontal(classes="setup-title"):
                yield Static(Text(_("Host a table here"), style="bold"), classes="dialog-title")
                yield Choice(
                    [(name, code) for code, name in LANGUAGES.items()],
                    value=current(),
                    id="setup-lang",
                    tooltip=_("Language"),
                )
            with VerticalScroll(id="setup-form", can_focus=False):
                if self.note:
                    yield Static(self.note, id="setup-note", markup=False)
                with Horizontal(classes="setup-row"):
                    yield label("name")
                    yield Input(
                        value=self.default_name, id="setup-name", max_length=24, compact=True
                    )
                with Horizontal(classes="setup-row"):
                    yield label("players")
                    yield Input(
                        value="4", id="setup-players", max_length=1, type="integer", compact=True
                    )
                with Horizontal(classes="setup-row"):
                    yield label("partnership")
                    yield Tick(_("two teams (4 players)"), id="setup-partnership", compact=True)
                with Horizontal(classes="setup-row"):
                    yield label("target")
                    yield Choice(
                        [(ngettext("{n} point", "{n} points", t), t) for t in TARGETS],
                        value=TARGETS[0],
                        id="setup-target",
                    )
                with Horizontal(classes="setup-row"):
                    yield label("password")
                    yield Input(
                        placeholder=_("none"), id="setup-password", password=True, compact=True
                    )
                with Horizontal(classes="setup-row"):
                    yield label("rules")
                    yield Choice(
                        [(p, p) for p in self.presets],
                        value=self.presets[0],
                        id="setup-preset",
                    )
                with Horizontal(classes="setup-row"):
                    yield label("level")
                    default = "normal" if "normal" in self.levels else self.levels[0]
                    yield Choice(
                        [(level_name(level), level) for level in self.levels],
                        value=default,
                        id="setup-level",
                    )
                with Horizontal(classes="setup-row"):
                    yield label("reactions")
                    yield Tick(
                        _("players may react (r)"), value=True, id="setup-reactions", compact=True
                    )
                with Horizontal(classes="setup-row"):
                    yield label("web")
                    yield Tick(_("serve to phones on port"), id="setup-web", compact=True)
                    yield Input(
                        value=str(WEB_PORT),
                        id="setup-web-port",
                        max_length=5,
                        type="integer",
                        compact=True,
                        classes="setup-port",
                    )
            yield Static("", id="setup-offer", markup=False)
            yield Static("", id="setup-error", markup=False)
            yield Static(
                _(
                    "Enter opens the table with these settings (Space ticks a box or opens a "
                    "list); you wait in its lobby and start the match when you like (bots "
                    "take the empty seats).  Esc: back."
                ),
                classes="setup-help",
            )
            short = self.app.size.height < SHORT_BELOW
            with Horizontal(classes="buttons"):
                yield Button(
                    _("Open (Enter)") if short else _("Open the table (Enter)"),
                    id="setup-open",
                    variant="primary",
                    compact=short,
                )
                yield Button(_("Back (Esc)"), id="setup-back", compact=short)

    @on(Select.Changed, "#setup-lang")
    async def _language_chosen(self, event: Select.Changed) -> None:
        """Speak the language chosen (the whole client, remembered), and say this form
        again in it, with what was typed and chosen so far kept."""
        lang = str(event.value)
        if lang == current():
            return
        kept = self._values()
        self.app.set_language(lang)  # type: ignore[attr-defined]  # PitchApp's
        translate_bindings(self)
        await self.recompose()
        self._fit(self.app.size.height)
        self._show_offer()
        for ident, value in kept.items():
            for widget in self.query(f"#{ident}"):
                widget.value = value  # type: ignore[attr-defined]  # Input/Select/Checkbox
        self.query_one("#setup-lang", Select).focus()

    def _values(self) -> dict[str, Any]:
        """Every field's value by its id (what a relabelled form puts back)."""
        return {
            widget.id: widget.value  # type: ignore[attr-defined]
            for widget in self.query("Input, Select, Checkbox")
            if widget.id
        }

    @on(Select.Changed, "#setup-preset")
    def _preset_chosen(self, event: Select.Changed) -> None:
        """A preset with a target of its own (joker: 10) sets the target field to it."""
        preset = PRESETS.get(str(event.value))
        if preset is not None and preset.target is not None:
            self.query_one("#setup-target", Select).value = preset.target

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.height)

    def _fit(self, height: int) -> None:
        """Short: the form scrolls within what the border, the title, the offer or error
        line and the one-row buttons leave (5 rows), so nothing below it is pushed off."""
        short = height < SHORT_BELOW
        self.set_class(short, "-short")
        form = self.query_one("#setup-form")
        form.styles.max_height = max(3, height - 5) if short else None

    def on_mount(self) -> None:
        self._fit(self.app.size.height)
        self.query_one("#setup-name", Input).focus()
        self._show_offer()
        self.call_after_refresh(self._watch_touches)

    offered: FoundTable | None = None
    """A table that opened on the network while this screen showed (the finder keeps
    looking): Ctrl+T joins it instead of hosting a second one beside it."""

    touched = False
    """Set by the first key pressed here. Until then, a table `play` would have taken had
    it been seen a moment sooner is taken instead (the finder dismisses this screen)."""

    _watching = False

    def _watch_touches(self) -> None:
        self._watching = True  # after the values and focus set up on mount

    def on_key(self, event: events.Key) -> None:
        self.touched = True

    @on(Input.Changed)
    @on(Checkbox.Changed)
    @on(Select.Changed)
    @on(events.DescendantFocus)
    def _changed_by_hand(self, event: object) -> None:
        """A printable key in a box stops there (never reaching `on_key`): what it
        changes, or a focus moved, says the person is setting up. The language list
        saying its own value (as a list does once mounted) is not a change."""
        language = isinstance(event, Select.Changed) and event.select.id == "setup-lang"
        if language and isinstance(event, Select.Changed) and event.value == current():
            return
        if self._watching:
            self.touched = True

    def offer(self, found: FoundTable) -> None:
        """Say that `found` (a table with a seat for us) just appeared: Ctrl+T joins it."""
        if self.offered is not None and self.offered.table_id == found.table_id:
            return
        self.offered = found
        if self.is_mounted:
            self._show_offer()  # else on_mount shows it

    def _show_offer(self) -> None:
        found = self.offered
        line = self.query_one("#setup-offer", Static)
        line.display = found is not None
        if found is not None:
            line.update(
                styled(
                    _(
                        "{table} just opened on the network: Ctrl+T joins it (Enter still "
                        "opens yours)."
                    ),
                    "yellow",
                    table=Text(printable(found.name, MAX_NAME), style="bold"),
                )
            )

    def give_way(self) -> None:
        """Close untouched, for `play` to take a table found a moment late."""
        self._answer(LOOK_AGAIN)

    def action_join_offered(self) -> None:
        if self.offered is not None:
            self._answer(JoinInstead(self.offered))

    def choices(self) -> TableSetup | None:
        """The table chosen, or None (with the reason shown) if a field is wrong."""
        error = self.query_one("#setup-error", Static)
        name = self.query_one("#setup-name", Input).value.strip() or self.default_name
        players_text = self.query_one("#setup-players", Input).value.strip() or "4"
        players = int(players_text) if players_text.isdigit() else 0
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            error.update(
                _("Players must be {least} to {most}.", least=MIN_PLAYERS, most=MAX_PLAYERS)
            )
            return None
        partnership = self.query_one("#setup-partnership", Checkbox).value
        if partnership and players != 4:
            error.update(_("Partnership play needs exactly 4 players."))
            return None
        target = self.query_one("#setup-target", Select).value
        preset = self.query_one("#setup-preset", Select).value
        level = self.query_one("#setup-level", Select).value
        web_port = None
        if self.query_one("#setup-web", Checkbox).value:
            port_text = self.query_one("#setup-web-port", Input).value.strip()
            web_port = int(port_text) if port_text.isdigit() else -1
            if not 0 <= web_port <= 65535:
                error.update(_("The browsers' port must be a number from 1 to 65535."))
                return None
        return TableSetup(
            name=printable(name, MAX_NAME),
            players=players,
            partnership=partnership,
            target=target if isinstance(target, int) else TARGETS[0],
            rules=resolve(preset)[0]
            if isinstance(preset, str) and preset in PRESETS
            else DEFAULT_RULES,
            password=self.query_one("#setup-password", Input).value or None,
            bot_level=level if isinstance(level, str) else "",
            reactions=self.query_one("#setup-reactions", Checkbox).value,
            web_port=web_port,
        )

    _answered = False
    """Set by the first answer: a second Enter already queued (a double press, a busy
    machine) must neither host a second table nor pop the screen below this one."""

    def _answer(self, chosen: SetupAnswer) -> None:
        if not self._answered:
            self._answered = True
            self.dismiss(chosen)

    def action_accept(self) -> None:
        chosen = self.choices()
        if chosen is not None:
            self._answer(chosen)

    def action_cancel(self) -> None:
        self._answer(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_accept()

    @on(Button.Pressed, "#setup-open")
    def _open_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_accept()

    @on(Button.Pressed, "#setup-back")
    def _back_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_cancel()
