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
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, DataTable, Footer, Input, Static

from client.connection import parse_address
from client.screens.base import PitchScreen
from client.screens.prompts import PasswordPrompt, ResumeOffer
from client.text import plain
from pitchnet.protocol import MAX_NAME, PROTOCOL_VERSION

log = logging.getLogger(__name__)


def _unfinished_table() -> Any:
    """The most recent table hosted on this machine whose match never finished."""
    from host.journal import unfinished_tables

    try:
        return next(unfinished_tables(), None)
    except OSError as exc:
        log.warning("cannot look for unfinished tables: %s", exc)
        return None


class TablesChanged(Message):
    def __init__(self, tables: list[Any]) -> None:
        super().__init__()
        self.tables = tables


def table_row(found: Any, ascii_only: bool) -> tuple[Text, ...]:
    lock = ("pw" if ascii_only else "🔒") if found.password else ""
    state = {"lobby": "in lobby", "playing": "playing", "over": "finished"}.get(found.state, "?")
    return (
        Text(lock),
        # The name, and under it the house rules ("joker, to 10"): a row is two lines high.
        plain(found.name, limit=MAX_NAME)
        .append("\n")
        .append_text(plain(found.rules_label, style="dim", limit=MAX_NAME)),
        plain(f"{found.host}:{found.port}", limit=46),
        Text(f"{found.taken}/{found.seats}"),
        Text(state, style="green" if found.state == "lobby" else "yellow"),
    )


class FinderScreen(PitchScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("h", "host", "Host a table here"),
        Binding("a", "address", "Enter an address"),
        Binding("ctrl+q", "app.quit", "Quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.browser: Any = None
        self.found: dict[str, Any] = {}
        self._auto_host_pending = False

    def compose(self) -> ComposeResult:
        with Vertical(id="finder", classes="panel"):
            yield Static(Text("Tables on your network", style="bold"), id="finder-title")
            yield Static("Looking for tables...", id="finder-status", markup=False)
            yield DataTable(id="tables", cursor_type="row", zebra_stripes=False)
            with Horizontal(id="finder-address"):
                yield Input(placeholder="host:port", id="address")
                yield Button("Join", id="join-address", compact=True)
                yield Button("Host a table here", id="host", variant="primary", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        tables = self.query_one("#tables", DataTable)
        for label, width in (("", 2), ("Table", 24), ("Address", 21), ("Seats", 5), ("", 9)):
            tables.add_column(label, width=width)
        self.app_options = self.app.options
        self._auto_host_pending = self.app_options.mode == "play"
        if self._auto_host_pending:
            self.set_timer(self.app_options.play_browse_seconds, self._auto_host)

    # ---- browsing ----------------------------------------------------------------------------

    def on_screen_resume(self) -> None:
        if self.browser is None:
            self.run_worker(  # Textual#6386: its WorkType refuses an async def
                self._browse,  # type: ignore[arg-type]
                group="browse",
                exclusive=True,
            )
        self.query_one("#tables", DataTable).focus()

    async def on_screen_suspend(self) -> None:
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
            self._status(f"Cannot look for tables here ({exc}). Enter an address instead.")
            return
        self._tables_changed(list(self.browser.tables))

    def _tables_changed(self, tables: list[Any]) -> None:
        self.post_message(TablesChanged(list(tables)))

    def on_tables_changed(self, event: TablesChanged) -> None:
        widget = self.query_one("#tables", DataTable)
        keys = list(self.found)
        keep = keys[widget.cursor_row] if 0 <= widget.cursor_row < len(keys) else None
        widget.clear()
        self.found = {}
        ascii_only = self.app_options.ascii_only
        for found in event.tables:
            key = f"{found.table_id}@{found.host}:{found.port}"
            if key in self.found:
                continue
            self.found[key] = found
            widget.add_row(*table_row(found, ascii_only), key=key, height=2)
        if keep in self.found:
            widget.move_cursor(row=list(self.found).index(keep))
        count = len(self.found)
        if count:
            self._status(f"{count} table(s) found. Enter joins; h hosts your own.")
        elif not self._auto_host_pending:
            self._status("No tables found yet. Host one here (h), or enter an address (a).")

    def _status(self, text: str) -> None:
        self.query_one("#finder-status", Static).update(text)

    def _auto_host(self) -> None:
        """`pitchnet play`: nothing found in the first moment, so host a table here."""
        if not self._auto_host_pending:
            return
        self._auto_host_pending = False
        if not self.found and self.app.screen is self:
            unfinished = _unfinished_table()
            if unfinished is None:
                self._host_new()
                return

            def answered(resume: bool | None) -> None:
                if resume:
                    self._status(f"Resuming {unfinished.name}...")
                    self.app.host_here(auto_start=False, resume=unfinished.table_id)
                else:
                    self._host_new()

            self.app.push_screen(ResumeOffer(unfinished.name), answered)
        elif not self.found:
            self._status("No tables found yet. Host one here (h), or enter an address (a).")

    def _host_new(self) -> None:
        self._status("No tables found: hosting one here...")
        self.app.host_here(auto_start=True)

    # ---- joining ----------------------------------------------------------------------------

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        found = self.found.get(str(event.row_key.value))
        if found is not None:
            self.join_found(found)

    def join_found(self, found: Any) -> None:
        self._auto_host_pending = False
        if found.version > PROTOCOL_VERSION:
            self.notify(
                f"That table speaks protocol {found.version}; this client speaks "
                f"{PROTOCOL_VERSION}. Update pitchnet on one side.",
                severity="error",
                markup=False,
            )
            return
        app: Any = self.app
        given = self.app_options.password  # --password: asked only if it is wrong
        if not found.password or given:
            password = given if found.password else None
            app.join(
                found.host, found.port, table_id=found.table_id, password=password, label=found.name
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
                )

        self.app.push_screen(PasswordPrompt(found.name), answered)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.join_address(event.value)

    def join_address(self, text: str) -> None:
        try:
            host, port = parse_address(text)
        except ValueError as exc:
            self.notify(f"Not an address: {exc}", severity="error", markup=False)
            return
        self._auto_host_pending = False
        self.app.join(host, port)

    def action_host(self) -> None:
        self._auto_host_pending = False
        self.app.host_here(auto_start=False)

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
