"""Issue 25's second pass, on screen (Pilot): what a spectator's header says at every
size, and the cards of the hand drawn clean at the phone's size."""

from __future__ import annotations

import dataclasses

import pytest

from client.app import ClientOptions, PitchApp
from client.screens.table import TableScreen
from pitchnet.views import spectator_private
from tests.pilot import dealt_scene, screen_text, until

SIZES = [(40, 15), (60, 20), (80, 24), (200, 60)]


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_a_watcher_sees_they_are_watching_at_every_size(size: tuple[int, int]) -> None:
    """A spectator (welcomed as one: no seat) reads "watching" in the table's header at
    40x15 as at 200x60, so nobody wonders why no card can be played."""
    table, view, events = dealt_scene("playing", seed=7)
    watched = dataclasses.replace(view, **spectator_private())
    app = PitchApp(ClientOptions(name="Ann", mode="idle"))
    async with app.run_test(size=size) as pilot:
        app.game.seat, app.game.watching = None, True
        app.apply_state(1, table, watched, events)
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.pause()
        header = screen_text(app).splitlines()[0]
        assert "watching" in header, screen_text(app)
        assert f"To {view.target}" in header, header
