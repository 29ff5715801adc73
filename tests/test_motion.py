"""Cards that move (issue 28, item 2): a played card travels from its seat to the middle,
the won trick sweeps to its winner when the next card is led, a new hand is dealt from
the dealer; never with TEXTUAL_ANIMATIONS=none, the setting off, or an ASCII terminal,
and the state itself is drawn at once (the flights only draw the way there)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from client.app import ClientOptions
from client.demo import scene_with_events
from client.screens.table import TableScreen
from client.widgets.felt import Felt
from client.widgets.motion import SWEEP_SECONDS
from tests.pilot import dealt, screen_text, until
from tests.pilot_app import PilotApp

SIZE = (80, 24)


class Clock:
    """A clock the test moves by hand: no frame depends on how busy the machine is."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def motion_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PITCHNET_MOTION", raising=False)


async def show(app: PilotApp, pilot: Pilot[Any], seq: int, name: str) -> None:
    app.apply_state(seq, *scene_with_events(name, seed=7))
    await pilot.pause()


async def won_then_led(
    app: PilotApp, pilot: Pilot[Any], clock: Clock | None = None
) -> tuple[Felt, Any]:
    """Seat 0 sees the first trick won, then the next lead (only the new events, as a
    host sends them); returns the felt (its clock set first) and the won trick's view."""
    app.game.seat = 0
    await show(app, pilot, 1, "trick_won")
    await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
    felt = app.screen.query_one(Felt)
    if clock is not None:
        felt.clock = clock
    won = app.game.view
    before = scene_with_events("trick_won", seed=7)[2]
    table, view, events = scene_with_events("playing", seed=7)
    assert events[: len(before)] == before
    app.apply_state(2, table, view, events[len(before) :])
    await pilot.pause()
    return felt, won


async def test_the_next_lead_sweeps_the_won_trick_to_its_winner(motion_on: None) -> None:
    clock = Clock()
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with app.run_test(size=SIZE) as pilot:
        felt, won = await won_then_led(app, pilot, clock)
        assert won is not None and won.tricks
        winner = won.tricks[-1].winner
        flights = felt.motion.flights
        sweeps = [f for f in flights if f.target == ("panel", winner)]
        assert len(sweeps) == len(won.tricks[-1].plays)  # the whole trick, to its winner
        lead = dealt(app).trick[0]
        assert any(f.card == lead[1] and f.target == ("trick", lead[0]) for f in flights)
        # The state is there at once: the hand and the prompt do not wait for the cards.
        assert "YOUR TURN" in screen_text(app) or dealt(app).turn != 0
        clock.now += SWEEP_SECONDS / 2
        felt.refresh()
        await pilot.pause()
        halfway = screen_text(app)
        clock.now += 1.0  # every flight has landed
        felt.refresh()
        await pilot.pause()
        landed = screen_text(app)
        assert felt.motion.flights == []
        assert halfway != landed
    # Drawn without motion, the same state gives the landed screen.
    still = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with still.run_test(size=SIZE) as pilot:
        still.animation_level = "none"
        felt, _ = await won_then_led(still, pilot)
        assert felt.motion.flights == []
        assert screen_text(still) == landed


@pytest.mark.parametrize("why", ["TEXTUAL_ANIMATIONS=none", "setting off", "ascii"])
async def test_no_motion_when_it_is_off(motion_on: None, why: str) -> None:
    app = PilotApp(ClientOptions(name="Ann", ascii_only=why == "ascii"), idle=True)
    async with app.run_test(size=SIZE) as pilot:
        if why == "TEXTUAL_ANIMATIONS=none":
            app.animation_level = "none"
        if why == "setting off":
            app.prefs.motion = False
        felt, _ = await won_then_led(app, pilot)
        assert felt.motion.flights == []


async def test_the_test_suite_runs_without_motion() -> None:
    """PITCHNET_MOTION=off (tests/conftest.py) keeps every other test's screens still."""
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with app.run_test(size=SIZE) as pilot:
        felt, _ = await won_then_led(app, pilot)
        assert felt.motion.flights == []


async def test_a_new_hand_is_dealt_from_the_dealer(motion_on: None) -> None:
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with app.run_test(size=SIZE) as pilot:
        app.game.seat = 0
        await show(app, pilot, 1, "playing")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        felt = app.screen.query_one(Felt)
        felt.clock = Clock()
        view = app.game.view
        assert view is not None
        # The same table, one hand later: what the felt sees when the next deal comes.
        import dataclasses

        later = dataclasses.replace(view, hand_number=view.hand_number + 1, trick=[], tricks=[])
        felt.show(dataclasses.replace(app.game, view=later))
        deals = [f for f in felt.motion.flights if f.card is None]
        assert {f.target[1] for f in deals} == set(range(view.players))
        assert all(f.source == ("panel", view.dealer) for f in deals)
