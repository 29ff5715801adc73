"""`--ascii`: what pitchnet draws is plain ASCII, footer keys, input boxes and
scrollbars included. The one exception is Textual's own: the dots that hide a typed
password (Input has no public way to change them)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from client.app import ClientOptions
from client.demo import scene_with_events
from client.screens.help import HelpScreen
from client.screens.prompts import PasswordPrompt
from tests.pilot import screen_text
from tests.pilot_app import PilotApp
from tests.test_client_snapshots import FixedBrowser

PASSWORD_MASK = "\N{BULLET}"


def unicode_in(app: PilotApp) -> set[str]:
    return {char for char in screen_text(app) if not char.isascii()}


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()  # nested containers draw after a refresh


@pytest.mark.parametrize("ascii_only", [True, False])
async def test_the_table_and_its_screens(ascii_only: bool) -> None:
    """Each moment of a hand, with a log long enough to need its scrollbar."""
    seen: set[str] = set()
    for name in ("bidding", "playing", "hand_over", "match_over"):
        app = PilotApp(ClientOptions(name="Ann", ascii_only=ascii_only), idle=True)
        async with app.run_test(size=(80, 24)) as pilot:
            table, view, events = scene_with_events(name, 7)
            app.game.seat = 0
            app.apply_state(1, table, view, events * 4)
            await settle(pilot)
            seen |= unicode_in(app)
            if name == "playing":
                footer = screen_text(app).splitlines()[-1]
                assert ("enter Play card" if ascii_only else "\u23ce Play card") in footer
            app.push_screen(HelpScreen())
            await settle(pilot)
            seen |= unicode_in(app)
    if ascii_only:
        assert seen == set()
    else:  # the same screens without --ascii do draw symbols: the check can see them
        assert {"\u23ce", "\u2190", "\u256d"} <= seen


@pytest.mark.parametrize("size", [(80, 24), (60, 12)])
async def test_the_finder_and_the_password_prompt(size: tuple[int, int]) -> None:
    options = ClientOptions(name="Ann", ascii_only=True, mode="find")
    app = PilotApp(options, browser_factory=FixedBrowser)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert unicode_in(app) == set()
        await pilot.press("a", *"host")  # the address box, focused and typed in
        await settle(pilot)
        assert unicode_in(app) == set()
        app.push_screen(PasswordPrompt("Parlour"))
        await settle(pilot)
        assert unicode_in(app) == set()
        await pilot.press(*"sesame")
        await settle(pilot)
        assert unicode_in(app) <= {PASSWORD_MASK}
