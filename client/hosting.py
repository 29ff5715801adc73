"""The one seam between client/ and host/: the window that hosts a table.

A `pitchnet play` window may host a table in its own process (and serve it to
browsers); `pitchnet host --web` starts a client process per browser. Both need the
other side, and this module is the only place where they meet (ARCHITECTURE.md, "The
seam"; tests/test_edges.py keeps it so):

- no module of client/ but this one imports host/; this one imports it lazily, when
  a table is hosted, its web join served or a journal looked up, so a window that
  only joins loads none of the host (start-up time: benchmarks/gamenight.py);
- host/ imports nothing of client/ but this module (host/web.py: the browser
  session's environment, its seat file, the page's joining marks).

The window asks its table what it may know through `HostServer.facts()` (a
`HostedFacts`: what anyone at the table could see, and the options it was opened
with), never by reading the table or its referee.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from client.tokens import TokenStore
from client.widths import joining_marks
from pitchnet.house_rules import HouseRules
from pitchnet.i18n import _
from pitchnet.rules import DEFAULT_RULES

if TYPE_CHECKING:
    from host.journal import TableRecord
    from host.server import HostedFacts as HostedFacts
    from host.server import HostServer
    from host.web import WebServer as WebServer

__all__ = [
    "AWAY_META",
    "KEYBOARD_META",
    "LANG_ENV",
    "NAME_ENV",
    "PASSWORD_ENV",
    "REGIONS_ENV",
    "SEATS_ENV",
    "SPARE_FLAG",
    "TABLE_ENV",
    "HostedFacts",
    "HostedTable",
    "HostingConfig",
    "HostingError",
    "TableSetup",
    "joining_marks",
    "qr_text",
    "seat_kept",
    "tables_dir",
    "unfinished_tables",
]

log = logging.getLogger(__name__)

# ---- a browser's session: what host/web.py and client/web_session.py agree on ----------

TABLE_ENV = "PITCHNET_WEB_TABLE"
NAME_ENV = "PITCHNET_WEB_NAME"
PASSWORD_ENV = "PITCHNET_WEB_PASSWORD"
SEATS_ENV = "PITCHNET_WEB_SEATS"
LANG_ENV = "PITCHNET_WEB_LANG"
"""The language the browser's player reads (its Accept-Language, or the name page's choice)."""
REGIONS_ENV = "PITCHNET_WEB_REGIONS"
"""Tests only: a file this session keeps up to date with where its cards and buttons
are on screen, in cells, so a browser test knows where to click on the canvas."""

KEYBOARD_META = "keyboard"
"""The meta message (Textual's web driver to host/web.py, passed on to the page as
["keyboard", wanted]) that says whether the screen asks for text: a phone's page keeps
its on-screen keyboard shut for taps on cards and opens it only then."""
AWAY_META = "away"
"""The meta message (host/web.py to the session's process) that says its page was closed
on purpose (or reloaded: a page cannot tell): the client tells the table `away`, so a bot
plays the seat at once while its token stays in the seat file, then the session ends."""
SPARE_FLAG = "--spare"
"""Run as the web server's spare: import everything now, then wait on stdin for the
session's environment (one line of JSON), so a browser that arrives does not wait for
Python and Textual to load (host/web_spare.py)."""


def seat_kept(seats_file: Path, name: str, table_id: str, *, given_up: bool = False) -> bool:
    """A browser session's seat file holds a token of `name`'s for that table (with
    `given_up`, a seat it gave up counts too: the table may still know its older
    tokens). The web server reads the file its session's client writes."""
    store = TokenStore(seats_file)
    return store.find(name, table_id=table_id, given_up=given_up) is not None


# ---- this laptop's tables, for the finder and the background host ------------------------


def tables_dir() -> Path:
    """The folder of this laptop's table journals (and of background hosts' notes)."""
    from host.journal import tables_dir as journals

    return journals()


def unfinished_tables() -> Iterator[TableRecord]:
    """The tables this laptop hosted whose match never finished, newest first."""
    from host.journal import unfinished_tables as unfinished

    return unfinished()


def qr_text(url: str) -> str:
    """The QR code of a web address, in half blocks (the `w` window's)."""
    from host.web_qr import qr_text as qr

    return qr(url)


# ---- a table hosted in this window --------------------------------------------------------


class HostingError(Exception):
    """The table could not be hosted; the message is the sentence the window shows."""


@dataclass(frozen=True)
class TableSetup:
    """A table as its host chose it on the setup screen: the game and the table's own
    options. The one typed shape that goes from the screen through the app to
    `HostedTable.open`; its fields are `HostConfig`'s of the same names (tests/
    test_shapes.py keeps them so), `web_port` aside."""

    name: str = ""
    """"": "<player>'s table" (`PitchApp.host_config` names it)."""
    players: int = 4
    partnership: bool = False
    target: int = 7
    rules: HouseRules = DEFAULT_RULES
    password: str | None = None
    bot_level: str = ""
    """"": the host's default level."""
    reactions: bool = True
    web_port: int | None = None
    """Serve the table to browsers on this port (0: any free one); None: not served."""


@dataclass(frozen=True)
class HostingConfig:
    """How this window hosts a table: its `setup`, where (`interface`), and what the
    process decides beyond the game: the table to `resume`, the port, the advert, the
    bots' pace and the deck's seed (the last four the tests' to set; a player gets the
    host's defaults)."""

    setup: TableSetup = field(default_factory=TableSetup)
    interface: str | None = None
    resume: str | None = None
    port: int | None = None
    advertise: bool = True
    bot_delay: float | None = None
    seed: int | None = None

    def host_fields(self) -> dict[str, object]:
        """The `HostConfig` fields this sets (those left at None or "" take the host's
        defaults)."""
        chosen = {k: v for k, v in asdict(self.setup).items() if k != "web_port"}
        chosen["rules"] = self.setup.rules  # asdict copies the rules into a plain dict
        chosen.update(interface=self.interface, advertise=self.advertise, resume=self.resume)
        chosen.update(port=self.port, bot_delay=self.bot_delay, seed=self.seed)
        return {k: v for k, v in chosen.items() if v is not None and v != ""}


HOST_MODULES = ("host.server", "host.journal", "pitchnet.errors")
"""What `HostedTable.open` imports (about 0.16 s of a table's opening, most of it)."""


def warm_up() -> None:
    """Import what hosting needs in a thread, while `play` looks for tables (its first
    look is half a second of waiting), so that Enter on the setup screen opens the table
    without waiting for the imports (Enter to the lobby took about 0.5 s, issue 25 asks
    for less). `join`, `watch` and the finder never call this and load none of host/.
    The import lock keeps it safe: `open` waits for it if it must."""
    import importlib
    import threading

    def load() -> None:
        for name in HOST_MODULES:
            try:
                importlib.import_module(name)
            except Exception:  # `open` imports it again, and says why
                log.debug("warming up %s failed", name, exc_info=True)
                return

    threading.Thread(target=load, name="pitchnet-warm-up", daemon=True).start()


class HostedTable:
    """The table this window hosts, and its web join if it serves one: started with
    `open`, then ended (`end`), handed to a background host (`hand_over`) or moved to
    an older table's lobby (`move_to`). What the window may know of the table it asks
    with `facts()`; `server` is there for tests, which may look inside."""

    def __init__(self, server: HostServer, interface: str | None) -> None:
        self.server = server
        self.interface = interface
        self.web: WebServer | None = None
        """The web join (host/web.py's WebServer), while browsers are served."""
        self.web_urls: list[str] = []
        """Where browsers join, while they are served."""
        self.web_port: int | None = None
        """The port browsers were served on (kept once closed, for the hand-over)."""

    @classmethod
    async def open(cls, config: HostingConfig) -> HostedTable:
        """Open a table on the network as `config` says (its browsers are served apart:
        `serve_web`). Raises `HostingError` with the sentence to show if it cannot be
        opened."""
        from host.journal import JournalError
        from host.server import HostConfig, HostServer
        from pitchnet.errors import describe_os_error

        # Each field's type is HostConfig's own (tests/test_shapes.py checks the names).
        host_config = HostConfig(**config.host_fields())  # type: ignore[arg-type]
        try:
            server = HostServer(host_config)
            await server.start()
        except JournalError as exc:
            raise HostingError(_("Could not host a table: {reason}", reason=str(exc))) from exc
        except OSError as exc:
            interface, port = host_config.interface, host_config.port
            text = describe_os_error(exc, host=interface, port=port)
            raise HostingError(_("Could not host a table. {reason}", reason=text)) from exc
        return cls(server, host_config.interface)

    def facts(self) -> HostedFacts:
        """What the window may know of its table now (see `HostedFacts`)."""
        return self.server.facts()

    @property
    def table_id(self) -> str:
        return self.server.table_id

    @property
    def name(self) -> str:
        return self.server.name

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def address(self) -> str:
        """Where this window reaches the table it hosts: the interface it serves on."""
        return self.interface or "127.0.0.1"

    async def serve_web(self, port: int) -> str | None:
        """Serve the table to browsers on the LAN (host/web.py), on this window's
        interface, as `pitchnet host --web` does. None once served; else the sentence
        that says why not (the table stays open for terminals)."""
        import errno

        from host.advertise import host_addresses
        from host.web import table_web_join
        from pitchnet.errors import describe_os_error

        web = table_web_join(self.server, port, self.interface)
        try:
            await web.start()
        except OSError as exc:  # the setup screen's port for browsers, not a --port option
            if exc.errno == errno.EADDRINUSE:
                text = _(
                    "Port {port} is already in use on this computer, so browsers cannot "
                    "join this table; choose another port for browsers on the setup screen.",
                    port=str(port),
                )
            else:
                text = describe_os_error(exc, host=self.interface, port=port, option="--web")
            return _("Could not serve browsers. {reason}", reason=text)
        self.web, self.web_port = web, web.port
        self.web_urls = web.urls(host_addresses(self.interface))
        return None

    async def close_web(self, *, ended: bool = True) -> None:
        """Stop serving browsers; `ended`: the table is closed on purpose (the pages say
        so), not handed to a background host (the pages reconnect)."""
        web, self.web = self.web, None
        self.web_urls = []
        if web is not None:
            await web.close(ended=ended)

    async def end(self) -> None:
        """End the table for everyone ("The host closed the table"), and its web join,
        whose kept browsers go with a table that cannot be resumed."""
        served = self.web is not None
        await self.close_web()
        await self.server.close(on_purpose=True)
        facts = self.server.facts()
        if served and facts.journal is not None:
            from host.web_keep import forget_if_done

            forget_if_done(facts.journal, facts.resumable)

    async def hand_over(self, stand_in: int | None) -> tuple[str, int]:
        """Close the table "back in a moment" (the clients keep retrying) and start a
        detached `pitchnet host --resume` of it on the same port (and web port): the
        command as a person would type it, with where its log goes, and its process id.
        `stand_in`: the window's own seat, which a bot plays at once. Raises OSError if
        the background host cannot be started."""
        from client.background import resume_in_background

        await self.close_web(ended=False)  # the browsers' pages reconnect to it
        await self.server.close(handing_over=True)
        return resume_in_background(
            self.table_id,
            self.port,
            self.interface,
            web_port=self.web_port,
            name=self.name,
            stand_in=stand_in,
        )

    async def move_to(self, address: str, table_id: str) -> None:
        """Close this lobby, telling everyone in it to join the table at `address`."""
        await self.close_web()
        await self.server.close(moved_to=(address, table_id))
