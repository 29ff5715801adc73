"""Small modal prompts: a table's password, "leave the table?", and the lost-link notice.

Each is a `ModalScreen[T]` that dismisses with its answer, so callers use
`push_screen(prompt, callback)` and never reach into the prompt's widgets.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from client.screens.base import PitchModal, translate_bindings
from client.text import duration, plain, styled
from pitchnet.i18n import N_, _, ngettext
from pitchnet.invocation import shown_command
from pitchnet.protocol import MAX_NAME

KEY_HINT = re.compile(r"\s*\([^()]*\)$")
"""A button label's key at its end ("Sit (Enter)"), left out where the labels do not fit."""


def narrow_buttons(screen: ModalScreen[Any], width: int, short: dict[str, str]) -> None:
    """Below 60 columns (a phone's 40) a dialog's buttons take their `short` labels and
    no minimum width, so that three fit side by side instead of the last being cut; if
    they still do not fit (Lithuanian's "Sėstis (Enter)  Stebėti (w)  Atgal (n)" at 40
    columns cut the last), their keys go from the labels: the keys still work."""
    if width >= 60:
        return
    buttons = list(screen.query(Button))
    for button in buttons:
        button.label = short.get(button.id or "", button.label)
        button.styles.min_width = 0
        button.styles.margin = (1, 1, 0, 0)
    room = min(width, 60) - 4  # the dialog's border and padding
    if sum(cell_len(str(button.label)) + 3 for button in buttons) > room:
        for button in buttons:
            button.label = KEY_HINT.sub("", str(button.label)) or button.label


class PasswordPrompt(PitchModal[str | None]):
    """Asks for a table's password; dismisses with it, or None if cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]

    def __init__(self, table_name: str, *, wrong: bool = False) -> None:
        super().__init__()
        self.table_name, self.wrong = table_name, wrong

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            title = Text(_("That password was wrong. ") if self.wrong else "", style="bold red")
            title.append_text(
                styled(_("Password for {table}"), table=plain(self.table_name, style="bold"))
            )
            yield Static(title, markup=False)
            yield Input(password=True, id="password", placeholder=_("password"))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class YesNo(PitchModal[bool]):
    """A question with two buttons, `#yes` and `#no`, and keys bound to `answer(...)`."""

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)

    @on(Button.Pressed, "#yes")
    def _yes_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def _no_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(False)


class ConfirmLeave(YesNo):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", N_("Leave")),
        Binding("n,escape", "answer(False)", N_("Stay")),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(_("Leave the table? A bot will take your seat if a match is on."))
            with Horizontal(classes="buttons"):
                yield Button(_("Leave (y)"), id="yes", variant="error", compact=True)
                yield Button(_("Stay (n)"), id="no", compact=True)


class ConfirmQuit(YesNo):
    """A seated player quits the window: quitting on purpose gives the seat up (a bot
    plays it at once), unlike a lost connection, whose seat waits for its grace period."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,ctrl+q", "answer(True)", N_("Quit")),
        Binding("n,escape", "answer(False)", N_("Stay")),
    ]

    def __init__(self, *, match_on: bool) -> None:
        super().__init__()
        self.match_on = match_on

    def compose(self) -> ComposeResult:
        question = (
            _("Quit pitchnet? A bot takes your seat at once.")
            if self.match_on
            else _("Quit pitchnet? Your seat is freed.")
        )
        with Vertical(classes="dialog"):
            yield Static(question)
            with Horizontal(classes="buttons"):
                yield Button(_("Quit (y)"), id="yes", variant="error", compact=True)
                yield Button(_("Stay (n)"), id="no", compact=True)


class MoveOffer(YesNo):
    """An older open table is on the network: move the lobby hosted here to it? Never
    without this key press, since any laptop on the LAN can advertise a table; the
    screen names the table and its host's address first."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "answer(True)", N_("Move there")),
        Binding("n,escape", "answer(False)", N_("Stay")),
    ]

    def __init__(self, table_name: str, address: str) -> None:
        super().__init__()
        self.table_name, self.address = table_name, address

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(
                styled(
                    _(
                        "An older table is open on the network: {table} at {address}. Move "
                        "your lobby there? Everyone in it moves with you. Ask its host "
                        "whether that address is theirs."
                    ),
                    table=plain(self.table_name, style="bold", limit=MAX_NAME),
                    address=plain(self.address, style="bold", limit=64),
                )
            )
            with Horizontal(classes="buttons"):
                yield Button(_("Move there (m)"), id="yes", variant="primary", compact=True)
                yield Button(_("Stay (n)"), id="no", compact=True)


class HostQuit(ModalScreen[str | None]):
    """The window that hosts the table is about to go: end the table for everyone, or
    keep it running in the background? Dismisses with "end", "keep" or None (stay)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "answer('end')", N_("End the table")),
        Binding("k", "answer('keep')", N_("Keep it running")),
        Binding("n,escape", "answer(None)", N_("Stay")),
    ]

    def __init__(self, table_name: str) -> None:
        super().__init__()
        translate_bindings(self)
        self.table_name = table_name

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(_("You host this table"), classes="dialog-title")
            yield Static(
                styled(
                    _(
                        "{table} runs in this window. Quitting ends it for everyone, unless "
                        "it keeps running in the background (everyone stays seated; "
                        "`{command}` here shows it again, to end it or take it back)."
                    ),
                    table=plain(self.table_name or _("This table"), style="bold", limit=24),
                    command=shown_command(["pitchnet", "play"]),
                )
            )
            with Horizontal(classes="buttons"):
                yield Button(_("End the table (e)"), id="end", variant="error", compact=True)
                yield Button(_("Keep it running (k)"), id="keep", variant="primary", compact=True)
                yield Button(_("Stay (n)"), id="stay", compact=True)

    SHORT: ClassVar[dict[str, str]] = {
        "end": N_("End (e)"),
        "keep": N_("Keep (k)"),
        "stay": N_("Stay (n)"),
    }

    def on_resize(self, event: Resize) -> None:
        narrow_buttons(self, event.size.width, {k: _(v) for k, v in self.SHORT.items()})

    def action_answer(self, answer: str | None) -> None:
        self.dismiss(answer)

    @on(Button.Pressed, "#end")
    def _end_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss("end")

    @on(Button.Pressed, "#keep")
    def _keep_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss("keep")

    @on(Button.Pressed, "#stay")
    def _stay_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)


class Choice(PitchModal[str | None]):
    """A question with two or three answers, each a button and a key. It dismisses with
    the pressed button's id, or None for the way back (`BACK`). Subclasses give the
    title, the sentence and the buttons; their BINDINGS give the keys."""

    TITLE: ClassVar[str] = ""
    """Marked with `N_`, translated when drawn (as are the labels below)."""
    BUTTONS: ClassVar[tuple[tuple[str, str, str], ...]] = ()
    """(id, label, variant) of each button, left to right."""
    BACK: ClassVar[str] = "back"
    """The button that answers None."""
    SHORT: ClassVar[dict[str, str]] = {}
    """Shorter labels for a narrow screen (`narrow_buttons`)."""

    def sentence(self) -> Text:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(_(self.TITLE), classes="dialog-title")
            yield Static(self.sentence())
            with Horizontal(classes="buttons"):
                for ident, label, variant in self.BUTTONS:
                    yield Button(_(label), id=ident, variant=variant, compact=True)  # type: ignore[arg-type]  # a Literal

    def on_resize(self, event: Resize) -> None:
        narrow_buttons(self, event.size.width, {k: _(v) for k, v in self.SHORT.items()})

    def action_answer(self, answer: str | None) -> None:
        self.dismiss(answer)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        ident = event.button.id or self.BACK
        self.dismiss(None if ident == self.BACK else ident)


class BackgroundOffer(Choice):
    """`pitchnet play` found a table this laptop runs in the background: take it back
    into this window, end it, or leave it running? Dismisses with "back", "end" or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t,enter", "answer('back')", N_("Take it back")),
        Binding("e", "answer('end')", N_("End it")),
        Binding("n,escape", "answer(None)", N_("Leave it running")),
    ]
    TITLE = N_("Running in the background")
    BUTTONS = (
        ("back", N_("Take it back (t)"), "primary"),
        ("end", N_("End it (e)"), "error"),
        ("leave", N_("Leave it (n)"), "default"),
    )
    BACK = "leave"
    SHORT: ClassVar[dict[str, str]] = {"back": N_("Take (t)"), "leave": N_("Let run (n)")}

    def __init__(self, table_name: str) -> None:
        super().__init__()
        self.table_name = table_name

    def sentence(self) -> Text:
        return styled(
            _(
                "Your table {table} runs in the background on this laptop. Take it back "
                "into this window (everyone stays seated), or end it for everyone?"
            ),
            table=plain(self.table_name, style="bold", limit=MAX_NAME),
        )


class WatchOffer(YesNo):
    """Every seat at the table asked is a person's: the host's reason, and an offer to
    watch the table instead (or go back to the table list)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("w,y,enter", "answer(True)", N_("Watch")),
        Binding("n,escape", "answer(False)", N_("Table list")),
    ]

    def __init__(self, table_label: str, reason: str) -> None:
        super().__init__()
        self.table_label, self.reason = table_label, reason

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(_("No free seat"), classes="dialog-title")
            yield Static(
                styled(
                    _("{table}: {reason}"),
                    table=plain(self.table_label, style="bold", limit=80),
                    reason=self.reason,
                ),
                markup=False,
            )
            with Horizontal(classes="buttons"):
                yield Button(_("Watch (w)"), id="yes", variant="primary", compact=True)
                yield Button(_("Table list (Esc)"), id="no", compact=True)

    def on_resize(self, event: Resize) -> None:
        narrow_buttons(self, event.size.width, {})


class FullTableOffer(Choice):
    """`play` found no free seat, but a match among people: watch it, or host a table
    here? Dismisses with "watch", "host" or None (the table list)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("w,enter", "answer('watch')", N_("Watch")),
        Binding("h", "answer('host')", N_("Host a table")),
        Binding("n,escape", "answer(None)", N_("Table list")),
    ]
    TITLE = N_("Every seat is taken")
    BUTTONS = (
        ("watch", N_("Watch (w)"), "primary"),
        ("host", N_("Host here (h)"), "default"),
        ("back", N_("Back (Esc)"), "default"),
    )
    SHORT: ClassVar[dict[str, str]] = {"back": N_("Back (n)")}

    def __init__(self, table_name: str) -> None:
        super().__init__()
        self.table_name = table_name

    def sentence(self) -> Text:
        return styled(
            _(
                "{table} is playing a match and every seat is a person's (a player whose "
                "connection dropped keeps theirs for a while). Watch it, or host a "
                "table here?"
            ),
            table=plain(self.table_name, style="bold", limit=MAX_NAME),
        )


class SeatOffer(Choice):
    """`play` found a seat at a match among people this player never sat with: take
    it only on a key press. Dismisses with "sit", "watch" or None (the table list)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,y", "answer('sit')", N_("Take the seat")),
        Binding("w", "answer('watch')", N_("Watch")),
        Binding("n,escape", "answer(None)", N_("Table list")),
    ]
    TITLE = N_("A match is on")
    BUTTONS = (
        ("sit", N_("Sit (Enter)"), "primary"),
        ("watch", N_("Watch (w)"), "default"),
        ("back", N_("Back (Esc)"), "default"),
    )

    def __init__(self, table_name: str, people: int, *, left: bool = False) -> None:
        super().__init__()
        self.table_name, self.people, self.left = table_name, people, left

    def sentence(self) -> Text:
        if self.left:  # the host seats a leaver who comes back in their old seat, by name
            return styled(
                _(
                    "You left {table}'s match earlier; a bot took your seat. Take it back "
                    "(from the next hand, if a bot still plays it), watch, or go back to "
                    "the table list?"
                ),
                table=plain(self.table_name, style="bold", limit=MAX_NAME),
            )
        return styled(
            ngettext(
                "{table} is playing a match (one person at it). A bot plays a free seat: "
                "take it (from the next hand), watch, or go back to the table list?",
                "{table} is playing a match ({n} people at it). A bot plays a free seat: "
                "take it (from the next hand), watch, or go back to the table list?",
                self.people,
                table="{table}",
            ),
            table=plain(self.table_name, style="bold", limit=MAX_NAME),
        )


class ResumeOffer(YesNo):
    """`pitchnet play` found a table hosted here that never finished: carry it on?"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r,y", "answer(True)", N_("Resume")),
        Binding("n,escape", "answer(False)", N_("New table")),
    ]

    def __init__(self, table_name: str) -> None:
        super().__init__()
        self.table_name = table_name

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(
                styled(
                    _(
                        "Your table {table} has an unfinished match. Resume it? Everyone "
                        "gets their seat back."
                    ),
                    table=plain(self.table_name, style="bold", limit=MAX_NAME),
                )
            )
            with Horizontal(classes="buttons"):
                yield Button(_("Resume (r)"), id="yes", variant="primary", compact=True)
                yield Button(_("New table (n)"), id="no", compact=True)


class OfflineScreen(PitchModal[None]):
    """Shown the moment the link to the host is lost: while retrying it says so; when
    the connection has given up it offers the way back to the finder."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter", "back", N_("Table finder"))]

    def __init__(self) -> None:
        super().__init__()
        self.reason, self.retrying, self.attempts = "", True, 0
        self.trying_for = 0.0
        self._shown = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog offline"):
            yield Static(_("Connection lost"), id="offline-title", classes="dialog-title")
            yield Static("", id="offline-text", markup=False)

    def on_mount(self) -> None:
        self._shown = True
        self._draw()

    def update_reason(self, reason: str, *, retrying: bool, trying_for: float = 0.0) -> None:
        self.reason, self.retrying, self.trying_for = reason, retrying, trying_for
        self.attempts += 1
        if self._shown:
            self._draw()

    def _draw(self) -> None:
        game = self.app.game
        seated = game.seat is not None and not game.watching
        # A spectator only reconnects to a table it was watching: then it is a loss too.
        title = (
            _("Connection lost")
            if seated or (game.watching and self.retrying)
            else _("Could not join")
        )
        self.query_one("#offline-title", Static).update(title)
        text = plain(self.reason, limit=200).append("\n\n")
        if self.retrying and game.watching:  # there is no seat to keep
            text.append(
                _(
                    "Reconnecting for {time} (try {n})...",
                    time=duration(self.trying_for),
                    n=self.attempts,
                )
                + "\n"
            )
            text.append(_("Esc: stop, and go back to the table finder."), style="dim")
        elif self.retrying:
            table = game.table
            # Past the table's grace a bot plays the seat (it stays this player's): "kept"
            # alone then read as if the table still waited.
            standing_in = table is not None and table.substitute and self.trying_for >= table.grace
            kept = (
                _(
                    "Reconnecting for {time} (try {n})... your seat is kept; a bot plays "
                    "it until you are back.",
                    time=duration(self.trying_for),
                    n=self.attempts,
                )
                if standing_in
                else _(
                    "Reconnecting for {time} (try {n})... your seat is kept.",
                    time=duration(self.trying_for),
                    n=self.attempts,
                )
            )
            text.append(kept + "\n")
            text.append(
                _(
                    "Esc: stop, and go back to the table finder (the seat stays yours: "
                    "join the table again to sit back down)."
                ),
                style="dim",
            )
        else:
            text.append(_("Enter or Esc: back to the table finder.  Ctrl+Q: quit."), style="dim")
        self.query_one("#offline-text", Static).update(text)

    def action_back(self) -> None:
        # The host cannot be told we leave, so it keeps the seat for us: keep its token,
        # and say so in the finder (where the table may well be listed, playing on).
        game = self.app.game
        if game.seat is not None and not game.watching:
            self.app.finder_note = _(
                "The connection to {table} was lost. Your seat stays yours (a bot plays it "
                "once the table stops waiting for you): join the table again to sit back down.",
                table=game.table_name or _("the table"),
            )
        self.app.leave_table(keep_seat=True)


class WebAddress(PitchModal[None]):
    """Where browsers and phones join the table this window serves (`w`): the address,
    and its QR code drawn in half blocks for a phone's camera (host/web_qr.py)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter,w", "close", N_("Close"))]

    def __init__(self, urls: list[str]) -> None:
        super().__init__()
        self.urls = urls

    def compose(self) -> ComposeResult:
        from client.hosting import qr_text

        with Vertical(classes="dialog web-address"):
            yield Static(_("Phones and browsers join at"), classes="dialog-title")
            yield Static("\n".join(self.urls), id="web-urls", markup=False)
            yield Static(Text(qr_text(self.urls[0]).rstrip("\n"), no_wrap=True), id="web-qr")
            yield Button(_("Close (Esc)"), id="web-close", compact=True)

    def action_close(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#web-close")
    def _close_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)
