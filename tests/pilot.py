"""Helpers for driving the Textual client with Pilot: read the screen, wait with a deadline,
and a table browser that finds nothing (so no test browses the real LAN)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.pilot import Pilot

if TYPE_CHECKING:
    from client.app import PitchApp


def setup_shown(app: Any) -> bool:
    """The setup screen is up and composed: its fields can be filled in (the screen is the
    app's before its widgets are mounted, and a query then finds nothing)."""
    from client.screens.setup import SetupScreen

    return isinstance(app.screen, SetupScreen) and bool(app.screen.query("#setup-open"))


def screen_text(app: Any) -> str:
    """What the terminal shows now, as plain lines."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def until(
    pilot: Pilot[Any], condition: Callable[[], object], what: str, timeout: float = 10.0
) -> None:
    """Let the app run until `condition()` holds; fail with the screen after `timeout`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}\n{screen_text(pilot.app)}")
        await pilot.pause(0.02)


def tables_seen(found: list[Any]) -> Any:
    """A table browser factory (as client.discovery.TableBrowser) whose browser has
    already seen `found` when it starts: the one fake browser of the client tests."""

    class Seen:
        def __init__(self, interface: str | None, on_change: Callable[..., None]) -> None:
            self.on_change, self.tables = on_change, list(found)

        async def start(self) -> None:
            self.on_change(self.tables)

        async def close(self) -> None:
            pass

    return Seen


NoTables = tables_seen([])
"""A table browser on a LAN with no tables."""


def play_on_an_empty_lan(seed: int | None = None, lang: str | None = None) -> PitchApp:
    """`pitchnet play` as "Ann" on a LAN with no tables: it offers to host one here (on
    127.0.0.1, unadvertised, bots without delay, the deck seeded if `seed` is given)."""
    from client.app import ClientOptions, PitchApp

    host_options: dict[str, Any] = {"port": 0, "bot_delay": 0, "advertise": False}
    if seed is not None:
        host_options["seed"] = seed
    options = ClientOptions(
        name="Ann",
        mode="play",
        interface="127.0.0.1",
        play_browse_seconds=0.1,
        host_options=host_options,
        lang=lang,
    )
    return PitchApp(options, browser_factory=NoTables)
