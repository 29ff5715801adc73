"""The table finder: tables seen on the LAN (live), a manual address, or host one here.

Browsing runs only while this screen is showing. The browser is injected through the
app (`browser_factory`), so tests and snapshots can hand it a fixed list; the real one
is client.discovery.TableBrowser, imported only when the finder is first shown so
`pitchnet join HOST` never pays for zeroconf.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, DataTable, Input, Static

from client.connection import parse_address
from client.discovery import FoundTable, claimed_twice
from client.hosting import TableSetup
from client.screens.base import PitchScreen
from client.screens.prompts import BackgroundOffer, PasswordPrompt, ResumeOffer, SeatOffer
from client.text import level_name, plain
from client.widgets.footer import PitchFooter
from pitchnet.i18n import N_, _, ngettext, number
from pitchnet.protocol import MAX_NAME, PROTOCOL_VERSION, TableState, can_join, version_problem
from pitchnet.text import printable

log = logging.getLogger(__name__)


def best_table(tables: list[FoundTable], mine: set[str] | None = None) -> FoundTable | None:
    """The table `pitchnet play` offers first: one where this player still holds a seat
    (`mine`: table ids with a remembered token), else one with a seat to take (an open
    lobby, or a seat a bot plays), in this protocol; lobbies before matches, then the one
    where most people sit, then the oldest (where lone lobbies move to, client.app)."""
    mine = mine or set()
    disputed = claimed_twice(tables)  # one of them is an impostor: the player must choose
    usable = [
        t
        for t in tables
        if can_join(t.version) and t.table_id not in disputed and (t.joinable or t.table_id in mine)
    ]
    if not usable:
        return None
    return min(
        usable,
        key=lambda t: (
            t.table_id not in mine,
            t.state != TableState.LOBBY,
            -t.taken,
            t.born or 2**62,
            t.table_id,
        ),
    )


def settings_differ(found: FoundTable, chosen: TableSetup) -> list[str]:
    """How the setup screen's `chosen` table differs from `found`'s advert, in words
    ("3 players instead of 4"); empty when joining it gives the game that was chosen.
    Browsers and the table's name are not settings of the game."""
    differ = []
    if found.seats != chosen.players:
        differ.append(_("{n} players instead of {chosen}", n=found.seats, chosen=chosen.players))
    if found.target != chosen.target:
        differ.append(_("a game to {n} instead of {chosen}", n=found.target, chosen=chosen.target))
    if found.rules != chosen.rules.short():
        differ.append(_("{name} rules", name=found.rules_label))
    level = chosen.bot_level
    if found.bot_level and level and found.bot_level != level:
        differ.append(
            _(
                "{level} bots instead of {chosen}",
                level=level_name(found.bot_level),
                chosen=level_name(level),
            )
        )
    if chosen.password:
        differ.append(_("no password"))
    return differ


NO_TABLES_YET = N_("No tables found yet. Host one here (h), or enter an address (a).")
ENTER_JOINS = N_("Enter joins the highlighted table, w watches; h hosts your own.")


def _unfinished_table() -> Any:
    """The most recent table hosted on this machine whose match never finished."""
    from client.hosting import unfinished_tables

    try:
        return next(unfinished_tables(), None)
    except OSError as exc:
        log.warning("cannot look for unfinished tables: %s", exc)
        return None


class TablesChanged(Message):
    def __init__(self, tables: list[FoundTable]) -> None:
        super().__init__()
        self.tables = tables


DISPUTED_MARK = N_("⚠ two claim this table")
"""Under the name of a table whose id two addresses advertise (the rules line's place)."""


def disputed_sentence(claimants: list[FoundTable]) -> str:
    """The finder's sentence about two adverts claiming one table (the rows show where)."""
    return _(
        "⚠ Two tables claim to be {table}: ask its host which address is theirs.",
        table=printable(claimants[0].name, MAX_NAME),
    )


def table_row(
    found: FoundTable, ascii_only: bool, disputed: bool = False, mine: bool = False
) -> tuple[Text, ...]:
    """The finder's cells for one table; `mine`: this player's seat token there is
    remembered, so the seat it lists as taken (or as free, a bot playing it) is theirs."""
    lock = ("pw" if ascii_only else "🔒") if found.password else ""
    states: dict[str, str] = {
        TableState.LOBBY: _("in lobby"),
        TableState.PLAYING: _("playing"),
        TableState.OVER: _("finished"),
    }
    state = states.get(found.state, "?")
    if found.state != TableState.LOBBY and found.joinable:
        # A seat a bot plays, which a newcomer can take ("4/4 seat free" read as a
        # contradiction, the bot's seat counted as taken). TRANSLATORS: 11 cells at most.
        state = _("bot's seat")
    colour = "green" if found.state == TableState.LOBBY else "yellow"
    if not can_join(found.version):  # joining says why (protocol.version_problem)
        state = _("too old") if found.version < PROTOCOL_VERSION else _("too new")
        colour = "red"
    under = plain(found.rules_label, style="dim", limit=MAX_NAME)
    if mine and found.state != TableState.LOBBY and can_join(found.version):
        # Said under the name, which shows at every width (the state's column does not
        # at 40), instead of "bot's seat" or "playing" as if the seat were anyone's.
        state, colour = _("your seat"), "bold green"
        under = Text(_("your seat is kept"), style="bold green")
    if disputed:  # the same table id at two addresses: at most one is the real table
        mark = _(DISPUTED_MARK)
        under = Text(mark.replace("⚠", "!!") if ascii_only else mark, style="bold red")
    # Under the state, how well the table's bots play (a host too old to say: nothing).
    # With a turn timer, how long a person has to move ("normal, 30s": the column is 11).
    level = "\n" + _("{level} bots", level=level_name(found.bot_level)) if found.bot_level else ""
    if found.turn_timer:
        kind = level_name(found.bot_level) if found.bot_level else _("turns")
        level = "\n" + _("{level}, {seconds}s", level=kind, seconds=found.turn_timer)
    return (
        Text(lock),
        # The name, and under it the house rules ("joker, to 10"): a row is two lines high.
        plain(found.name, limit=MAX_NAME).append("\n").append_text(under),
        plain(f"{found.host}:{found.port}", limit=46),
        Text(f"{number(found.taken)}/{number(found.seats)}"),
        Text(state, style=colour).append(level, style="dim"),
    )


COLUMNS = (("", 2), (N_("Table"), 24), (N_("Address"), 21), (N_("Seats"), 5), ("", 11))
"""Each column's heading (marked with `N_`, translated when laid out) and width."""
NARROW_BELOW = 76
"""Below this many columns the address column goes (the table, seats and state stay)."""
HOST_BUTTON_FROM = 50
SHORT_BELOW = 24
"""Below this many lines the finder drops its borders and margins and the address row
is one line: at 40x15 a note of four lines left the list no row at all (its border
only), after a lost connection on the LAN game night."""


class FinderScreen(PitchScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("h", "host", N_("Host a table here")),
        Binding("a", "address", N_("Enter an address")),
        Binding("w", "watch", N_("Watch")),
        Binding("ctrl+q", "app.quit", N_("Quit")),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.browser: Any = None
        self.found: dict[str, FoundTable] = {}
        self._auto_host_pending = False
        self._looks = 0
        self._first_look_started = False
        self._narrow: bool | None = None
        self._shown_tables: list[FoundTable] = []
        self._setting_up = False
        """The setup screen is open over the finder (which keeps browsing meanwhile)."""
        self._setup_from_play = False

    def compose(self) -> ComposeResult:
        with Vertical(id="finder", classes="panel"):
            yield Static(Text(_("Tables on your network"), style="bold"), id="finder-title")
            yield Static("", id="finder-note", markup=False)
            yield Static(_("Looking for tables..."), id="finder-status", markup=False)
            yield DataTable(id="tables", cursor_type="row", zebra_stripes=False)
            with Horizontal(id="finder-address"):
                yield Input(placeholder=_("host:port"), id="address")
                yield Button(_("Join"), id="join-address", compact=True)
                yield Button(_("Host a table here"), id="host", variant="primary", compact=True)
        yield PitchFooter()

    def on_mount(self) -> None:
        self._lay_out_columns(self.app.size.width)
        self._lay_out_height(self.app.size.height)
        self._lay_out_width(self.app.size.width)
        self.app_options = self.app.options
        self._auto_host_pending = self.app_options.mode == "play"
        if self._auto_host_pending:
            self._offer_background_table()
        # `play`'s first look is timed from when browsing has started (`_browse`), not
        # from here: on a busy laptop loading zeroconf alone can take most of a second,
        # and a look that short would host beside a table that was there all along.

    def _offer_background_table(self) -> None:
        """`play` on a laptop that runs a table in the background (a window that hosted
        it quit with "keep it running"): say so first, to take it back or end it."""
        from client.background import running_here

        try:
            running = running_here()
        except OSError as exc:
            log.warning("cannot look for tables running in the background: %s", exc)
            return
        if not running:
            return
        table = running[0]
        self._auto_host_pending = False  # nothing is joined or hosted before the answer

        def answered(choice: str | None) -> None:
            if choice is None:  # left running: `play` goes on, and finds it like any table
                self._auto_host_pending = True
                if self.browser is not None:
                    self._start_first_look()
                return
            self.run_worker(self._stop_background(table, choice), group="background")

        self.app.push_screen(BackgroundOffer(table.name), answered)

    async def _stop_background(self, table: Any, choice: str) -> None:
        from client.background import stop

        back = choice == "back"
        name = printable(table.name, MAX_NAME)
        if back:
            self._status(_("Taking {table} back...", table=name))
        else:
            self._status(_("Ending {table}...", table=name))
        if not await stop(table, hand_back=back):
            self._status(_("{table} did not stop; it still runs in the background.", table=name))
            return
        if back:
            self.app.host_here(setup=TableSetup(web_port=table.web_port), resume=table.table_id)
            return
        self.app.finder_note = _("{table} has ended for everyone.", table=name)
        self.on_screen_resume()

    def _lay_out_columns(self, width: int) -> bool:
        """(Re)build the columns for this width; True if they changed."""
        narrow = width < NARROW_BELOW
        if narrow == self._narrow:
            return False
        self._narrow = narrow
        tables = self.query_one("#tables", DataTable)
        tables.clear(columns=True)
        for label, column_width in COLUMNS:
            if not (narrow and label == "Address"):  # the key, not its translation
                tables.add_column(_(label), width=column_width)
        return True

    def _lay_out_height(self, height: int) -> None:
        short = height < SHORT_BELOW  # (a screen being taken down has no parts to lay out)
        self.query("#finder").set_class(short, "-short")
        for box in self.query("#address").results(Input):
            box.compact = short

    def _lay_out_width(self, width: int) -> None:
        """Below HOST_BUTTON_FROM columns the host button goes (the footer's `h` says the
        same): beside it, the address box had room for one letter of "host:port"."""
        self.query("#host").set(display=width >= HOST_BUTTON_FROM)

    def on_resize(self, event: events.Resize) -> None:
        self._lay_out_height(event.size.height)
        self._lay_out_width(event.size.width)
        if self._lay_out_columns(event.size.width):
            self.post_message(TablesChanged(list(self._shown_tables)))

    # ---- browsing ----------------------------------------------------------------------------

    def on_screen_resume(self) -> None:
        note = self.query_one("#finder-note", Static)
        note.update(self.app.finder_note)
        note.display = bool(self.app.finder_note)
        if getattr(self.app, "play_again", False) and not self._auto_host_pending:
            # `play` picked a table that went away before we sat down: look again.
            self.app.play_again = False
            self._auto_host_pending, self._looks, self._first_look_started = True, 0, False
            if self.browser is not None:
                self._start_first_look()  # else `_browse` starts it once browsing has begun
            best = best_table(list(self.found.values()), self._mine())
            if best is not None:
                self.call_after_refresh(self._look_again)
        if self.browser is None:
            self.run_worker(  # Textual#6386: its WorkType refuses an async def
                self._browse,  # type: ignore[arg-type]
                group="browse",
                exclusive=True,
            )
        self.query_one("#tables", DataTable).focus()

    async def on_screen_suspend(self) -> None:
        if self._setting_up:
            return  # the setup screen shows over us: keep looking, to offer what opens
        await self.stop_browsing()

    async def on_unmount(self) -> None:
        await self.stop_browsing()  # the app is closing: zeroconf sockets must not outlive it

    async def stop_browsing(self) -> None:
        browser, self.browser = self.browser, None
        if browser is not None:
            await browser.close()

    async def _browse(self) -> None:
        factory = self.app.browser_factory
        try:
            self.browser = factory(self.app_options.interface, self._tables_changed)
            await self.browser.start()
        except Exception as exc:  # zeroconf can fail in many ways; the address box still works
            log.warning("browsing failed: %s", exc)
            self.browser = None
            from pitchnet.errors import describe_os_error

            why = (
                describe_os_error(exc, host=self.app_options.interface)
                if isinstance(exc, OSError)
                else _("the network does not allow it.")
            )
            self._status(
                _("Cannot look for tables here: {reason} Enter an address instead.", reason=why)
            )
            self._start_first_look()
            return
        self._start_first_look()
        self._tables_changed(list(self.browser.tables))

    def _start_first_look(self) -> None:
        if self._auto_host_pending and not self._first_look_started:
            self._first_look_started = True
            self.set_timer(self.app.play_browse_seconds, self._look_again)
            # `play` may host in a moment: host/ is imported meanwhile, in the look's idle
            # time, so that Enter on the setup screen opens the table without the imports.
            from client.hosting import warm_up

            warm_up()

    def _tables_changed(self, tables: list[FoundTable]) -> None:
        self.post_message(TablesChanged(list(tables)))

    def on_tables_changed(self, event: TablesChanged) -> None:
        widget = self.query_one("#tables", DataTable)
        keys = list(self.found)
        keep = keys[widget.cursor_row] if 0 <= widget.cursor_row < len(keys) else None
        widget.clear()
        self.found = {}
        self._shown_tables = list(event.tables)
        ascii_only = self.app_options.ascii_only
        disputed = claimed_twice(event.tables)
        mine = self._mine(event.tables)
        for found in event.tables:
            key = f"{found.table_id}@{found.host}:{found.port}"
            if key in self.found:
                continue
            self.found[key] = found
            cells = table_row(found, ascii_only, found.table_id in disputed, found.table_id in mine)
            if self._narrow:
                cells = cells[:2] + cells[3:]  # no address column
            widget.add_row(*cells, key=key, height=2)
        if keep in self.found:
            widget.move_cursor(row=list(self.found).index(keep))
        count = len(self.found)
        self._offer_to_setup()
        if self._auto_host_pending and self.app.screen is self:
            best = best_table(list(self.found.values()), self._mine())
            if best is not None:  # `play`: a seat is there to take, so take it now
                self._take(best)
                return
        status = self.query_one("#finder-status", Static)
        status.set_class(bool(disputed), "warning")  # a warning may take more than one line
        if disputed:
            sentence = disputed_sentence(next(iter(disputed.values())))
            self._status(sentence.replace("⚠", "!!") if ascii_only else sentence)
        elif count and not any(t.open or t.table_id in mine for t in self.found.values()):
            # Enter would only hear "every seat is taken" (the second game night).
            self._status(
                ngettext(
                    "{n} table found, every seat taken: w watches; h hosts your own.",
                    "{n} tables found, every seat taken: w watches; h hosts your own.",
                    count,
                )
            )
        elif count:
            self._status(
                ngettext(
                    "{n} table found. Enter joins, w watches; h hosts your own.",
                    "{n} tables found. Enter joins, w watches; h hosts your own.",
                    count,
                )
            )
        elif not self._auto_host_pending:
            self._status(_(NO_TABLES_YET))

    def _status(self, text: str) -> None:
        self.query_one("#finder-status", Static).update(text)

    def _mine(self, tables: list[FoundTable] | None = None) -> set[str]:
        """Tables here (or among `tables`) where this player's seat token is remembered."""
        name, tokens = self.app_options.name, self.app.tokens
        seen = self.found.values() if tables is None else tables
        return {t.table_id for t in seen if tokens.find(name, table_id=t.table_id)}

    def _look_again(self) -> None:
        """`pitchnet play` found no seat in the first look: wait a random moment and look
        once more, then offer to host."""
        if not self._auto_host_pending:
            return
        best = best_table(list(self.found.values()), self._mine())
        if best is not None and self.app.screen is self:
            self._take(best)
            return
        # No second, random look: two people on setup screens converge when the second
        # presses Enter (a table with the same settings already open is joined instead).
        self._auto_host()

    def _take(self, best: FoundTable) -> None:
        """`play` found a seat: join at once when it is our own remembered seat or an
        open lobby; a match among people we never sat with is joined only on a key."""
        if best.state == TableState.LOBBY or best.table_id in self._mine():
            self._status(_("Joining {table}...", table=printable(best.name, MAX_NAME)))
            self.join_found(best)
            return
        self._auto_host_pending = False  # the answer decides; nothing happens by itself
        self._status(
            _(
                "{table} is playing a match: sit, watch, or choose a table.",
                table=printable(best.name, MAX_NAME),
            )
        )

        def answered(choice: str | None) -> None:
            if choice is None:
                self._status(_(ENTER_JOINS))
                return
            self.join_found(best, watch=choice == "watch")

        people = max(0, best.taken - best.open)  # the seats taken, less those bots hold free
        left = self.app.tokens.left(self.app_options.name, best.table_id)
        self.app.push_screen(SeatOffer(best.name, people, left=left), answered)

    def _auto_host(self) -> None:
        """`pitchnet play`: no seat on the network, so set up a table here."""
        if not self._auto_host_pending:
            return
        self._auto_host_pending = False
        if best_table(list(self.found.values()), self._mine()) is None and self.app.screen is self:
            full = self._full_match()
            if full is not None:  # people are playing here: say so before any setup
                self._offer_full_table(full)
                return
            self._host_or_resume()
        elif not self.found:
            self._status(_(NO_TABLES_YET))

    def _full_match(self) -> FoundTable | None:
        """A match on the network whose every seat is a person's (the fullest first)."""
        disputed = claimed_twice(list(self.found.values()))
        full = [
            t
            for t in self.found.values()
            if t.state == TableState.PLAYING
            and t.open == 0
            and can_join(t.version)
            and t.table_id not in disputed
        ]
        return max(full, key=lambda t: (t.taken, -(t.born or 0)), default=None)

    def _offer_full_table(self, full: FoundTable) -> None:
        from client.screens.prompts import FullTableOffer

        def answered(choice: str | None) -> None:
            if choice == "watch":
                self.join_found(full, watch=True)
            elif choice == "host":
                self._host_or_resume()
            else:
                self._status(_(ENTER_JOINS))

        self.app.push_screen(FullTableOffer(full.name), answered)

    def _host_or_resume(self) -> None:
        """No seat to take: set up a table here, or resume the one this laptop left."""
        unfinished = _unfinished_table()
        if unfinished is None:
            self._host_new()
            return

        def answered(resume: bool | None) -> None:
            if resume:
                self._status(_("Resuming {table}...", table=printable(unfinished.name, MAX_NAME)))
                self.app.host_here(resume=unfinished.table_id)
            else:
                self._host_new()

        self.app.push_screen(ResumeOffer(unfinished.name), answered)

    def _offer_to_setup(self) -> None:
        """While the setup screen shows, a table with a seat for us that appears on the
        network is offered there ("Alice's table just opened: Ctrl+T joins it")."""
        from client.screens.setup import SetupScreen

        screen = self.app.screen
        if not self._setting_up or not isinstance(screen, SetupScreen):
            return
        best = best_table(list(self.found.values()), self._mine())
        # Nothing pressed there yet: the look simply found it a moment late (a busy
        # laptop, a slow answer), so `play` goes on as if the look had seen it.
        late = best is not None or self._full_match() is not None
        if self._setup_from_play and not screen.touched and late:
            screen.give_way()
            return
        if best is not None and (best.state == TableState.LOBBY or best.table_id in self._mine()):
            screen.offer(best)

    def _open_lobby(self) -> FoundTable | None:
        """The open lobby on the network `play` would join (None if there is none)."""
        best = best_table(list(self.found.values()), self._mine())
        if best is None or best.state != TableState.LOBBY or best.password:
            return None
        return best

    def _host_new(self, *, from_play: bool = True) -> None:
        """The setup screen, then a table hosted here and its lobby (never a dealt hand)."""
        from client.screens.setup import LOOK_AGAIN, JoinInstead, SetupAnswer, SetupScreen

        note = ""
        if from_play:  # why a table is set up here: none found, or none with room
            note = (
                _("No table on the network has a free seat.")
                if self.found
                else _("No table found on your network yet.")
            )
        self._status(_("Setting up a table here..."))
        self._setting_up = True
        self._setup_from_play = from_play

        def answered(chosen: SetupAnswer) -> None:
            self._setting_up = False
            if chosen == LOOK_AGAIN:
                self._auto_host_pending = True
                self.call_after_refresh(self._look_again)
                return
            if isinstance(chosen, JoinInstead):
                self.join_found(chosen.table)
                return
            if chosen is None or isinstance(chosen, str):
                self._status(_(NO_TABLES_YET))
                return
            there = self._open_lobby()
            differ = settings_differ(there, chosen) if there is not None else []
            if there is not None and not differ:  # it opened first: one table, not two
                name = printable(there.name, MAX_NAME)
                self._status(
                    _("{table} opened first with these settings: joining it...", table=name)
                )
                self.app.notify(
                    _("{table} opened first with the same settings: joining it.", table=name),
                    markup=False,
                )
                self.join_found(there)
                return
            self._status(_("Opening {table}...", table=printable(chosen.name, MAX_NAME)))
            if there is not None:  # both stay: say so, and never move people between them
                self.app.notify(
                    _(
                        "{table} is open too, with {differences}: two tables now, each with "
                        "its own settings.",
                        table=printable(there.name, MAX_NAME),
                        differences=", ".join(differ),
                    ),
                    markup=False,
                )
            self.app.host_here(setup=chosen, may_move=from_play and there is None)

        self.app.push_screen(SetupScreen(self.app_options.name, note=note), answered)
        self.call_after_refresh(self._offer_to_setup)  # one already seen, if any

    # ---- joining ----------------------------------------------------------------------------

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        found = self.found.get(str(event.row_key.value))
        if found is not None:
            self.join_found(found)

    def join_found(self, found: FoundTable, *, watch: bool = False) -> None:
        self._auto_host_pending = False
        problem = version_problem(found.version)
        if problem is not None:  # never send a hello it cannot read, or that is in clear
            self.notify(problem, severity="error", markup=False)
            return
        disputed = claimed_twice(list(self.found.values())).get(found.table_id)
        if disputed:  # the player chose: our secrets are proven, never sent, so go
            self.notify(disputed_sentence(disputed), severity="warning", markup=False)
        app = self.app
        given = self.app_options.password  # --password: asked only if it is wrong
        if not found.password or given:
            password = given if found.password else None
            app.join(
                found.host,
                found.port,
                table_id=found.table_id,
                password=password,
                label=found.name,
                watch=watch,
            )
            return

        def answered(password: str | None) -> None:
            if password is not None:
                app.join(
                    found.host,
                    found.port,
                    table_id=found.table_id,
                    password=password,
                    label=found.name,
                    watch=watch,
                )

        self.app.push_screen(PasswordPrompt(found.name), answered)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.join_address(event.value)

    def join_address(self, text: str) -> None:
        try:
            host, port = parse_address(text)
        except ValueError as exc:
            self.notify(
                _("Not an address: {reason}", reason=str(exc)), severity="error", markup=False
            )
            return
        self._auto_host_pending = False
        self.app.join(host, port)

    def action_host(self) -> None:
        self._auto_host_pending = False
        self._host_new(from_play=False)

    def action_watch(self) -> None:
        """Watch the highlighted table without taking a seat."""
        widget = self.query_one("#tables", DataTable)
        keys = list(self.found)
        if 0 <= widget.cursor_row < len(keys):
            self.join_found(self.found[keys[widget.cursor_row]], watch=True)

    def action_address(self) -> None:
        self.query_one("#address", Input).focus()

    @on(Button.Pressed, "#host")
    def _host_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_host()

    @on(Button.Pressed, "#join-address")
    def _join_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.join_address(self.query_one("#address", Input).value)
