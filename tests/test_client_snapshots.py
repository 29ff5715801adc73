"""Snapshots of the key screens at the four sizes a player's terminal is likely to have
(60x20 compact, 80x24, 120x40, 200x60), filled with a seeded match (client.demo), so
every run draws exactly the same thing. Update with `pytest --snapshot-update` after
checking the new pictures by eye (pytest writes snapshot_report.html on failure)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from client.app import ClientOptions
from client.demo import scene_with_events, table_info
from client.discovery import FoundTable
from client.screens.match_end import MatchEnd
from client.screens.summary import HandSummary
from pitchnet.protocol import PROTOCOL_VERSION, SeatKind, TableState
from tests.pilot import tables_seen
from tests.pilot_app import PilotApp

SIZE = (80, 24)
SIZES = [(60, 20), (80, 24), (120, 40), (200, 60)]
SEED = 7
sized = pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])

V = PROTOCOL_VERSION
FOUND = [
    FoundTable(
        "Kitchen Table",
        "a1b2c3",
        "127.0.0.1",
        7373,
        V,
        2,
        4,
        "lobby",
        False,
        bot_level="hard",
        open=2,
    ),  # the [red] table's host is too old to advertise its bot level
    FoundTable("[red]x[/red]", "d4e5f6", "127.0.0.1", 7374, V, 4, 4, "playing", False),
    FoundTable(
        "Parlour", "0a0b0c", "127.0.0.1", 7375, V, 1, 5, "lobby", True, bot_level="normal", open=4
    ),
]


FixedBrowser = tables_seen(FOUND)
"""A browser that has already seen three tables (one with a hostile name)."""


def app(
    ascii_only: bool = False, mode: str = "idle", theme: str = "", one_press: bool = False
) -> PilotApp:
    """The app for a snapshot; mode "idle": no first screen (the test shows one)."""
    idle = mode == "idle"
    options = ClientOptions(name="Ann", ascii_only=ascii_only, mode="find" if idle else mode)
    made = PilotApp(options, browser_factory=FixedBrowser, idle=idle)
    if theme:
        made.theme = theme  # remembered in the test's own settings directory
    made.prefs.one_press = one_press
    return made


def showing(
    name: str, modal: type | None = None, partnership: bool = False
) -> Callable[[Pilot[Any]], Any]:
    """A run_before that shows seat 0's view of the named moment of the seeded match."""

    async def run_before(pilot: Pilot[Any]) -> None:
        table, view, events = scene_with_events(name, SEED, partnership=partnership)
        target = pilot.app
        assert isinstance(target, PilotApp)
        target.game.seat, target.game.table_name = 0, table.name
        target.apply_state(1, table, view, events)
        await pilot.pause()
        if modal is not None:
            assert isinstance(target.screen, modal)
        for box in target.screen.query(Input):
            box.cursor_blink = False

    return run_before


@sized
def test_finder(snap_compare: Any, size: tuple[int, int]) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        for box in pilot.app.screen.query(Input):
            box.cursor_blink = False

    assert snap_compare(app(mode="find"), terminal_size=size, run_before=run_before)


@sized
def test_lobby(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(app(), terminal_size=size, run_before=showing("lobby"))


@pytest.mark.parametrize("size", [(60, 20), (80, 24)], ids=["60x20", "80x24"])
def test_partnership_lobby(snap_compare: Any, size: tuple[int, int]) -> None:
    """Partnership play: the two teams as two groups, and the side this player is on."""

    async def run_before(pilot: Pilot[Any]) -> None:
        kinds = [SeatKind.HUMAN, SeatKind.HUMAN, SeatKind.EMPTY, SeatKind.EMPTY]
        table = table_info(TableState.LOBBY, ["Ann", "Cat", "", ""], kinds, partnership=True)
        target = pilot.app
        assert isinstance(target, PilotApp)
        target.game.seat, target.game.table_name = 0, table.name
        target.apply_state(1, table, None, [])
        await pilot.pause()

    assert snap_compare(app(), terminal_size=size, run_before=run_before)


def test_table_bidding(snap_compare: Any) -> None:
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing("bidding"))


NARROW = [(40, 20), (60, 20)]


@pytest.mark.parametrize("size", NARROW, ids=[f"{w}x{h}" for w, h in NARROW])
def test_table_first_bid(snap_compare: Any, size: tuple[int, int]) -> None:
    """The first bidder's widest bid bar (pass, 1-4 and the pitch) whole on a narrow
    terminal, and the header keeping trump, the bid and the target."""
    assert snap_compare(app(), terminal_size=size, run_before=showing("first_bid"))


@sized
def test_table_playing(snap_compare: Any, size: tuple[int, int]) -> None:
    """A trick in progress: the led card and the others' cards in front of their seats."""
    assert snap_compare(app(), terminal_size=size, run_before=showing("playing"))


@sized
def test_trick_won(snap_compare: Any, size: tuple[int, int]) -> None:
    """A completed trick stays on the felt, its winning card marked, until the next lead."""
    assert snap_compare(app(), terminal_size=size, run_before=showing("trick_won"))


@pytest.mark.parametrize("scene", ["playing", "trick_won", "bidding"])
def test_light_theme(snap_compare: Any, scene: str) -> None:
    """The light theme: felt, seats, cards and the winner's mark in its own palette."""
    target = app(theme="textual-light")
    assert snap_compare(target, terminal_size=SIZE, run_before=showing(scene))


@pytest.mark.parametrize("scene", ["playing", "bidding"])
def test_one_press(snap_compare: Any, scene: str) -> None:
    """With the one-press setting the prompt drops ", then Enter": a key plays at once."""
    target = app(one_press=True)
    assert snap_compare(target, terminal_size=SIZE, run_before=showing(scene))


def test_table_playing_ascii(snap_compare: Any) -> None:
    assert snap_compare(app(ascii_only=True), terminal_size=SIZE, run_before=showing("playing"))


@sized
def test_hand_summary(snap_compare: Any, size: tuple[int, int]) -> None:
    run_before = showing("hand_over", HandSummary)
    assert snap_compare(app(), terminal_size=size, run_before=run_before)


@sized
def test_match_end(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(app(), terminal_size=size, run_before=showing("match_over", MatchEnd))


PHONE = (40, 20)
"""A phone in portrait, as the web join (host/web.py) shows it: about 40 columns."""
PHONE_SCENES = {
    "lobby": None,
    "bidding": None,
    "playing": None,
    "trick_won": None,
    "hand_over": HandSummary,
    "match_over": MatchEnd,
}


@pytest.mark.parametrize("scene", list(PHONE_SCENES))
def test_a_phone_in_portrait(snap_compare: Any, scene: str) -> None:
    """40x20 in a browser (web mode): one-line seats, slim cards, the bid buttons, a
    prompt that says to tap, and the summary's button always on screen."""
    run_before = showing(scene, PHONE_SCENES[scene])
    assert snap_compare(app(mode="web"), terminal_size=PHONE, run_before=run_before)


@pytest.mark.parametrize("size", NARROW[1:] + SIZES[1:2], ids=["60x20", "80x24"])
def test_partnership_match_end(snap_compare: Any, size: tuple[int, int]) -> None:
    """Partnership play ends with two ways to play again: same seats, partners rotated."""
    run_before = showing("match_over", MatchEnd, partnership=True)
    assert snap_compare(app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("players", [7])
def test_seven_players_fit_at_60x20(snap_compare: Any, players: int) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        table, view, events = scene_with_events("playing", SEED, players)
        target = pilot.app
        assert isinstance(target, PilotApp)
        target.game.seat, target.game.table_name = 0, table.name
        target.apply_state(1, table, view, events)
        await pilot.pause()

    assert snap_compare(app(), terminal_size=(60, 20), run_before=run_before)


@pytest.mark.parametrize("players", [7])
def test_seven_players_fit_at_80x24(snap_compare: Any, players: int) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        table, view, events = scene_with_events("playing", SEED, players)
        target = pilot.app
        assert isinstance(target, PilotApp)
        target.game.seat, target.game.table_name = 0, table.name
        target.apply_state(1, table, view, events)
        await pilot.pause()

    assert snap_compare(app(), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("size", [*SIZES, PHONE], ids=[*(f"{w}x{h}" for w, h in SIZES), "phone"])
def test_a_trick_in_motion(
    snap_compare: Any, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A frame of motion (issue 28): the won trick on its way to its winner while the
    next lead travels to the middle, drawn at a clock stopped halfway."""
    from client.widgets.felt import Felt
    from client.widgets.motion import PLAY_SECONDS

    monkeypatch.delenv("PITCHNET_MOTION", raising=False)
    moment = [1000.0]

    async def run_before(pilot: Pilot[Any]) -> None:
        await showing("trick_won")(pilot)
        felt = pilot.app.screen.query_one(Felt)
        felt.clock = lambda: moment[0]
        table, view, events = scene_with_events("playing", SEED)
        before = scene_with_events("trick_won", SEED)[2]
        assert events[: len(before)] == before
        target = pilot.app
        assert isinstance(target, PilotApp)
        target.apply_state(2, table, view, events[len(before) :])  # only what is new
        await pilot.pause()  # redrawn (GameChanged) as the card sets off
        moment[0] += PLAY_SECONDS / 3
        felt.refresh()
        await pilot.pause()

    assert snap_compare(app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [*SIZES, PHONE], ids=[*(f"{w}x{h}" for w, h in SIZES), "phone"])
def test_reactions_shown(snap_compare: Any, size: tuple[int, int]) -> None:
    """Two reactions beside their senders' seats (issue 28), and their lines in the log,
    at a clock stopped a second after they came."""
    from pitchnet.reactions import Reaction

    async def run_before(pilot: Pilot[Any]) -> None:
        await showing("playing")(pilot)
        target = pilot.app
        assert isinstance(target, PilotApp)
        target.game.clock = lambda: 50.0
        target.show_reaction(Reaction.NICE, 1, "")
        target.show_reaction(Reaction.HURRY, 2, "")
        await pilot.pause()

    mode = "web" if size == PHONE else "idle"
    assert snap_compare(app(mode=mode), terminal_size=size, run_before=run_before)
