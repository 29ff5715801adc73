"""One browser's client: the process host/web.py starts for each web session.

textual-serve runs this with Textual's web driver, so the screens are the terminal
client's own; only the start differs. Everything comes from the environment the
web server sets (never the command line, which other users of the host can read):
the table's address, the player's name, the password the web page took, and the
seat file of the browser's identity. The app runs in "web" mode: one table, no
finder and no hosting, and leaving the table ends the session.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from client.app import ClientOptions
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
)
from pitchnet.i18n import DEFAULT, normalise
from pitchnet.protocol import MAX_NAME
from pitchnet.text import printable


def options_from_environment(env: Mapping[str, str]) -> ClientOptions:
    """The app's options for one browser session (KeyError if the server set none)."""
    host, _, port = env[TABLE_ENV].rpartition(":")
    return ClientOptions(
        name=printable(env[NAME_ENV], MAX_NAME).strip() or "Player",
        mode="web",
        address=(host.strip("[]"), int(port)),
        password=env.get(PASSWORD_ENV) or None,
        seats_file=Path(env[SEATS_ENV]),
        lang=normalise(env.get(LANG_ENV)) or DEFAULT,
    )


def watch_regions(app: Any, path: Path) -> None:
    """Write {"card:7C", a button's id or "key:leave" (a footer key's action):
    [x, y, width, height]} for what is on screen now, whenever it changes (the test hook
    behind REGIONS_ENV)."""
    from textual.widgets import Button
    from textual.widgets._footer import FooterKey

    from client.widgets.cards import CardFace

    last: list[str] = [""]

    def dump() -> None:
        regions: dict[str, list[int]] = {}
        for widget in app.screen.query("CardFace, Button, FooterKey"):
            region = widget.region
            if not region.area or not widget.display:
                continue
            if isinstance(widget, FooterKey):
                key = f"key:{widget.action}"
            elif isinstance(widget, CardFace):
                if widget.card is None:
                    continue
                key = f"card:{widget.card}"
            elif isinstance(widget, Button) and widget.id and not widget.disabled:
                key = widget.id
            else:
                continue
            regions[key] = [region.x, region.y, region.width, region.height]
        screen = type(app.screen).__name__
        size = [app.size.width, app.size.height]  # the layout these regions belong to
        text = json.dumps({"screen": screen, "seq": app.game.seq, "size": size, "regions": regions})
        if text != last[0]:
            last[0] = text
            temporary = path.with_suffix(".tmp")
            temporary.write_text(text, encoding="utf-8")
            temporary.replace(path)

    app.set_interval(0.05, dump)


def text_field(screen: Any) -> Any:
    """The screen's first text field (a password, a name), if it asks for text. Not
    the focus: a phone's page that has not been tapped yet has no focus at all."""
    from textual.widgets import Input

    return next((field for field in screen.query(Input) if field.focusable), None)


def web_driver_class() -> type[Any]:
    """Textual's web driver, also passing the web server's AWAY_META to the app. Its
    input thread reads textual-serve's packets in order, so an `away` sent before the
    server's `quit` is handled before the app exits."""
    from textual.drivers.web_driver import WebDriver
    from textual.message import Message

    class GoingAway(Message):
        """The page was closed: go, keeping the seat for a return."""

    class PitchWebDriver(WebDriver):
        message = GoingAway

        def on_meta(self, packet_type: str, payload: dict[str, object]) -> None:
            if packet_type == AWAY_META:
                self._app.post_message(GoingAway())
            else:
                super().on_meta(packet_type, payload)

    return PitchWebDriver


def web_app_class() -> type[Any]:
    """PitchApp, telling the browser whenever the screen starts or stops asking for text,
    and going `away` from the table when the server says its page was closed."""
    from textual.drivers.web_driver import WebDriver

    from client.app import PitchApp

    driver = web_driver_class()

    class WebPitchApp(PitchApp):
        _keyboard = False

        def get_driver_class(self) -> type[Any]:
            chosen = super().get_driver_class()
            return driver if chosen is WebDriver else chosen

        async def on_going_away(self, message: Any) -> None:
            """The page was closed (or reloaded): a seated player goes `away`, so a bot
            plays at once and the seat file's token takes the seat back on a return;
            anyone else just hangs up. Then the session ends."""
            connection, seated = self.connection, self._seated_and_connected()
            self.connection = None
            if connection is not None:
                await (connection.away() if seated else connection.close())
            self.exit()

        def on_mount(self) -> None:
            self.screen_change_signal.subscribe(self, self._screen_changed)

        def _screen_changed(self, screen: Any) -> None:
            # A screen composes its fields as it mounts: look once it has drawn.
            self.call_after_refresh(self._tell_keyboard)

        def _tell_keyboard(self) -> None:
            field = text_field(self.screen)
            wanted = field is not None
            if field is not None and self.screen.focused is None:
                field.focus()  # what the keyboard types goes there, tapped or not
            driver = self._driver
            if wanted == self._keyboard or not isinstance(driver, WebDriver):
                return
            self._keyboard = wanted
            driver.write_meta({"type": KEYBOARD_META, "wanted": wanted})

    return WebPitchApp


async def _run(options: ClientOptions, regions: Path | None = None) -> None:
    app = web_app_class()(options)
    if regions is not None:
        app.call_later(watch_regions, app, regions)
    try:
        await app.run_async()
    finally:
        await app.close_network()


def wait_for_session() -> None:
    """Import the app, then take the session's environment from stdin, byte by byte
    (nothing read past its newline: what follows is Textual's web driver's input)."""
    import textual.drivers.web_driver  # noqa: F401

    import client.app  # noqa: F401  (the imports are the point)

    line = bytearray()
    while not line.endswith(b"\n"):
        byte = os.read(0, 1)
        if not byte:
            raise SystemExit(0)  # the server went without using this spare
        line += byte
    environment = json.loads(line)
    os.environ.update({str(k): str(v) for k, v in environment.items()})


def main() -> None:
    if SPARE_FLAG in sys.argv[1:]:
        wait_for_session()
    options = options_from_environment(os.environ)
    regions = os.environ.get(REGIONS_ENV)
    asyncio.run(_run(options, Path(regions) if regions else None))


if __name__ == "__main__":
    main()
