"""The setup screen's keys (issue 25, item 1): Space ticks a box, Enter opens the table
wherever the focus is (a tick box or a list too), and a ticked box and an unticked one
differ in shape, not only colour."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from client.screens.setup import Choice, SetupScreen, Tick
from tests.pilot import play_on_an_empty_lan, screen_text, setup_shown, until
from tests.pilot_app import PilotApp

if TYPE_CHECKING:
    from host.server import HostServer

SIZE = (80, 30)


async def test_space_ticks_browsers_then_enter_opens_the_table_with_it() -> None:
    app = play_on_an_empty_lan(5)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: setup_shown(app), "the setup screen")
        setup = app.screen
        setup.query_one("#setup-web-port", Input).value = "0"  # any free port
        web = setup.query_one("#setup-web", Tick)
        await pilot.pause()
        web.focus()
        await until(pilot, lambda: web.has_focus, "the tick box focused")
        await pilot.press("space")
        assert web.value
        await until(pilot, lambda: "▐X▌ serve to phones" in screen_text(app), "a tick")
        assert "▐ ▌ two teams" in screen_text(app)  # unticked: no X at all
        await pilot.press("enter")  # from the tick box: opens, never unticks
        await until(pilot, lambda: app.hosted is not None, "the table hosted here")
        assert web.value and app.web is not None  # served to browsers, as ticked
        await app.close_network()


async def test_enter_on_a_list_opens_the_table() -> None:
    app = play_on_an_empty_lan(5)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: setup_shown(app), "the setup screen")
        await pilot.pause()
        target = app.screen.query_one("#setup-target", Choice)
        target.focus()
        await until(pilot, lambda: target.has_focus, "the list focused")
        await pilot.press("enter")
        await until(pilot, lambda: app.hosted is not None, "the table hosted here")
        await app.close_network()


@contextlib.asynccontextmanager
async def _ann_on_the_setup_screen(
    players: int,
) -> AsyncIterator[tuple[HostServer, PilotApp, Pilot[None], Callable[[], None]]]:
    """Alice sits in her lobby of `players` seats, not yet seen on the network; Ann's
    `play` shows the setup screen (defaults: 4 players, to 7, standard rules). Yields the
    host, Ann's app, its pilot and what makes Alice's table seen by Ann's finder."""
    from client.app import ClientOptions
    from tests.latecomer_fakes import LiveBrowser, lobby_of
    from tests.netclient import RawClient, running_host

    async with running_host(players=players) as host:
        alice = await RawClient.connect(host)
        await alice.hello("Alice")
        browsers: list[LiveBrowser] = []

        def factory(interface: object, on_change: object) -> LiveBrowser:
            browsers.append(LiveBrowser(on_change))
            return browsers[-1]

        def seen() -> None:
            browsers[-1].show([lobby_of(host, "Alice's table")])

        options = ClientOptions(name="Ann", mode="play")
        app = PilotApp(options, browser_factory=factory, browse_seconds=0.1)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: setup_shown(app), "the setup screen")
            yield host, app, pilot, seen
            await app.close_network()
        await alice.close()


@contextlib.asynccontextmanager
async def _a_table_opens_while_ann_sets_up(
    players: int,
) -> AsyncIterator[tuple[HostServer, PilotApp, Pilot[None]]]:
    """As `_ann_on_the_setup_screen`, and Ann has touched the form when Alice's table is
    seen: her screen offers it. Yields the host, Ann's app and its pilot then."""
    async with _ann_on_the_setup_screen(players) as (host, app, pilot, seen):
        await pilot.press("tab")  # Ann is setting hers up
        await until(
            pilot,
            lambda: isinstance(app.screen, SetupScreen) and app.screen.touched,
            "the setup screen touched",
        )
        seen()  # Alice opened hers
        await until(pilot, lambda: "just opened on the network" in screen_text(app), "offer")
        yield host, app, pilot


async def test_a_table_that_opens_meanwhile_is_offered_on_the_setup_screen() -> None:
    """The finder keeps looking while the setup screen shows: a lobby that opens on the
    network is offered there, and Ctrl+T joins it instead of hosting a second table."""
    async with _a_table_opens_while_ann_sets_up(3) as (host, app, pilot):
        await pilot.press("ctrl+t")
        await until(pilot, lambda: app.game.seat is not None, "Ann at Alice's table")
        assert app.hosted is None and app.game.table_id == host.table_id


@dataclass(frozen=True)
class Entered:
    """Where Ann's Enter took her, and what she was told."""

    seen_table_id: str | None
    alice_table_id: str
    said: list[str]


async def _enter_while_a_table_opened(players: int) -> Entered:
    """Ann's setup screen shows; Alice's lobby of `players` seats opens meanwhile; Ann
    presses Enter. Returns where she sat."""
    async with _a_table_opens_while_ann_sets_up(players) as (host, app, pilot):
        await pilot.press("enter")
        await until(pilot, lambda: app.game.seat is not None, "Ann seated")
        return Entered(app.game.table_id, host.table_id, [n.message for n in app._notifications])


async def test_enter_joins_a_table_that_opened_with_the_same_settings() -> None:
    """Whoever opens first, the second Enter with the same settings ends at that table."""
    app = await _enter_while_a_table_opened(players=4)
    assert app.seen_table_id == app.alice_table_id  # not a table of her own
    assert any("opened first with the same settings" in said for said in app.said)


async def test_enter_with_other_settings_opens_a_second_table_and_says_why() -> None:
    app = await _enter_while_a_table_opened(players=3)
    assert app.seen_table_id != app.alice_table_id  # Ann sits at her own table
    assert any(
        "3 players instead of 4" in said and "two tables now" in said for said in app.said
    ), app.said


async def test_the_first_window_says_a_second_table_opened_with_other_settings() -> None:
    """Ann opened hers (4 players); Bob's lobby of 3 opens beside it: both stay, and
    Ann's window says there are two tables and why."""
    from client.app import ClientOptions
    from client.discovery import FoundTable
    from pitchnet.protocol import PROTOCOL_VERSION
    from tests.latecomer_fakes import LiveBrowser
    from tests.pilot_app import PilotApp

    browsers: list[LiveBrowser] = []

    def factory(interface: object, on_change: object) -> LiveBrowser:
        browsers.append(LiveBrowser(on_change))
        return browsers[-1]

    options = ClientOptions(name="Ann", mode="play")
    app = PilotApp(options, browser_factory=factory, host={"advertise": False}, browse_seconds=0.1)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: setup_shown(app), "the setup screen")
        await pilot.press("enter")
        await until(pilot, lambda: app.hosted is not None and len(browsers) == 2, "watching")
        bobs = FoundTable(
            name="Bob's table", table_id="bob", host="127.0.0.1", port=1, taken=1,
            version=PROTOCOL_VERSION, seats=3, state="lobby", password=False, open=2,
            born=2**50,
        )  # fmt: skip
        browsers[-1].show([bobs])

        def said() -> list[str]:
            return [n.message for n in app._notifications]

        await until(pilot, lambda: any("two tables now" in m for m in said()), "a word")
        assert any("Bob's table is open too, with 3 players instead of 4" in m for m in said())
        assert app.hosted is not None  # nobody moved: both tables stay
        await app.close_network()


async def test_a_table_seen_while_the_setup_screen_is_untouched_is_joined_at_once() -> None:
    """`play` looked half a second and found nothing; the table it would have joined
    answers a moment later, before any key on the setup screen: Ann sits there."""
    async with _ann_on_the_setup_screen(3) as (host, app, pilot, seen):
        await pilot.pause()
        seen()
        await until(pilot, lambda: app.game.seat is not None, "Ann at Alice's table")
        assert app.hosted is None and app.game.table_id == host.table_id


@pytest.mark.parametrize("size", [(40, 15), (80, 24)], ids=["40x15", "80x24"])
async def test_a_short_terminal_keeps_the_open_button_and_the_focused_field_on_screen(
    size: tuple[int, int],
) -> None:
    """At 40x15 the form scrolls inside the dialog: the button that opens the table (and
    its key) stays on screen, and Tab to the last field brings that field into view."""
    app = play_on_an_empty_lan(5)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: setup_shown(app), "the setup screen")
        await until(pilot, lambda: "Open (Enter)" in screen_text(app), "the open button")
        assert "Back (Esc)" in screen_text(app)
        web = app.screen.query_one("#setup-web", Tick)
        for _ in range(12):
            if web.has_focus:
                break
            await pilot.press("tab")
        assert web.has_focus
        # The tick's words are shortened to its room at 40 columns; its port still shows.
        last = ("Browsers", "serve t", "8080")
        await until(pilot, lambda: all(w in screen_text(app) for w in last), "the last field")
        assert "Open (Enter)" in screen_text(app)
        await pilot.press("enter")
        await until(pilot, lambda: app.hosted is not None, "the table hosted here")
        await app.close_network()
