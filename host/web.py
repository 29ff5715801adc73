"""Serve the pitchnet client to browsers on the LAN (`pitchnet host --web PORT`).

Guests with only a phone, or a laptop without Python, open `http://IP:PORT/` and
play in the browser. Each browser session is the terminal client itself, run in a
process of its own by textual-serve's `AppService` and streamed over a websocket;
this module is the web server around it, written here rather than taken from
textual-serve's `Server` because that one loads a web font from the internet,
lists its static folder, and knows nothing of who is who.

Who is who: a browser's identity is a random secret in an HttpOnly, SameSite=Strict
cookie that this server set. The server keeps, by a hash of that secret, the
browser's name and a seat file (the seat token its client process was given), so
a reload or a lost Wi-Fi comes back to the same seat, and another browser typing
the same name does not. A cookie this server never issued is not looked up by
anything but its hash: it simply gets a fresh identity.

Limits: sessions in all and per address, a session idle past a limit is ended, the
table's password is asked for before a session starts, and the page can reach only
what it needs (the page, its script, style and font, the websocket, and Textual's
own file delivery for this browser's session).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import html
import json
import logging
import secrets
import shlex
import shutil
import sys
import tempfile
import time
from asyncio.subprocess import Process
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING, Any

import textual_serve
from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from client.hosting import (
    AWAY_META,
    KEYBOARD_META,
    LANG_ENV,
    NAME_ENV,
    PASSWORD_ENV,
    REGIONS_ENV,
    SEATS_ENV,
    SPARE_FLAG,
    TABLE_ENV,
    joining_marks,
    seat_kept,
)
from host.limits import Arrivals, Guesses, RateLimiter, RefusalLog, address_key
from host.web_keep import password_proof, read_identities, write_identities
from host.web_spare import SpareClient
from pitchnet.i18n import (
    DEFAULT,
    LANGUAGES,
    N_,
    choose,
    from_accept_language,
    normalise,
    say,
)
from pitchnet.protocol import MAX_NAME
from pitchnet.text import printable

if TYPE_CHECKING:
    from host.server import HostServer

log = logging.getLogger("pitchnet.web")

COOKIE = "pitchnet_id"
COOKIE_DAYS = 7
SECRET_BYTES = 32

# Websocket close codes the page understands (4000-4999 are the application's own).
CLOSE_EXITED = 4000
"""The client ended: the player left the table or quit."""
CLOSE_IDLE = 4001
CLOSE_REPLACED = 4002
"""The same browser opened the table again (another tab, or a reload)."""
CLOSE_REFUSED = 4003
"""Too many browsers; the reason says which limit."""
CLOSE_UNKNOWN = 4004
"""No identity with a name yet: the page goes back to the name form."""
CLOSE_TABLE_CLOSED = 4005
"""The host closed the table on purpose: the page says so, and comes back if it does."""

MAX_IDENTITIES = 256
"""Identities remembered. Beyond this the oldest one that holds no seat and has no
session is forgotten; one that holds a seat never is (a stranger's requests must not
cost a sleeping phone its seat): with every identity seated, a new browser is refused."""
MAX_UNSEATED_PER_ADDRESS = 8
"""Identities without a seat that one address may hold: its ninth forgets its own
oldest, so a stranger's cookie-less requests churn only the stranger's identities."""
MAX_WS_MESSAGE = 64 * 1024
MAX_TERMINAL = 500
"""Largest width or height a browser may ask for, in cells."""
STOP_SECONDS = 1.0
"""How long a session's process has to quit before it is killed. Killing loses
nothing: the seat token is already on disk, and the kernel closes the process's
connection to the table, so the host sees the player gone at once."""

RELOAD_SECONDS = 3.0
"""How long a page closed on purpose (it said "leaving" as it went) has to come back
before its seat goes to a bot: a page cannot tell a closed tab from a reload, and a
reload is back within this, in its seat as it was. Past it the session's client goes
`away` (a bot plays at once; the seat file's token still takes the seat back)."""
AWAY_SECONDS = 3.0
"""How long a session's client has to tell the table `away` and quit by itself."""

HTTP_PER_ADDRESS = 32
"""Open HTTP connections (websockets included) one address may hold: past it a new
one is closed at once, so one machine cannot use up the host's open files."""
HTTP_CONNECTIONS = 512
"""Open HTTP connections in all."""
REQUEST_SECONDS = 10.0
"""A connection must have sent a whole request within this (a slow sender's headers
too), and an idle keep-alive connection is closed after it: aiohttp's keep-alive
timer, armed when the connection opens."""
INPUT_PER_SECOND, INPUT_BURST = 100.0, 400
"""Websocket messages a second from one browser, and the burst: the table's own rate
for a terminal client's messages (host/limits.py `Limits`)."""
INPUT_BYTES_PER_SECOND, INPUT_BYTES_BURST = 16 * 1024, 64 * 1024
"""Bytes a second of websocket messages from one browser, and the burst: the table's
decode budget for a seated client."""
INPUT_STRIKES = 10
"""Messages dropped for outrunning the budgets before the session is ended."""
FLOOD_PAUSE = 30.0
"""Seconds an address whose session was ended for too much input waits before another
starts (each would be a client process to start, and flooded in its turn)."""
STARTS_PER_SECOND, STARTS_BURST = 0.2, 8
"""Browser sessions started from one address: bursts of 8, then one per 5 s. Each is
a client process on the host laptop (about a second of CPU to start), so a browser
that is cut off for flooding cannot make the host start one after another."""

PAGES = Path(__file__).with_name("web_pages")
TEXTUAL_SERVE_STATIC = Path(textual_serve.__file__).with_name("static")
DEBIAN_FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")


def terminal_font() -> Path:
    """The page's terminal font: DejaVu Sans Mono (Debian's fonts-dejavu-core, Bitstream
    Vera licence) when installed, for its card suits and box lines; else the Roboto Mono
    that textual-serve ships (Apache 2.0), where the browser draws suits from its own."""
    if DEBIAN_FONT.is_file():
        return DEBIAN_FONT
    return TEXTUAL_SERVE_STATIC / "fonts" / "RobotoMono-VariableFont_wght.ttf"


@dataclass
class WebConfig:
    port: int
    table_port: int
    table_id: str
    interface: str | None = None
    table_name: str = "pitchnet"
    password: str | None = None
    max_sessions: int = 12
    max_per_address: int = 4
    idle_seconds: float = 1800.0
    client_command: list[str] | None = None
    """The command run per session (default: this Python, `-m client.web_session`)."""
    spare_client: bool = True
    """Keep a client process started ahead for the next session (host/web_spare.py);
    off only to measure what it saves (benchmarks/web.py)."""
    show_regions: bool = False
    """Tests only: each session writes where its cards and buttons are (REGIONS_ENV)."""
    guesses: Guesses | None = None
    """The table's own password limiter (its referee's), so that a password typed on the
    page is counted with those proven by terminals and watchers, per address and per
    table; None: one of the web join's own (tests)."""
    reload_seconds: float = RELOAD_SECONDS
    """How long a page that said it was leaving has to come back (`RELOAD_SECONDS`)."""
    table_closed: Callable[[], bool] | None = None
    """True once the table was closed on purpose (`HostServer.closed_on_purpose`): a
    session whose client ends then (it was told "closed") tells its page the table
    closed, not that its player left the game."""
    keep_dir: Path | None = None
    """Where the identities and their seat files are kept across a restart of the host
    (host/web_keep.py: beside the table's journal); None: a temporary folder that goes
    with the server, so a restarted host asks every browser for its name again."""


def table_web_join(
    server: HostServer, port: int, interface: str | None, **options: Any
) -> WebServer:
    """The web join of `server`'s table, configured from the table itself: its id,
    name and own password (a resumed table's comes from its journal, not the command
    line), its referee's password limiter, the keep folder beside its journal, and
    whether it was closed on purpose. `pitchnet host --web` and the window that hosts
    (client/hosting.py) serve a table alike; `options` are the rest of `WebConfig`."""
    from host.web_keep import keep_folder

    journal = server.journal.path if server.journal is not None else None
    return WebServer(
        WebConfig(
            port=port,
            table_port=server.port,
            table_id=server.table_id,
            interface=interface,
            table_name=server.name,
            password=server.table.options.password,
            guesses=server.referee.guesses,
            keep_dir=keep_folder(journal) if journal is not None else None,
            table_closed=lambda: server.closed_on_purpose,
            **options,
        )
    )


@dataclass(eq=False)
class Identity:
    """One browser, known by the hash of the secret in its cookie."""

    key: str
    seats_file: Path
    name: str | None = None
    password: str | None = None
    lang: str | None = None
    """The language this browser reads: its own (Accept-Language) until its player picks
    one on the name page; its session's client speaks it (client/web_session.py)."""
    session: WebSession | None = None
    seen: float = field(default_factory=time.monotonic)
    address: str = ""
    """Where the browser that made it asked from (the per-address limit counts it there)."""


class WebSession(AppService):
    """One browser's client process (textual-serve's AppService), with the identity's
    environment, the time of its last keypress or click, and a bounded stop."""

    def __init__(
        self,
        command: str,
        *,
        identity: Identity,
        address: str,
        websocket: web.WebSocketResponse,
        environment: dict[str, str],
        download_manager: DownloadManager,
        spare: SpareClient | None = None,
        table_closed: Callable[[], bool] | None = None,
    ) -> None:
        self.websocket = websocket
        self.spare = spare
        self.table_closed = table_closed
        super().__init__(
            command,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=self._app_exited,
            download_manager=download_manager,
        )
        self.identity, self.address = identity, address
        self.environment = environment
        self.last_input = time.monotonic()
        self.exited = False
        self.size = (80, 24)
        """The browser's terminal, in cells (as it last said)."""
        self.leaving = False
        """Its page said it was closing (or reloading): not a lost connection."""
        self.came_back = False
        """The same browser opened a new session since (a reload)."""
        self.settled = asyncio.Event()
        """Set once a leaving page's fate is known: it came back, or the server closes."""

    async def start(self, width: int, height: int) -> None:
        self.size = (width, height)
        await super().start(width, height)

    async def set_terminal_size(self, width: int, height: int) -> None:
        self.size = (width, height)
        await super().set_terminal_size(width, height)

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        environment.pop("TEXTUAL", None)  # no devtools or debug mode for a guest
        environment.update(self.environment)
        return environment

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        """The spare process when there is one (its imports done: host/web_spare.py),
        else a new one as textual-serve starts it."""
        if self.spare is not None:
            process = await self.spare.take(self._build_environment(width, height))
            if process is not None and process.stdin is not None:
                self._process, self._stdin = process, process.stdin
                return process
        return await super()._open_app_process(width, height)

    async def send_bytes(self, data: bytes) -> bool:
        self.last_input = time.monotonic()
        return await super().send_bytes(data)

    async def _app_exited(self) -> None:
        self.exited = True
        if self.table_closed is not None and self.table_closed():
            # Its client ended because the host closed the table, usually a moment before
            # the web join itself closes: the page says so ("You have left the game" was
            # untrue), and comes back by itself if the table does.
            await self.end(CLOSE_TABLE_CLOSED, N_("The host closed the table."))
            return
        await self.end(CLOSE_EXITED, N_("The game was closed."))

    async def end(self, code: int, reason: str, **params: Any) -> None:
        """Close the browser's websocket with a code the page explains, and `reason` (a
        catalog message, `params` its placeholders) in the browser's language."""
        if not self.websocket.closed:
            said = say(self.environment.get(LANG_ENV, DEFAULT), reason, **params)
            await self.websocket.close(code=code, message=close_reason(said))

    async def on_meta(self, data: bytes) -> None:
        """Pass on only what the page needs: the app's exit, Textual's own file delivery
        (a screenshot), and whether a text field has the focus (the page opens a phone's
        keyboard only then). An `open_url` (never sent by pitchnet) is dropped, so a
        session cannot send its browser elsewhere."""
        try:
            meta = json.loads(data)
            kind = meta.get("type")
        except (ValueError, AttributeError):
            return
        if kind in ("exit", "deliver_file_start"):
            await super().on_meta(data)
        elif kind == KEYBOARD_META and not self.websocket.closed:
            await self.websocket.send_json([KEYBOARD_META, meta.get("wanted") is True])

    async def go_away(self) -> None:
        """Have the client tell the table `away` (client/web_session.py), and give it
        AWAY_SECONDS to do so and quit before `stop` makes sure of it."""
        process = self._process
        if process is None or process.returncode is not None:
            return
        with contextlib.suppress(AssertionError):
            await self.send_meta({"type": AWAY_META})
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), AWAY_SECONDS)

    async def stop(self) -> None:
        process = self._process
        with contextlib.suppress(TimeoutError, ConnectionError, RuntimeError):
            await asyncio.wait_for(asyncio.shield(super().stop()), STOP_SECONDS)
        if process is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), 0.1)
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None


def _page(page: str, raw: dict[str, str] | None = None, **values: str) -> str:
    """A page from host/web_pages/, every value HTML-escaped but the `raw` ones (ours)."""
    template = Template((PAGES / page).read_text(encoding="utf-8"))
    escaped = {k: html.escape(v, quote=True) for k, v in values.items()}
    return template.substitute({**escaped, **(raw or {})})


PASSWORD_FIELD = """<label for="password">$label</label>
  <input id="password" name="password" type="password" autocomplete="off" required>"""


def close_reason(text: str) -> bytes:
    """`text` as a websocket close frame's reason: at most 120 bytes of UTF-8, cut
    between characters (a Telugu sentence is three bytes a letter: never cut in one)."""
    return text.encode()[:120].decode(errors="ignore").encode()


def page_words(lang: str) -> str:
    """The play page's own sentences in `lang`, as a JSON object for its script (`<` is
    escaped, so no text can end the script)."""
    words = {
        "left": say(lang, "You have left the game."),
        "join_again": say(lang, "Join again"),
        "come_back": say(lang, "Come back"),
        "other_tab": say(lang, "This table is open in another tab of this browser."),
        "play_here": say(lang, "Play here"),
        "try_again": say(lang, "Try again"),
        "returns": say(lang, "If it comes back, this page returns to it by itself."),
        "try_now": say(lang, "Try now"),
        "lost": say(lang, "Lost the connection to the table. Reconnecting..."),
        "reconnect": say(lang, "Reconnect now"),
        "gone": say(lang, "The table is not answering: it may have ended."),
    }
    return json.dumps(words, ensure_ascii=False).replace("<", "\\u003c")


def language_options(chosen: str) -> str:
    """The name page's choice of language: each in its own name, `chosen` selected."""
    return "\n".join(
        f'<option value="{code}"{" selected" if code == chosen else ""}>'
        f"{html.escape(name)}</option>"
        for code, name in LANGUAGES.items()
    )


SECURITY_HEADERS = {
    # Only this host: the browser itself refuses anything else the page might ask for.
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' "
        "'unsafe-inline'; img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; "
        "frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


class WebServer:
    """The web join of one table: pages, identities and a process per browser session."""

    def __init__(self, config: WebConfig) -> None:
        self.config = config
        self.identities: dict[str, Identity] = {}
        self.sessions: set[WebSession] = set()
        self.downloads = DownloadManager()
        self.guesses = config.guesses or Guesses()
        self.port = config.port
        self._runner: web.AppRunner | None = None
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self.folder = config.keep_dir or Path()
        """Where the seat files are (set by start)."""
        self._idle_task: asyncio.Task[None] | None = None
        self._handlers: set[asyncio.Task[Any]] = set()
        self._listener: asyncio.Server | None = None
        self._open: dict[str, int] = {}
        """Open HTTP connections by address (`address_key`)."""
        self.refusals = RefusalLog()
        """Refusals are logged once per address per interval (a flood fills no disk)."""
        self.starts = Arrivals(STARTS_PER_SECOND, STARTS_BURST)
        """Session starts per address (a token bucket each)."""
        self.flooded: dict[str, float] = {}
        """Address -> until when it may start no session (its last one flooded)."""
        self._closing = False
        """Set by `close`: a leaving page's client just quits (the table is going too)."""
        self._admitting = asyncio.Lock()
        """Held while a websocket is checked against the caps and its session counted:
        twenty at once from one browser are taken one after another."""
        command = config.client_command or [sys.executable, "-m", "client.web_session"]
        self.command = shlex.join(command)
        self.spare: SpareClient | None = None
        """The next session's process, started ahead (only for pitchnet's own client)."""
        self.font = terminal_font()

    # ---- life -------------------------------------------------------------------------------

    async def start(self) -> None:
        # Seat files live here, private to this user: kept beside the journal for a
        # restart, or in a temporary folder that goes when the server does.
        if self.config.keep_dir is not None:
            self.folder = self.config.keep_dir
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            self._load_identities()
        else:
            self._folder = tempfile.TemporaryDirectory(prefix="pitchnet-web-")
            self.folder = Path(self._folder.name)
        app = web.Application(middlewares=[self._guard], client_max_size=16 * 1024)
        app.add_routes(
            [
                web.get("/", self.handle_index),
                web.post("/join", self.handle_join),
                web.get("/ws", self.handle_websocket),
                web.get("/alive", self.handle_alive),
                web.get("/favicon.ico", self.handle_alive),
                web.get("/static/textual.js", self._static("js/textual.js")),
                web.get("/static/xterm.css", self._static("css/xterm.css")),
                web.get("/static/terminal.ttf", self._file(self.font)),
                web.get("/download/{key}", self.handle_download),
            ]
        )
        self._runner = web.AppRunner(
            app, access_log=None, handle_signals=False, keepalive_timeout=REQUEST_SECONDS
        )
        await self._runner.setup()
        loop = asyncio.get_running_loop()
        try:  # aiohttp's handler behind a door that counts connections per address
            self._listener = await loop.create_server(
                self._door, self.config.interface, self.config.port, reuse_address=True
            )
        except OSError:
            await self._runner.cleanup()
            if self._folder is not None:
                self._folder.cleanup()
            raise
        sockets = list(self._listener.sockets)
        if sockets:
            self.port = sockets[0].getsockname()[1]
        self._idle_task = asyncio.create_task(self._end_idle_sessions())
        if self.config.client_command is None and self.config.spare_client:
            # exec: the shell becomes the client, so killing the process kills the client.
            command = f"exec {self.command} {SPARE_FLAG}"
            self.spare = SpareClient(command, shared_environment())
            self.spare.start_soon()
        log.info("web join open on port %d", self.port)

    async def close(self, *, forget: bool = False, ended: bool = True) -> None:
        """End every session and stop serving; `forget`: the table is over, so the kept
        identities go too (there is no seat left to come back to). `ended`: the host
        closed the table on purpose, and its pages say so (as terminals are told); else
        it is only moving to a background host, and the pages just reconnect."""
        self._closing = True
        for session in list(self.sessions):
            session.settled.set()
        if self._idle_task is not None:
            self._idle_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._idle_task
            self._idle_task = None
        if self.spare is not None:
            await self.spare.close()
            self.spare = None
        for session in list(self.sessions):
            if ended:
                await session.end(CLOSE_TABLE_CLOSED, N_("The host closed the table."))
            else:
                await session.end(1001, N_("The host is closing."))
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        if self._runner is not None:
            await self._runner.cleanup()  # waits for the websocket handlers to finish
            self._runner = None
        for session in list(self.sessions):
            await session.stop()
        self.sessions.clear()
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None
        elif forget and self.config.keep_dir is not None:
            shutil.rmtree(self.config.keep_dir, ignore_errors=True)

    def urls(self, addresses: Iterable[str]) -> list[str]:
        return [f"http://{_host_part(a)}:{self.port}/" for a in addresses]

    # ---- the door: connections per address ---------------------------------------------------

    def _door(self) -> asyncio.Protocol:
        server = self._runner.server if self._runner is not None else None
        assert server is not None
        return _Door(self, server())

    def _admit(self, address: str) -> bool:
        """Count one more open connection from `address`, or refuse it (logged once per
        address per interval)."""
        now = time.monotonic()
        if sum(self._open.values()) >= HTTP_CONNECTIONS:
            self._log_refusal(address, "too many connections", now)
            return False
        if self._open.get(address, 0) >= HTTP_PER_ADDRESS:
            self._log_refusal(address, f"too many connections from {address}", now)
            return False
        self._open[address] = self._open.get(address, 0) + 1
        return True

    def _release(self, address: str) -> None:
        left = self._open.get(address, 0) - 1
        if left > 0:
            self._open[address] = left
        else:
            self._open.pop(address, None)

    def _log_refusal(self, address: str, why: str, now: float | None = None) -> None:
        stamp = time.monotonic() if now is None else now
        line = self.refusals.line(address, f"web join refused {address}: {why}", stamp)
        if line is not None:
            log.warning("%s", line)

    # ---- identities -------------------------------------------------------------------------

    def _known(self, request: web.Request) -> Identity | None:
        """The identity whose secret this request's cookie holds, if this server made it."""
        secret = request.cookies.get(COOKIE, "")
        if not secret or len(secret) > 100:
            return None
        identity = self.identities.get(identity_key(secret))
        if identity is not None:
            identity.seen = time.monotonic()
        return identity

    def _new_identity(self, address: str) -> tuple[Identity, str] | None:
        """A fresh identity and the secret for its cookie; None when every identity the
        server may remember holds a seat (none is forgotten for a newcomer then)."""
        if not self._make_room(address):
            return None
        secret = secrets.token_urlsafe(SECRET_BYTES)
        key = identity_key(secret)
        identity = Identity(key, self.folder / f"{key[:32]}.json", address=address)
        self.identities[key] = identity
        return identity, secret

    def _set_cookie(self, response: web.StreamResponse, secret: str) -> None:
        response.set_cookie(
            COOKIE,
            secret,
            max_age=COOKIE_DAYS * 86400,
            path="/",
            httponly=True,
            samesite="Strict",
        )

    def _holds_seat(self, identity: Identity) -> bool:
        """The identity's seat file holds a token for this table (its seat, or one kept
        that the table may still know): such an identity is never forgotten."""
        if identity.name is None or not identity.seats_file.exists():
            return False
        return seat_kept(identity.seats_file, identity.name, self.config.table_id, given_up=True)

    def _forgettable(self, address: str | None = None) -> list[Identity]:
        """Identities without a session or a seat (from `address` only, if given), oldest
        first: the only ones a newcomer's identity may replace."""
        idle = [
            i
            for i in self.identities.values()
            if i.session is None and (address is None or i.address == address)
        ]
        idle.sort(key=lambda i: i.seen)
        return [i for i in idle if not self._holds_seat(i)]

    def _make_room(self, address: str) -> bool:
        """Forget what must go before `address` gets one more identity: its own oldest
        beyond MAX_UNSEATED_PER_ADDRESS, then anyone's oldest unseated one at
        MAX_IDENTITIES. False: every identity remembered holds a seat or a session."""
        own = self._forgettable(address)
        forgotten = own[: max(0, len(own) - MAX_UNSEATED_PER_ADDRESS + 1)]
        if len(self.identities) - len(forgotten) >= MAX_IDENTITIES:
            others = [i for i in self._forgettable() if i not in forgotten]
            forgotten += others[: len(self.identities) - len(forgotten) - MAX_IDENTITIES + 1]
        for identity in forgotten:
            del self.identities[identity.key]
            identity.seats_file.unlink(missing_ok=True)
        if forgotten:
            self._remember()
        return len(self.identities) < MAX_IDENTITIES

    def _load_identities(self) -> None:
        """The identities a previous run of this table kept, each with its seat file; the
        password a browser gave counts only if it is still the table's."""
        wanted = self.config.password
        for key, name, proof in read_identities(self.folder):
            proven = (
                wanted is not None
                and proof is not None
                and hmac.compare_digest(proof, password_proof(key, wanted))
            )
            given = wanted if proven else None
            seats = self.folder / f"{key[:32]}.json"
            self.identities[key] = Identity(key, seats, name=name, password=given)

    def _remember(self) -> None:
        """Write the named identities beside the journal (when this server keeps them)."""
        if self.config.keep_dir is None:
            return
        records = [
            (i.key, i.name, password_proof(i.key, i.password) if i.password else None)
            for i in self.identities.values()
            if i.name is not None
        ]
        try:
            write_identities(self.folder, records)
        except OSError as exc:  # a full disk: the browsers sign in again after a restart
            log.warning("could not keep the web identities: %s", exc)

    def _refusal(self, identity: Identity | None, address: str) -> str | None:
        """Why one more browser session cannot start now, or None. The identity's own
        session does not count: a reload replaces it."""
        others = [s for s in self.sessions if s.identity is not identity]
        lang = choose(identity.lang if identity is not None else None)
        if len(others) >= self.config.max_sessions:
            return say(
                lang,
                "This table already has {n} browsers playing, as many as the host allows. "
                "Try again when someone leaves, or play from a laptop with pitchnet installed.",
                n=self.config.max_sessions,
            )
        if sum(s.address == address for s in others) >= self.config.max_per_address:
            cap = self.config.max_per_address
            if cap == 1:
                return say(
                    lang,
                    "1 browser from this device is already playing, as many as the host "
                    "allows from one device.",
                )
            return say(
                lang,
                "{n} browsers from this device are already playing, as many as the host "
                "allows from one device.",
                n=cap,
            )
        return None

    # ---- pages ------------------------------------------------------------------------------

    @web.middleware
    async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """Refuse requests addressed to another name (DNS rebinding) and add the headers
        that keep the page to this host."""
        interface = self.config.interface
        if interface and request.host not in (
            f"{_host_part(interface)}:{self.port}",
            _host_part(interface) if self.port == 80 else "",
        ):
            response: web.StreamResponse = web.Response(
                status=421, text="Open the address the host shows.\n"
            )
        else:
            response = await handler(request)
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    def _html(self, text: str, status: int = 200) -> web.Response:
        return web.Response(text=text, status=status, content_type="text/html", charset="utf-8")

    def _form(self, identity: Identity, error: str = "", status: int = 200) -> web.Response:
        """The name page, in the browser's language (`error` is already worded in it)."""
        needs_password = self.config.password is not None
        lang = choose(identity.lang)
        label = html.escape(say(lang, "The table's password"))
        field = Template(PASSWORD_FIELD).substitute(label=label) if needs_password else ""
        return self._html(
            _page(
                "join.html",
                raw={"password_field": field, "languages": language_options(lang)},
                table=self.config.table_name,
                name=identity.name or "",
                error=error,
                max_name=str(MAX_NAME),
                lang=lang,
                intro=say(lang, "Pitch at this table, in your browser."),
                your_name=say(lang, "Your name"),
                language=say(lang, "Language"),
                join=say(lang, "Join the table"),
            ),
            status,
        )

    def _refused(self, reason: str) -> web.Response:
        return self._html(_page("refused.html", reason=reason), status=503)

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        if request.query_string:  # textual.js acts on ?ping= and ?delay=: take neither
            raise web.HTTPFound("/")
        identity, secret = self._known(request), None
        if identity is None:  # a first visit, or a cookie this server did not issue
            fresh = self._new_identity(address_key(_address(request)))
            if fresh is None:
                return self._refused(
                    f"This table already knows {MAX_IDENTITIES} browsers, each holding a "
                    "seat. Play from a laptop with pitchnet installed."
                )
            identity, secret = fresh
        if identity.lang is None:
            identity.lang = from_accept_language(request.headers.get("Accept-Language"))
        refusal = self._refusal(identity, _address(request))
        if refusal is not None:
            response = self._refused(refusal)
        elif identity.name is None or not self._password_ok(identity.password):
            response = self._form(identity)
        else:
            lang = choose(identity.lang)
            words = {"words": page_words(lang), "marks": joining_marks()}
            response = self._html(
                _page("play.html", raw=words, table=self.config.table_name, lang=lang)
            )
        if secret is not None:
            self._set_cookie(response, secret)
        return response

    async def handle_join(self, request: web.Request) -> web.StreamResponse:
        identity = self._known(request)
        if identity is None:  # no cookie (or a forged one): start again with a fresh one
            raise web.HTTPSeeOther("/")
        form = await request.post()
        name = printable(str(form.get("name", "")), MAX_NAME).strip()
        password = str(form.get("password", ""))[:200] or None
        identity.lang = normalise(str(form.get("lang", ""))[:16]) or identity.lang
        lang = choose(identity.lang)
        if not name:
            return self._form(identity, say(lang, "Type a name to play under."), 400)
        identity.name = name
        if self.config.password is not None:
            # The table's one limiter, per address (not per request) and per table.
            guesser, now = address_key(_address(request)), asyncio.get_running_loop().time()
            refusal = self.guesses.refusal(guesser, now)
            if refusal is not None:  # not even compared
                return self._form(identity, refusal, 429)
            if not self._password_ok(password):
                if password:
                    self.guesses.wrong(guesser, now)
                wrong = (
                    say(lang, "That is not the table's password.")
                    if password
                    else say(lang, "This table has a password.")
                )
                return self._form(identity, wrong, 403)
            self.guesses.right(guesser)
        identity.password = password
        self._remember()
        raise web.HTTPSeeOther("/")

    def _password_ok(self, given: str | None) -> bool:
        wanted = self.config.password
        if wanted is None:
            return True
        return given is not None and hmac.compare_digest(given.encode(), wanted.encode())

    async def handle_alive(self, request: web.Request) -> web.StreamResponse:
        return web.Response(status=204)

    def _static(self, relative: str) -> Any:
        return self._file(TEXTUAL_SERVE_STATIC / relative)

    def _file(self, path: Path) -> Any:
        async def serve(request: web.Request) -> web.StreamResponse:
            response = web.FileResponse(path)
            response.headers["Cache-Control"] = "max-age=86400"
            return response

        return serve

    async def handle_download(self, request: web.Request) -> web.StreamResponse:
        """Textual's file delivery (a screenshot), for the session that offered it only."""
        identity = self._known(request)
        key = request.match_info["key"]
        try:
            meta = await self.downloads.get_download_metadata(key)
        except KeyError:
            raise web.HTTPNotFound() from None
        if identity is None or meta.app_service is not identity.session:
            raise web.HTTPNotFound()
        response = web.StreamResponse()
        response.content_type = meta.mime_type
        disposition = "inline" if meta.open_method == "browser" else "attachment"
        response.headers["Content-Disposition"] = (
            f'{disposition}; filename="{_safe(meta.file_name)}"'
        )
        await response.prepare(request)
        async for chunk in self.downloads.download(key):
            await response.write(chunk)
        await response.write_eof()
        return response

    # ---- sessions ---------------------------------------------------------------------------

    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
        address = _address(request)
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"http://{request.host}":
            # A page from elsewhere opening our websocket with the browser's cookie.
            self._log_refusal(address, f"websocket from another page ({origin[:80]!r})")
            raise web.HTTPForbidden(text="Open the address the host shows.\n")
        if self.flooded.get(address_key(address), 0.0) > time.monotonic():
            # Refused before the upgrade: a flooding browser's retries cost next to nothing.
            self._log_refusal(address, "browser session after a flood")
            raise web.HTTPTooManyRequests(text="Too much input from this device; wait a while.\n")
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_WS_MESSAGE)
        await websocket.prepare(request)
        identity = self._known(request)
        if identity is None or identity.name is None or not self._password_ok(identity.password):
            await websocket.close(code=CLOSE_UNKNOWN, message=b"Who are you?")
            return websocket
        async with self._admitting:  # checked and counted as one step
            refusal = self._refusal(identity, address)
            if refusal is None and not self._may_start(address_key(address)):
                refusal = say(
                    choose(identity.lang),
                    "This device opened the table too often; wait a few seconds, then reload.",
                )
            if refusal is not None:
                self._log_refusal(address, "browser session cap", time.monotonic())
                await websocket.close(code=CLOSE_REFUSED, message=close_reason(refusal))
                return websocket
            previous = identity.session
            if previous is not None:  # its own handler stops its process, once closed
                previous.came_back = True  # a leaving page reloaded: no bot for its seat
                previous.settled.set()
                self.sessions.discard(previous)
                ending = previous.end(CLOSE_REPLACED, N_("This table is open in another tab."))
                self._spawn(ending)
            width = _cells(request.query.get("width"), 80)
            height = _cells(request.query.get("height"), 24)
            session = WebSession(
                self.command,
                identity=identity,
                address=address,
                websocket=websocket,
                environment=self._environment(identity),
                download_manager=self.downloads,
                spare=self.spare,
                table_closed=self.config.table_closed,
            )
            self.sessions.add(session)
            identity.session = session
        log.info("web session for %r from %s", identity.name, address)
        try:
            async with self._admitting:  # a process starts only for the session counted
                if identity.session is not session or websocket.closed:
                    return websocket  # replaced (another tab) before it started
                await session.start(width, height)
            await self._relay(websocket, session)
        finally:
            if session.leaving:
                await self._see_off(session)
            await session.stop()
            self.sessions.discard(session)
            if identity.session is session:
                identity.session = None
            if session.exited and self._seat_given_up(identity):
                identity.name = None  # left the table: the next visit asks again
                self._remember()
            log.info("web session for %r ended", identity.name)
        return websocket

    async def _see_off(self, session: WebSession) -> None:
        """A page that said it was leaving: a reload comes back within `reload_seconds`
        and takes its seat as it was; otherwise the client goes `away`, so a bot plays
        the seat at once rather than after the table's grace period, which is kept for
        a lost connection (no "leaving" came: Wi-Fi gone, a phone asleep)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(session.settled.wait(), self.config.reload_seconds)
        if not session.came_back and not self._closing:
            log.info("web page of %r closed: its seat goes to a bot", session.identity.name)
            await session.go_away()

    def _may_start(self, address: str) -> bool:
        """One more session from `address` now: not within FLOOD_PAUSE of a flood of
        its, and within its share of starts."""
        now = time.monotonic()
        if self.flooded.get(address, 0.0) > now:
            return False
        return self.starts.allow(address, now)

    def _spawn(self, work: Any) -> None:
        """Run `work` beside the caller, kept until it ends (a task nobody awaits)."""
        task = asyncio.ensure_future(work)
        self._handlers.add(task)
        task.add_done_callback(self._handlers.discard)

    def _environment(self, identity: Identity) -> dict[str, str]:
        table_host = self.config.interface or "127.0.0.1"
        environment = {
            TABLE_ENV: f"{_host_part(table_host)}:{self.config.table_port}",
            NAME_ENV: identity.name or "Player",
            SEATS_ENV: str(identity.seats_file),
            LANG_ENV: choose(identity.lang),
        }
        if identity.password:
            environment[PASSWORD_ENV] = identity.password
        if self.config.show_regions:
            environment[REGIONS_ENV] = str(regions_file(identity))
        return environment

    def _seat_given_up(self, identity: Identity) -> bool:
        """The client left the table (its token is forgotten), rather than quitting."""
        return not seat_kept(identity.seats_file, identity.name or "", self.config.table_id)

    async def _relay(self, websocket: web.WebSocketResponse, session: WebSession) -> None:
        """The browser's messages to the process; anything malformed is ignored. Every
        message is charged to the budgets a terminal client's frames are (messages and
        bytes a second): past them it is dropped, and the 10th drop ends the session."""
        now = time.monotonic()
        messages = RateLimiter(INPUT_PER_SECOND, INPUT_BURST, now)
        volume = RateLimiter(INPUT_BYTES_PER_SECOND, INPUT_BYTES_BURST, now)
        strikes = 0
        async for message in websocket:
            now = time.monotonic()
            size = len(message.data) if isinstance(message.data, str | bytes) else 0
            if not (messages.allow(now) and volume.allow(now, size)):
                strikes += 1
                if strikes >= INPUT_STRIKES:
                    self._log_refusal(session.address, "too much websocket input", now)
                    if len(self.flooded) >= 4096:
                        self.flooded = {a: t for a, t in self.flooded.items() if t > now}
                    self.flooded[address_key(session.address)] = now + FLOOD_PAUSE
                    await session.end(CLOSE_REFUSED, N_("Too much input from this browser."))
                    break
                continue
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
            except ValueError:
                continue
            if not isinstance(envelope, list) or not envelope:
                continue
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str):
                await session.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                width = _cells(data.get("width"), 80)
                height = _cells(data.get("height"), 24)
                await session.set_terminal_size(width, height)
            elif kind == "ping" and isinstance(data, str):
                await websocket.send_json(["pong", data[:32]])
            elif kind == "blur":
                await session.blur()
            elif kind == "focus":
                await session.focus()
            elif kind == "leaving":
                # The page is closing on purpose. Only this session's own: a page can end
                # no session but the one its websocket carries.
                session.leaving = True
                break

    async def _end_idle_sessions(self) -> None:
        idle = self.config.idle_seconds
        while True:
            await asyncio.sleep(min(15.0, max(0.2, idle / 4)))
            now = time.monotonic()
            for session in list(self.sessions):
                if now - session.last_input > idle:
                    minutes = max(1, round(idle / 60))
                    log.info("web session for %r idle: ended", session.identity.name)
                    ended = N_("Ended after {minutes} min without a move.")
                    await session.end(CLOSE_IDLE, ended, minutes=minutes)


def shared_environment() -> dict[str, str]:
    """What every session's process is started with before its own values: textual-serve's
    settings for Textual's web driver (Textual reads some as it is imported, so a spare
    process needs them from the start), without Textual's devtools."""
    service = AppService(
        "",
        write_bytes=_nowhere,
        write_str=_nowhere,
        close=_nothing,
        download_manager=DownloadManager(),
    )
    environment = service._build_environment()
    environment.pop("TEXTUAL", None)
    return environment


async def _nowhere(data: Any) -> None:
    return None


async def _nothing() -> None:
    return None


def regions_file(identity: Identity) -> Path:
    """Where a session writes its regions when `WebConfig.show_regions` is set."""
    return identity.seats_file.with_suffix(".regions.json")


def identity_key(secret: str) -> str:
    """How the server files an identity: by a hash, so the secret itself is kept nowhere."""
    return hashlib.sha256(secret.encode()).hexdigest()


def _address(request: web.Request) -> str:
    return request.remote or "?"


def _host_part(address: str) -> str:
    return f"[{address}]" if ":" in address else address


def _cells(value: Any, default: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return default
    return max(1, min(MAX_TERMINAL, number))


def _safe(file_name: str) -> str:
    return "".join(c for c in file_name if c.isalnum() or c in "._-")[:100] or "download"


class _Door(asyncio.Protocol):
    """One HTTP connection, counted against the per-address cap before aiohttp's own
    handler sees it; a connection past the cap is closed at once and never handed on."""

    def __init__(self, server: WebServer, handler: asyncio.Protocol) -> None:
        self.server, self.handler = server, handler
        self.address: str | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        address = address_key(str(peer[0])) if peer else "?"
        if not self.server._admit(address):
            assert isinstance(transport, asyncio.Transport)
            transport.abort()
            return
        self.address = address
        self.handler.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.address is None:
            return  # refused: the handler never saw it
        self.server._release(self.address)
        self.address = None
        self.handler.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.address is not None:
            self.handler.data_received(data)

    def eof_received(self) -> bool | None:
        return self.handler.eof_received() if self.address is not None else None

    def pause_writing(self) -> None:
        self.handler.pause_writing()

    def resume_writing(self) -> None:
        self.handler.resume_writing()
