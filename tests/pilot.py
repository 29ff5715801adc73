"""Helpers for driving the Textual client with Pilot: read the screen, wait with a deadline,
and a table browser that finds nothing (so no test browses the real LAN)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from textual.geometry import Region
from textual.pilot import Pilot

if TYPE_CHECKING:
    from client.app import PitchApp
    from client.model import GameState
    from host.server import HostServer
    from pitchnet.events import Event
    from pitchnet.protocol import TableInfo
    from pitchnet.views import SeatView
    from tests.pilot_app import PilotApp


def setup_shown(app: Any) -> bool:
    """The setup screen is up and composed: its fields can be filled in (the screen is the
    app's before its widgets are mounted, and a query then finds nothing)."""
    from client.screens.setup import SetupScreen

    screen = app.screen
    # The form's fields mount after the buttons (they are inside a scrolling box): wait
    # for its last field as well as for the buttons.
    return isinstance(screen, SetupScreen) and all(
        screen.query(part) for part in ("#setup-open", "#setup-web-port")
    )


def dealt(holder: PitchApp | GameState) -> SeatView:
    """The view of the hand an app (or its game state) holds, for a test that has
    already waited for the deal: a view that is not there fails the test here, saying
    so, rather than as an attribute of None further on."""
    from client.model import GameState

    view = (holder if isinstance(holder, GameState) else holder.game).view
    assert view is not None, "no hand dealt: the app has no view yet"
    return view


def hosted_server(app: PitchApp) -> HostServer:
    """The host of the table `app` hosts, for a test that looks inside it (the app
    itself only asks it what `HostServer.facts()` says)."""
    assert app.hosted is not None, "the app hosts no table"
    return app.hosted.server


def my_seat(app: PitchApp) -> int:
    """The app's own seat, for a test that has already waited to be seated."""
    seat = app.game.seat
    assert seat is not None, "the app has no seat (watching, or not yet welcomed)"
    return seat


def dealt_scene(
    name: str, seed: int = 7, players: int = 4, partnership: bool = False
) -> tuple[TableInfo, SeatView, list[Event]]:
    """client/demo.py's `scene_with_events` at a moment after the deal, whose view is
    therefore there (only the lobby has none)."""
    from client.demo import scene_with_events

    table, view, events = scene_with_events(name, seed, players, partnership)
    assert view is not None, f"the scene {name!r} has no hand dealt"
    return table, view, events


def moved_on(app: PitchApp, seq: int) -> Callable[[], bool]:
    """A condition for `until`: the host has sent the app a newer snapshot than `seq`
    (bound now, so a loop's next `seq` does not change what an earlier wait waits for)."""
    return lambda: app.game.seq != seq


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


async def tap(pilot: Pilot[Any], target: Any, what: str = "the widget") -> None:
    """Click `target` (a widget or a selector) once it is laid out, and fail unless the
    click landed on it: a widget shown a moment ago has no region yet, and Textual's
    pilot would click the screen's top-left corner instead (a bid once went to the
    status bar that way). It must also be where it was a refresh before: a dialog that
    relabels its buttons for a narrow screen lays them out again, and a click at the old
    place missed ("Ask for it (y)" became "Ask (y)", a row lower, under load)."""
    screen = pilot.app.screen
    seen: list[Region] = []

    def steady() -> bool:
        widget = screen.query_one(target) if isinstance(target, str) else target
        seen.append(widget.region)
        return widget.region.area > 0 and seen[-2:] == [widget.region] * 2

    deadline = asyncio.get_running_loop().time() + 10.0
    while not steady():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"{what} is not on screen\n{screen_text(pilot.app)}")
        await pilot.pause()  # the app idle: any new layout done
    assert await pilot.click(target), f"the click missed {what}"


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


def play_on_an_empty_lan(seed: int | None = None, lang: str | None = None) -> PilotApp:
    """`pitchnet play` as "Ann" on a LAN with no tables: it offers to host one here (on
    127.0.0.1, unadvertised, bots without delay, the deck seeded if `seed` is given)."""
    from client.app import ClientOptions
    from tests.pilot_app import PilotApp

    host: dict[str, Any] = {"port": 0, "bot_delay": 0, "advertise": False}
    if seed is not None:
        host["seed"] = seed
    options = ClientOptions(name="Ann", mode="play", interface="127.0.0.1", lang=lang)
    return PilotApp(options, browser_factory=NoTables, host=host, browse_seconds=0.1)


@contextlib.asynccontextmanager
async def at_the_table(
    app: PilotApp, scene: tuple[TableInfo, SeatView | None, list[Event]], size: tuple[int, int]
) -> AsyncIterator[Pilot[Any]]:
    """Run `app` at `size`, seated in seat 0, with the scene's snapshot drawn on its
    table screen."""
    from client.screens.table import TableScreen

    table, view, events = scene
    async with app.run_test(size=size) as pilot:
        app.game.seat = 0
        app.apply_state(1, table, view, events)
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.pause()
        yield pilot
