"""The Textual app: owns the connection (and a hosted table, if any) and the game state,
and routes each snapshot to the screen that should show it.

Screens are modes (finder, connecting, lobby, table) so each keeps its own stack of
modal screens. The connection runs in a worker on the app's event loop and only
posts messages; the handlers below are the one place where network news becomes
screen changes.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import App, SystemCommand, UnknownModeError
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.notifications import Notify, SeverityLevel
from textual.screen import Screen
from textual.scrollbar import ScrollBar, ScrollBarRender

from client.connection import Connection
from client.gestures import PitchLead
from client.meanings import reclaim_words
from client.messages import (
    Disconnected,
    HostError,
    News,
    ReactionHeard,
    Reclaiming,
    StateReceived,
    Welcomed,
)
from client.model import GameState, describe_event, hand_so_far, top_bid
from client.reactions import reaction_label
from client.screens.base import GameChanged, PitchModal, translate_bindings
from client.screens.connecting import ConnectingScreen
from client.settings import (
    DECKS,
    Preferences,
    SessionPreferences,
    load_preferences,
    save_language,
)
from client.text import use_deck
from client.tokens import SavedSeat, TokenStore
from client.widths import count_spacing_marks
from pitchnet.events import Dealt, Event, TimedOut, TookOver
from pitchnet.i18n import LANGUAGES, N_, _, current, use
from pitchnet.protocol import MAX_NAME, ReclaimAsked, TableInfo, TableState
from pitchnet.reactions import Reaction
from pitchnet.rules import Phase
from pitchnet.text import printable
from pitchnet.views import SeatView

log = logging.getLogger(__name__)

MAX_TOASTS = 3
"""Toasts shown at once on a screen 60 columns wide or more (fewer on a phone)."""

if TYPE_CHECKING:
    from client.discovery import FoundTable
    from client.hosting import HostedTable, HostingConfig, TableSetup, WebServer
    from client.older_tables import OlderTableWatch
    from client.screens.prompts import OfflineScreen


def _took_over(event: Event, seat: int | None) -> bool:
    return isinstance(event, TookOver) and event.seat == seat


BrowserFactory = Callable[[str | None, Callable[[list["FoundTable"]], None]], Any]
"""Makes a table browser (start/close/tables), as client.discovery.TableBrowser."""


@dataclass
class ClientOptions:
    name: str
    ascii_only: bool = False
    interface: str | None = None
    mode: str = "find"  # "join"/"watch" (address given), "find", "play"
    # "web": one table only, served to a browser by host/web.py (leaving ends the session)
    address: tuple[str, int] | None = None
    password: str | None = None
    bot_level: str | None = None
    """The level of the bots at a table hosted here (`--bot-level`), whatever the setup
    screen chose; None: the setup screen's."""
    reactions: bool = True
    """False (`--no-reactions`): other people's reactions are not shown in this run,
    whatever the saved setting says (a player who wants quiet for one evening)."""
    seats_file: Path | None = None
    """Where seat tokens are kept (default: the user's state directory). A browser
    session's file is its identity's own, on the host (host/web.py)."""
    lang: str | None = None
    """The language this window speaks (pitchnet/i18n.py), chosen before the app starts
    (`--lang`, the settings, the system's locale; a browser's own); None: as it is."""

    @property
    def one_table(self) -> bool:
        """Served to a browser: this table and nothing else (no finder, no hosting)."""
        return self.mode == "web"


def _default_browser(interface: str | None, on_change: Callable[[list[FoundTable]], None]) -> Any:
    from client.discovery import TableBrowser  # zeroconf loads only when browsing

    return TableBrowser(interface, on_change)


# Screens other than the first are imported when first shown: start-up time matters.


def _finder() -> Screen[None]:
    from client.screens.finder import FinderScreen

    return FinderScreen()


def _lobby() -> Screen[None]:
    from client.screens.lobby import LobbyScreen

    return LobbyScreen()


def _table() -> Screen[None]:
    from client.screens.table import TableScreen

    return TableScreen()


class AsciiScrollBarRender(ScrollBarRender):
    """Scrollbars for --ascii: the thumb in whole cells, without the partial-block
    glyphs Textual draws at its ends for smoothness."""

    VERTICAL_BARS: ClassVar[list[str]] = [" "]
    HORIZONTAL_BARS: ClassVar[list[str]] = [" "]


class ConnectionNews(Message):
    """One piece of the connection's news (client.messages), carried on the app's queue."""

    def __init__(self, news: News) -> None:
        super().__init__()
        self.news = news


class PitchApp(App[None]):
    CSS_PATH = "client.tcss"
    TITLE = "pitchnet"
    ENABLE_COMMAND_PALETTE = True
    MODES: ClassVar[dict[str, Any]] = {
        "finder": _finder,
        "connecting": ConnectingScreen,
        "lobby": _lobby,
        "table": _table,
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", N_("Keys")),
        # Priority: a modal screen (the hand summary, the match end, the keys) hides the
        # app's other keys, and these two work anywhere, as the keys screen says.
        Binding("f2", "rules", N_("Rules"), show=False, priority=True),
        Binding("ctrl+s", "screenshot_here", N_("Screenshot"), show=False, priority=True),
        Binding("w", "web_address", N_("Web address")),
        Binding("ctrl+q", "quit", N_("Quit"), priority=True),
        # Textual's own palette key, worded here so that it is translated ("palette" stayed
        # English in every language, and meant nothing to a player).
        Binding("ctrl+p", "command_palette", N_("Commands"), show=False, priority=True),
    ]

    play_browse_seconds = 0.5
    """How long `pitchnet play` looks before its setup screen (the browser's first query goes
    out at once and answers come within about 0.1 s; a table seen at any time is joined at
    once, and one that opens while the setup screen shows is offered there)."""

    def __init__(
        self,
        options: ClientOptions,
        *,
        browser_factory: BrowserFactory | None = None,
    ) -> None:
        # The first screen is the default mode, not a switch: Textual's switch_mode holds
        # painting back 50 ms to mask the transition, which start-up cannot afford.
        # Textual reads DEFAULT_MODE, a class variable, in App.__init__; this app's first
        # mode depends on its options, so it is set on the instance just before that.
        vars(self)["DEFAULT_MODE"] = self.first_mode(options)
        if options.lang is not None:
            use(options.lang)
        count_spacing_marks()  # widths as the terminal (or the browser's xterm.js) draws
        super().__init__()
        translate_bindings(self)
        self.options = options
        self.browser_factory = browser_factory or _default_browser
        self.game = GameState(ascii_only=options.ascii_only)
        self.connection: Connection | None = None
        self.tokens = TokenStore(options.seats_file)
        self._undialled: Connection | None = None
        self.hosted: HostedTable | None = None
        """The table this window hosts (client/hosting.py, the seam), if it hosts one."""
        self.connecting_to = "{}:{}".format(*options.address) if options.address else ""
        self.may_move = False
        """The table hosted here came from `play`: while its creator sits there alone, it
        yields to an older open table on the network (the creator moves there)."""
        self._mover: OlderTableWatch | None = None
        """Watching for an older open lobby, while the one hosted here is young."""
        self._offline: OfflineScreen | None = None
        self.background_pid: int | None = None
        """The detached host that keeps a table from this window running, if one does."""
        self.play_again = False
        """`play` should look for a table again when the finder next shows."""
        self.finder_note = ""
        """A sentence for the finder to show when it next appears (why we are back)."""
        self.prefs: Preferences = (
            SessionPreferences() if options.mode == "web" else load_preferences()
        )
        self.pitch_lead = PitchLead()
        """The card to lead once our pitch is taken: one gesture, two frames."""
        self._was_my_turn = False
        self._reclaim_offered: set[tuple[str, int]] = set()
        """(table id, seat) whose taking back was offered to us while watching: once."""
        self._vouching: dict[int, Any] = {}
        """Seat -> the open question whether a watcher asking for it is its player."""
        if self.prefs.theme in self.available_themes:
            self.theme = self.prefs.theme
        self._use_colours()
        if options.ascii_only:
            self.add_class("-ascii")
        # Textual's hook for scrollbar glyphs is class-wide (one app runs per process).
        ScrollBar.renderer = AsciiScrollBarRender if options.ascii_only else ScrollBarRender

    @property
    def web(self) -> WebServer | None:
        """The web join of the table hosted here, while it serves browsers."""
        return self.hosted.web if self.hosted is not None else None

    @property
    def web_urls(self) -> list[str]:
        """Where browsers join the table hosted here (none: it serves no browsers)."""
        return self.hosted.web_urls if self.hosted is not None else []

    def first_mode(self, options: ClientOptions) -> str:
        """The screen shown first: connecting to the address given, else the finder."""
        return "connecting" if options.address is not None else "finder"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`w` (the web address) only in a window that serves its table to browsers."""
        if action == "web_address":
            return bool(self.web_urls)
        return True

    def get_key_display(self, binding: Binding) -> str:
        """Key names for the footer; with --ascii, Textual's own key name ("enter",
        "left") wherever its display would be a symbol such as the return arrow."""
        shown = super().get_key_display(binding)
        if self.options.ascii_only and not shown.isascii():
            modifiers, key = binding.parse_key()
            return "+".join([*modifiers, key])
        return shown

    def on_mount(self) -> None:
        if self.options.address is not None:
            host, port = self.options.address
            watch = self.options.mode == "watch"
            self.join(host, port, password=self.options.password, watch=watch)

    # ---- joining and leaving -----------------------------------------------------------------

    def join(
        self,
        host: str,
        port: int,
        *,
        password: str | None = None,
        table_id: str | None = None,
        label: str | None = None,
        watch: bool = False,
    ) -> Connection:
        """Connect to a table (to watch it, with `watch`); the screens follow from the
        host's answers."""
        self._drop_connection()
        self.game.reset()
        self.connecting_to = f"{label} ({host}:{port})" if label else f"{host}:{port}"
        name = self.options.name
        address = (host, port)
        saved = (
            None
            if watch
            else self.tokens.find(name, table_id=table_id, address=address, given_up=True)
        )
        connection = Connection(
            host,
            port,
            name,
            self._post_news,
            password=password,
            table_id=table_id,
            remembered=saved,
            locate=self._locate,
            watch=watch,
        )
        self.connection = connection
        self._undialled = connection
        if self.current_mode != "connecting":
            self._switch("connecting")  # its screen dials once it has been drawn
        elif self.screen.is_mounted:
            self.call_after_refresh(self.dial)  # already showing: dial after this redraw
        return connection

    async def _locate(
        self, table_id: str, *, avoid: Collection[tuple[str, int]] = ()
    ) -> tuple[str, int] | None:
        from client.discovery import locate  # zeroconf loads only if a table moved

        return await locate(self.options.interface, table_id, avoid=avoid)

    def dial(self) -> None:
        """Start the connection made by `join`. Called by the connecting screen after its
        first paint, so "Connecting to..." is on screen at once and a fast host cannot
        hold up the first frame while the lobby is being built."""
        connection, self._undialled = self._undialled, None
        if connection is not None and connection is self.connection:
            self.run_worker(
                connection.run,  # type: ignore[arg-type]  # Textual#6386
                group="connection",
                exit_on_error=False,
            )

    def host_here(
        self,
        *,
        setup: TableSetup | None = None,
        resume: str | None = None,
        may_move: bool = False,
    ) -> None:
        """Host a table in this process (advertised on the LAN) and sit down in its
        lobby; `setup` is the setup screen's choice; with `resume`, the unfinished
        table of that id comes back from its journal. `may_move`: see `self.may_move`."""
        work = partial(self._host_here, setup, resume, may_move)
        self.run_worker(work, group="host", exclusive=True)  # type: ignore[arg-type]  # Textual#6386

    async def _host_here(
        self, setup: TableSetup | None, resume: str | None, may_move: bool
    ) -> None:
        from client.hosting import HostedTable, HostingError

        if self.hosted is None:
            try:
                hosted = await HostedTable.open(self.host_config(setup, resume))
            except HostingError as exc:
                self.notify(str(exc), severity="error", markup=False)
                return
            self.hosted = hosted
            if setup is not None and setup.web_port is not None:
                refusal = await hosted.serve_web(setup.web_port)
                if refusal is not None:
                    self.notify(refusal, severity="error", markup=False)
        hosted = self.hosted
        self.may_move = may_move and not resume and hosted.web is None
        self.join(
            hosted.address,
            hosted.port,
            table_id=hosted.table_id,
            # Its own window never asks for the table's password (a resumed table's
            # comes from its journal).
            password=hosted.facts().password,
        )
        if self.may_move or (setup is not None and not resume):
            from client.older_tables import OlderTableWatch

            self._mover = OlderTableWatch(self)
            self.run_worker(self._mover.run(), group="mover", exclusive=True)

    def host_config(self, setup: TableSetup | None, resume: str | None) -> HostingConfig:
        """How a table hosted here is opened: the setup screen's `setup` (or the
        defaults), named for this player unless named there, on this window's interface,
        its bots at `--bot-level` if given, the table to `resume`."""
        from client.hosting import HostingConfig, TableSetup

        setup = setup or TableSetup()
        if not setup.name:
            name = printable(_("{name}'s table", name=self.options.name), MAX_NAME)
            setup = dataclasses.replace(setup, name=name)
        if self.options.bot_level:
            setup = dataclasses.replace(setup, bot_level=self.options.bot_level)
        return HostingConfig(setup=setup, interface=self.options.interface, resume=resume)

    def action_web_address(self) -> None:
        """Show the address browsers join at, with its QR code for a phone's camera."""
        from client.screens.prompts import WebAddress

        if not self.web_urls:
            self.notify(_("This window does not serve the table to browsers."), markup=False)
        elif not isinstance(self.screen, WebAddress):
            self.push_screen(WebAddress(self.web_urls))

    # ---- two lone tables opened at once: the younger one yields (client/older_tables.py) ----

    async def move_lobby_to(self, target: FoundTable) -> None:
        """Close our lobby, telling everyone in it (us too) to join `target` (an older
        open table the creator chose to move to)."""
        hosted, self.hosted = self.hosted, None
        self.may_move = False
        log.info("an older open table %s exists: moving there", target.table_id)
        if self.game.table_id:
            self.tokens.forget(self.game.table_id, self.options.name, self._seat_token())
        self._drop_connection()
        if hosted is not None:
            await hosted.move_to(f"{target.host}:{target.port}", target.table_id)
        self.join(target.host, target.port, table_id=target.table_id, label=target.name)

    def _seat_token(self) -> str | None:
        """The token of the seat given up: only it is forgotten (another token kept for
        the same table id may be the real table's, if this host was an impostor)."""
        return self.connection.token if self.connection is not None else None

    def leave_table(self, *, keep_seat: bool = False) -> None:
        """Back to the finder, giving up the seat; or, with `keep_seat` (the link is down,
        so the host cannot be told), keeping its token: the seat is still this player's,
        and joining the table again from the finder takes it back."""
        if self.game.table_id and not keep_seat:
            self.tokens.forget(
                self.game.table_id,
                self.options.name,
                self._seat_token(),
                left=self.game.seat is not None,  # sat there (not only a refused join)
            )
        if self.options.one_table:
            self.run_worker(self._leave_and_exit(keep_seat), group="closing")
            return
        self._drop_connection(leave=not keep_seat)
        self.game.reset()
        self._switch("finder")

    async def _leave_and_exit(self, keep_seat: bool) -> None:
        """A browser session has nowhere else to go: say goodbye to the table (or just
        hang up, keeping the seat) and end, which ends the page's session."""
        connection, self.connection = self.connection, None
        if connection is not None:
            await (
                connection.close() if keep_seat or not connection.connected else connection.leave()
            )
        self.exit()

    def confirm_leave(self) -> None:
        if self.hosting_here():
            self.confirm_host_quit()
            return
        from client.screens.prompts import ConfirmLeave

        def answered(leave: bool | None) -> None:
            if leave:
                self.leave_table()

        self.push_screen(ConfirmLeave(), answered)

    def hosting_here(self) -> bool:
        """This window hosts a table that people may be playing at."""
        return self.hosted is not None

    def confirm_host_quit(self) -> None:
        """The window that hosts asks before it goes: end the table for everyone, or keep
        it running in the background (a detached `pitchnet host --resume`)."""
        from client.screens.prompts import HostQuit

        def answered(choice: str | None) -> None:
            if choice == "end":
                self.run_worker(self._end_hosted_table(), group="quit", exclusive=True)
            elif choice == "keep":
                self.run_worker(self._keep_hosting_in_background(), group="quit", exclusive=True)

        if not isinstance(self.screen, HostQuit):
            self.push_screen(HostQuit(self.hosted.name if self.hosted else ""), answered)

    async def _end_hosted_table(self) -> None:
        name = self.hosted.name if self.hosted is not None else _("The table")
        await self._close_hosted()
        await self.close_network()
        self.exit(
            message=_("{table} has ended: everyone at it was told the host closed it.", table=name)
        )

    async def _keep_hosting_in_background(self) -> None:
        """Hand the table to a detached `pitchnet host --resume` on the same port: the
        clients see a short break and reconnect by themselves."""
        hosted, self.hosted = self.hosted, None
        if hosted is None:
            return
        # This window's player goes on purpose: the background host has a bot play her
        # seat at once (she takes it back with `play`), not after the grace period.
        own_seat = self._playing_seat()
        await hosted.close_web(ended=False)  # the browsers' pages reconnect to it
        await self.close_network()
        try:
            command, self.background_pid = await hosted.hand_over(own_seat)
        except OSError as exc:
            self.notify(
                _("Could not keep the table running: {reason}.", reason=str(exc.strerror)),
                markup=False,
            )
            command = ""
        self.exit(
            message=_("The table goes on in the background ({command}).", command=command)
            if command
            else None
        )

    def _drop_connection(self, *, leave: bool = False) -> None:
        self._close_offline()
        connection, self.connection = self.connection, None
        if connection is not None:
            closing = connection.leave if leave and connection.connected else connection.close
            self.run_worker(closing, group="closing")  # type: ignore[arg-type]  # Textual#6386

    async def close_network(self) -> None:
        """Close the connection and any table hosted here (called on the way out)."""
        mover, self._mover = self._mover, None
        if mover is not None:
            await mover.close()
        connection, self.connection = self.connection, None
        if connection is not None:
            await connection.close()
        await self._close_hosted()

    async def _close_hosted(self) -> None:
        """End the table hosted here for everyone, and its web join."""
        hosted, self.hosted = self.hosted, None
        if hosted is not None:
            await hosted.end()  # every client: "The host closed the table"

    async def action_quit(self) -> None:
        """Ctrl+Q. The window that hosts asks what becomes of its table; a seated player
        is asked, then gives the seat up (a bot plays it at once: leaving on purpose is
        not a lost connection, whose seat waits out its grace period)."""
        if self.hosting_here():
            self.confirm_host_quit()
            return
        if self._seated_and_connected():
            self.confirm_quit()
            return
        await self.close_network()
        self.exit()

    def _playing_seat(self) -> int | None:
        """The seat this window plays at a table it is connected to (None: watching,
        not seated, or the link down)."""
        connection = self.connection
        if connection is None or not connection.connected or self.game.watching:
            return None
        return connection.seat

    def _seated_and_connected(self) -> bool:
        return self._playing_seat() is not None

    def confirm_quit(self) -> None:
        from client.screens.prompts import ConfirmQuit

        def answered(leave: bool | None) -> None:
            if leave:
                self.run_worker(self._leave_and_quit(), group="quit", exclusive=True)

        if not isinstance(self.screen, ConfirmQuit):
            table = self.game.table
            match_on = table is not None and table.state != TableState.LOBBY
            self.push_screen(ConfirmQuit(match_on=match_on), answered)

    async def _leave_and_quit(self) -> None:
        """Tell the table we leave (the seat goes to a bot now), forget its token, quit."""
        connection, self.connection = self.connection, None
        if self.game.table_id and connection is not None:
            self.tokens.forget(
                self.game.table_id,
                self.options.name,
                connection.token,
                left=self.game.seat is not None,
            )
        if connection is not None:
            await (connection.leave() if connection.connected else connection.close())
        await self.close_network()
        self.exit()

    def _on_notify(self, event: Notify) -> None:
        """One toast per sentence, and few at once: the same refusal tapped five times
        showed five toasts stacked over a phone's cards and bid buttons. A repeated
        sentence replaces its toast (its time starts again); beyond `MAX_TOASTS` (2 on a
        screen under 60 columns) the oldest goes."""
        shown = list(self._notifications)
        others = [n for n in shown if n.message != event.notification.message]
        room = (MAX_TOASTS if self.size.width >= 60 else 2) - 1  # beside the new one
        keep = others[max(0, len(others) - room) :]
        for old in shown:
            if old not in keep:
                self._unnotify(old, refresh=False)
        super()._on_notify(event)

    # ---- actions the screens ask for ---------------------------------------------------------

    def send_start(self) -> None:
        if self.connection:
            self.connection.start()

    def send_sit(self, seat: int) -> None:
        if self.connection:
            self.connection.sit(seat)

    def send_bid(self, amount: int | None) -> None:
        if self.connection:
            self.connection.bid(amount)

    def send_play(self, card: str) -> None:
        if self.connection:
            self.connection.play(card)

    def send_ready(self, rotate: bool = False) -> None:
        if self.connection:
            self.connection.ready(rotate)

    def pitch(self, card: str) -> None:
        """Bid the top bid now (4, or 5 with the joker: the bid that ends the auction) and
        lead `card` as soon as the host gives us the lead."""
        if self.connection:
            self.pitch_lead.begin(card)
            self.connection.bid(top_bid(self.game.view))

    def _lead_pitched_card(self) -> None:
        card = self.pitch_lead.due(self.game.view, self.game.me)
        if card is not None:
            self.send_play(card)

    def _ring_for_turn(self) -> None:
        """With the bell setting on, ring (and notify) when it becomes our turn."""
        view = self.game.view
        mine = view is not None and view.turn == self.game.me and view.phase != Phase.HAND_OVER
        if mine and not self._was_my_turn and self.prefs.bell:
            self.bell()
            self.notify(_("Your turn."), timeout=2)
        self._was_my_turn = mine

    def action_help(self) -> None:
        from client.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def action_rules(self) -> None:
        from client.screens.help import RulesScreen

        if not isinstance(self.screen, RulesScreen):
            self.push_screen(RulesScreen())

    def action_last_trick(self) -> None:
        from client.screens.table import TableScreen

        for screen in self.screen_stack:
            if isinstance(screen, TableScreen):
                screen.action_last_trick()
                return
        self.notify(_("There is no trick to show here."), markup=False)

    def action_coach(self) -> None:
        from client.screens.table import TableScreen

        for screen in self.screen_stack:
            if isinstance(screen, TableScreen):
                screen.action_coach()
                return

    def action_screenshot_here(self) -> None:
        """Save an SVG of the screen and say where it went; in a browser session, hand
        it to the browser as a download (Textual's delivery), never to the host's disk."""
        from pitchnet.dirs import state_dir

        if self.options.mode == "web":
            self.deliver_screenshot()
            return

        folder = str(state_dir() / "screenshots")
        try:
            import os

            os.makedirs(folder, exist_ok=True)
            path = self.save_screenshot(path=folder)
        except OSError as exc:
            self.notify(
                _("Could not save a screenshot: {reason}.", reason=str(exc.strerror)),
                severity="error",
                markup=False,
            )
            return
        self.notify(_("Screenshot saved to {path}", path=str(path)), markup=False, timeout=6)

    # ---- preferences ------------------------------------------------------------------------

    def _watch_theme(self, theme_name: str) -> None:
        super()._watch_theme(theme_name)
        prefs = getattr(self, "prefs", None)
        if prefs is None:
            return
        self._use_colours()
        if prefs.theme != theme_name:
            prefs.theme = theme_name
            prefs.save()
        self.redraw()

    def _use_colours(self) -> None:
        """Cards and the felt in the colours of the deck and of a dark or light theme."""
        from client.widgets.felt import use_felt_palette

        dark = self.current_theme.dark
        use_deck(self.prefs.deck, dark)
        use_felt_palette(dark)

    def set_deck(self, deck: str) -> None:
        self.prefs.deck = deck if deck in DECKS else "four"
        self.prefs.save()
        self._use_colours()
        self.redraw()
        if self.prefs.deck == "four":
            self.notify(_("Cards now use the four-colour deck."), markup=False)
        else:
            self.notify(_("Cards now use the two-colour deck."), markup=False)

    def toggle(self, setting: str) -> None:
        """Flip a yes/no preference (one_press, bell, motion) and say what it now does."""
        value = not getattr(self.prefs, setting)
        setattr(self.prefs, setting, value)
        self.prefs.save()
        sentences = {
            ("one_press", True): _("One-press keys: a number key bids or plays at once."),
            ("one_press", False): _("Number keys pick; Enter confirms."),
            ("bell", True): _("The bell rings when it is your turn."),
            ("bell", False): _("No bell on your turn."),
            ("motion", True): _("Cards move: to the middle when played, to the trick's winner."),
            ("motion", False): _("Cards no longer move: each change is drawn at once."),
            ("reactions", True): _("Reactions show beside each seat and in the log."),
            ("reactions", False): _("Reactions are hidden on this screen."),
        }
        self.notify(sentences[setting, value], markup=False)
        self.redraw()

    def set_language(self, lang: str) -> None:
        """Speak `lang` from now on, and remember it (a browser session remembers nothing
        on the host). Everything drawn from the game from now on, the keys included,
        reads in it at once; a dialog already open keeps its words until it is closed."""
        chosen = use(lang)
        if not self.options.one_table:
            save_language(chosen)
        self.options.lang = chosen
        translate_bindings(self)
        for screen in self.screen_stack:
            translate_bindings(screen)
            screen.refresh_bindings()
        self.notify(_("Language: {language}", language=LANGUAGES[chosen]), markup=False)
        self.redraw()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The command palette (ctrl+p): pitchnet's own commands first."""
        from client.screens.table import TableScreen

        at_table = any(isinstance(s, TableScreen) for s in self.screen_stack)
        if self.connection is not None:
            yield SystemCommand(_("Leave the table"), _("Give up the seat"), self.confirm_leave)
        if at_table:
            yield SystemCommand(
                _("Last trick"), _("Show the last completed trick"), self.action_last_trick
            )
            yield SystemCommand(
                _("Coach"), _("What the hard bot would do now, and why (c)"), self.action_coach
            )
        if self.web_urls:
            yield SystemCommand(
                _("Web address"),
                _("Where phones and browsers join, and its QR code (w)"),
                self.action_web_address,
            )
        yield SystemCommand(_("Rules"), _("What wins, what may be played"), self.action_rules)
        yield SystemCommand(_("Keys"), _("The keys of this screen"), self.action_help)
        yield SystemCommand(
            _("Deck: four colours"),
            _("A colour per suit, safe for colour blindness"),
            partial(self.set_deck, "four"),
        )
        yield SystemCommand(
            _("Deck: two colours"), _("Red and black"), partial(self.set_deck, "two")
        )
        yield SystemCommand(
            _("One-press keys on/off"),
            _("Number keys bid and play without Enter"),
            partial(self.toggle, "one_press"),
        )
        yield SystemCommand(
            _("Turn bell on/off"),
            _("Ring the bell when it becomes your turn"),
            partial(self.toggle, "bell"),
        )
        yield SystemCommand(
            _("Card motion on/off"),
            _("Cards travel to the middle and to the trick's winner"),
            partial(self.toggle, "motion"),
        )
        yield SystemCommand(
            _("Reactions on/off"),
            _("Show other people's quick reactions (nice play, oops, ...)"),
            partial(self.toggle, "reactions"),
        )
        if at_table and self._may_react():
            yield SystemCommand(
                _("React"), _("Send the table a quick reaction (r)"), self.action_react
            )
        yield SystemCommand(
            _("Theme"), _("Change the colours (light or dark)"), self.action_change_theme
        )
        yield SystemCommand(
            _("Screenshot"), _("Save an SVG of the screen (ctrl+s)"), self.action_screenshot_here
        )
        for code, language in LANGUAGES.items():
            if code != current():
                yield SystemCommand(
                    _("Language: {language}", language=language),
                    _("Speak {language} in this window (and remember it)", language=language),
                    partial(self.set_language, code),
                )
        yield SystemCommand(_("Quit"), _("Leave and close pitchnet"), self.action_quit)

    # ---- news from the connection ------------------------------------------------------------

    def _post_news(self, news: News) -> None:
        self.post_message(ConnectionNews(news))

    def on_connection_news(self, message: ConnectionNews) -> None:
        """News from the connection, on the app's own queue; news from a connection the
        player already left is dropped."""
        news = message.news
        if news.connection is not self.connection:
            return
        if isinstance(news, Welcomed):
            self._welcomed(news)
        elif isinstance(news, StateReceived):
            self.apply_state(news.seq, news.table, news.view, news.events)
        elif isinstance(news, HostError):
            self._host_error(news)
        elif isinstance(news, ReactionHeard):
            self.show_reaction(news.reaction, news.seat, news.name)
        elif isinstance(news, Reclaiming):
            self._reclaiming(news)
        else:
            self._disconnected(news)

    def show_reaction(self, reaction: Reaction, seat: int | None, name: str) -> None:
        """Someone reacted: beside their seat for a few seconds and a line in the log,
        unless this player turned reactions off (then nothing at all)."""
        game = self.game
        if not (self.prefs.reactions and self.options.reactions):
            return
        label = reaction_label(reaction, game.ascii_only)
        who = game.who(seat) if seat is not None else printable(name, MAX_NAME)
        game.log.append(Text(_("{name}: {reaction}", name=who or _("A watcher"), reaction=label)))
        if seat is not None:
            game.reactions[seat] = (reaction, game.clock())
        self.redraw()

    def _may_react(self) -> bool:
        """Whether this player may send a reaction: the table relays them, and a watcher
        only where the table lets watchers react."""
        table, game = self.game.table, self.game
        if self.connection is None or table is None or not table.reactions:
            return False
        return game.me is not None or table.spectator_reactions

    def action_react(self) -> None:
        """Open the reaction picker (r); the chosen one goes to the table."""
        from client.screens.react import ReactPicker

        if not self._may_react():
            self.notify(_("This table takes no reactions from you."), markup=False)
            return

        def send(reaction: Reaction | None) -> None:
            if reaction is not None and self.connection is not None:
                self.connection.react(reaction)

        self.push_screen(ReactPicker(self.game.ascii_only), send)

    def _welcomed(self, message: Welcomed) -> None:
        welcome = message.welcome
        connection = message.connection
        watching = bool(getattr(welcome, "spectator", False))
        if not watching:
            self.tokens.remember(
                SavedSeat(
                    welcome.table_id,
                    connection.name,
                    connection.host,
                    connection.port,
                    connection.token or "",
                    connection.kept_tokens,
                )
            )
        if message.note:
            self.notify(message.note, severity="warning", markup=False, timeout=15)
        self.game.start_log(welcome.table_id)
        self.game.seat = None if watching else welcome.seat
        self.game.watching = watching
        self.game.hosting = self.hosted is not None and self.hosted.table_id == welcome.table_id
        self.game.table_id = welcome.table_id
        self.game.table_name = printable(welcome.table_name, MAX_NAME)
        # The finder's note was about an earlier table ("The host closed the table"): at
        # a table now, it would be read later as news about this one.
        self.finder_note = ""
        self._close_offline()
        self.redraw()

    def apply_state(
        self, seq: int, table: TableInfo, view: SeatView | None, events: list[Event]
    ) -> None:
        """Take a snapshot in and redraw (also used by tests to show a built view)."""
        game = self.game
        game.seq, game.table = seq, table
        game.received_at = time.monotonic()
        # Until our own takeover the seat was a bot's: what happened before it in this
        # snapshot is told with the view we had then (the spectators'), never as ours.
        if game.me is not None or not any(_took_over(e, game.seat) for e in events):
            game.view = view
        if view is not None and not game.log and not any(isinstance(e, Dealt) for e in events):
            events = [*hand_so_far(view), *events]  # arrived mid-hand: what was said so far
        for event in events:
            line = describe_event(game, event)
            if line is not None:
                game.log.append(line)
            if _took_over(event, game.seat):
                game.view = view
            if isinstance(event, TimedOut) and event.seat == game.me:  # the log may be hidden
                self.notify(_("Your time ran out: a bot made this one move for you."), markup=False)
        game.view = view
        self._switch("lobby" if table.state == TableState.LOBBY or view is None else "table")
        self.redraw()
        self._lead_pitched_card()
        self._ring_for_turn()
        self._offer_reclaim()

    # ---- a seat taken back on another device (client/screens/reclaim.py) --------------------

    def _offer_reclaim(self) -> None:
        """Watching, with an away seat carrying our name: offer (once) to ask for it."""
        from client.screens.reclaim import ReclaimOffer, own_away_seat

        game, connection = self.game, self.connection
        if not game.watching or connection is None:
            return
        seat = own_away_seat(game.table, self.options.name)
        if seat is None or game.table is None or (game.table_id, seat) in self._reclaim_offered:
            return
        self._reclaim_offered.add((game.table_id, seat))

        def answered(yes: bool | None) -> None:
            if yes and connection is self.connection:
                connection.reclaim(seat)

        self.push_screen(ReclaimOffer(game.table.seats[seat].name), answered)

    def _reclaiming(self, news: Reclaiming) -> None:
        """Asked to vouch for a watcher (a yes/no question), or told where a request of
        ours stands (a notice; "over" closes the question it settles)."""
        from client.screens.reclaim import VouchPrompt

        message, connection = news.message, news.connection
        if isinstance(message, ReclaimAsked):
            seat = message.seat
            prompt = VouchPrompt(message)

            def answered(yes: bool | None) -> None:
                if self._vouching.get(seat) is prompt:  # not settled meanwhile
                    del self._vouching[seat]
                    connection.vouch(seat, bool(yes))

            self._close_question(self._vouching.pop(seat, None))
            self._vouching[seat] = prompt
            self.push_screen(prompt, answered)
            return
        if message.status == "over":
            self._close_question(self._vouching.pop(message.seat, None))
            return
        severity: SeverityLevel = "warning" if message.status == "refused" else "information"
        self.notify(reclaim_words(message), severity=severity, markup=False, timeout=20)

    def _close_question(self, prompt: Any) -> None:
        """Close a vouching question that was settled elsewhere (nothing is sent: it is
        no longer in `_vouching`). One under another dialog stays; answering it later
        is told it was settled."""
        if prompt is not None and self.screen is prompt:
            prompt.dismiss(False)

    def redraw(self) -> None:
        """Every screen of the stack that shows the game draws it again (`GameChanged`,
        handled by `FirstShow`: the lobby, the table, the hand summary, the match end)."""
        for screen in self.screen_stack:
            screen.post_message(GameChanged(self.game))

    def _host_error(self, message: HostError) -> None:
        if message.fatal:
            return  # a fatal refusal ends the connection: the offline screen says it
        self.pitch_lead.cancel()  # whatever was refused, a pending pitch lead is off
        self.notify(
            printable(message.message, 200),
            title=_("The host says"),
            severity="warning",
            markup=False,
        )
        self.redraw()

    def _disconnected(self, message: Disconnected) -> None:
        connection = message.connection
        if connection.refusal == "bad_password" and connection.seat is None:
            self._ask_password(connection)
            return
        if message.closed:
            self.host_closed()
            return
        if message.moved is not None:
            host, port, table_id = message.moved
            if self.game.table_id:
                self.tokens.forget(self.game.table_id, self.options.name, connection.token)
            self.join(host, port, table_id=table_id)
            return
        hosted = self.hosted
        full = (
            connection.seat is None and connection.refusal == "table_full" and not connection.watch
        )
        if full and hosted is not None and connection.table_id == hosted.table_id:
            # The table hosted here (one resumed from its journal, say) keeps every seat
            # for its own player: watch it, rather than look for another table.
            notice = _(
                "Every seat is kept for its player, so you are watching. Each gets their "
                "seat back on reconnecting, or from another device once another player "
                "confirms it."
            )
            self._watch_instead(connection, notice, title=hosted.name)
            return
        if full and self.options.one_table:
            # A browser has no finder to go back to: it watches its one table instead,
            # saying why in the host's words (every seat a person's, or one kept for a
            # player with this name: a free seat is then not given, host/table.py).
            notice = _(
                "{reason} So you are watching. A seat kept for a player who lost the "
                "connection is offered to you here if it carries your name; reload the page "
                "to take a seat when one is free.",
                reason=printable(message.reason, 200),
            )
            self._watch_instead(connection, notice)
            return
        if full and not message.retrying:
            # Every seat is a person's: say so (the host's sentence) and offer to watch.
            self._offer_to_watch(connection, printable(message.reason, 200))
            return
        if (
            self.options.mode == "play"
            and connection.seat is None
            and not message.retrying
            and connection.refusal is None
        ):
            # `play` picked a table it could not sit at: say why, in the link's own words
            # (nothing listening, or no answer in time: under load a slow join read "That
            # table went away", which it had not), and look again.
            self.play_again = True
            self.finder_note = _(
                "Could not sit at {table}: {reason} Looking again.",
                table=self.game.table_name or self.connecting_to,
                reason=printable(message.reason, 200),
            )
            self.leave_table(keep_seat=True)
            self.redraw()
            return
        if self._offline is None:
            from client.screens.prompts import OfflineScreen

            self._offline = OfflineScreen()
            self.push_screen(self._offline)
        self._offline.update_reason(
            printable(message.reason, 200), retrying=message.retrying, trying_for=message.trying_for
        )

    def host_closed(self) -> None:
        """The host ended the table on purpose: back to the finder, the seat's token kept
        (a table resumed later is joined again from the finder, to the same seat)."""
        name = self.game.table_name or _("the table")
        watching = self.game.watching
        self.leave_table(keep_seat=True)
        if watching:  # a spectator has no seat to come back to
            self.finder_note = _(
                "The host closed the table ({table}). If it comes back, it shows in the "
                "finder again.",
                table=name,
            )
        else:
            self.finder_note = _(
                "The host closed the table ({table}). It is remembered: if it comes back, "
                "join it again to sit in your seat.",
                table=name,
            )
        self.notify(_("The host closed the table."), severity="warning", markup=False, timeout=10)

    def _offer_to_watch(self, refused: Connection, reason: str) -> None:
        """No seat for us at the table asked: the reason, and watch it or go back."""
        from client.screens.prompts import WatchOffer

        label = self.connecting_to

        def answered(watch: bool | None) -> None:
            if watch:
                notice = _("You are watching. When a seat comes free, join the table again.")
                self._watch_instead(refused, notice)
            else:
                self.finder_note = _("No free seat at {table}.", table=label)
                self.leave_table(keep_seat=True)

        self.push_screen(WatchOffer(label, reason), answered)

    def _watch_instead(self, refused: Connection, notice: str, title: str = "") -> None:
        """Every seat of the table asked is taken: watch it, and say why."""
        self.notify(notice, title=title, markup=False)
        self.join(
            refused.host,
            refused.port,
            password=refused.password,
            table_id=refused.table_id,
            watch=True,
        )

    def _ask_password(self, refused: Connection) -> None:
        """The table wants a (different) password: ask, and try again with it."""
        from client.screens.prompts import PasswordPrompt

        label = self.connecting_to
        given = self.options.password
        if refused.password is None and given:  # --password, kept for a table that asks
            self.join(refused.host, refused.port, password=given, table_id=refused.table_id)
            return

        def answered(password: str | None) -> None:
            if password is None:
                self.leave_table()
            else:
                self.join(refused.host, refused.port, password=password, table_id=refused.table_id)

        wrong = refused.password is not None
        self.push_screen(PasswordPrompt(label, wrong=wrong), answered)

    # ---- screens -----------------------------------------------------------------------------

    def _switch(self, mode: str) -> None:
        if self.current_mode == mode:
            return
        self._close_offline()
        try:
            self.switch_mode(mode)
        except UnknownModeError:
            return  # the app is closing (its modes are gone) as a connection's news came in
        if mode == "finder":
            self._reset_game_modes()

    def _reset_game_modes(self) -> None:
        """Fresh lobby and table screens for the next table."""
        for mode in ("lobby", "table"):
            if mode in self._screen_stacks and mode != self.current_mode:
                self.remove_mode(mode)
                self.add_mode(mode, self.MODES[mode])

    def _close_offline(self) -> None:
        offline, self._offline = self._offline, None
        if offline is not None:
            self.close_modal(offline)

    def close_modal(self, screen: PitchModal[Any]) -> None:
        """Close a modal wherever it is in the current stack: at once on top, or when
        the prompt above it has been answered (see `PitchModal.dismiss_when_on_top`)."""
        if screen in self.screen_stack:
            screen.dismiss_when_on_top()
