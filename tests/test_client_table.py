"""The table screen's layout and keys against engine-built views (no host): seats in
their real order with the player at the bottom, partners opposite, every size fitting,
bids picked then confirmed, one-press, and pitch as one gesture."""

from __future__ import annotations

import dataclasses
import re
from functools import partial
from pathlib import Path

import pytest
from rich.text import Text
from textual.content import Content
from textual.widgets import Button

from client.app import ClientOptions
from client.model import GameState, top_bid
from client.screens.match_end import MatchEnd
from client.screens.summary import HandSummary
from client.screens.table import TableScreen
from client.widgets.felt import TIERS, choose_layout, felt_text, relative, shorten, trick_shown
from pitchnet.cards import Card
from pitchnet.dirs import state_dir
from pitchnet.protocol import SeatKind
from pitchnet.rules import Trick
from pitchnet.views import running_tally
from tests.pilot import at_the_table, dealt, dealt_scene, screen_text, until
from tests.pilot_app import PilotApp

SIZES = [(60, 14), (80, 18), (120, 34), (200, 54)]
"""Felt sizes left by the 60x20, 80x24, 120x40 and 200x60 terminals."""


@pytest.mark.parametrize("players", range(2, 8))
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_table_fits_every_size(players: int, size: tuple[int, int]) -> None:
    width, height = size
    for me in range(players):
        layout = choose_layout(players, me, width, height)
        assert layout is not None, (players, me, size)
        # Seats and cards lie inside the felt and never on top of each other.
        rects = [layout.centre, *layout.panels, *layout.cards]
        assert all(r.inside(width, height) for r in rects)
        assert not any(a.overlaps(b) for i, a in enumerate(rects) for b in rects[i + 1 :])
        # Every seat shows at least its bid, tricks and score line (no "tiny" seats).
        assert layout.tier.panel_lines >= 1, (players, size, layout.tier.name)


def test_the_player_sits_at_the_bottom_and_play_goes_to_the_left() -> None:
    layout = choose_layout(4, 2, 80, 18)
    assert layout is not None
    panels = layout.panels
    me, left, across, right = panels[2], panels[3], panels[0], panels[1]
    assert me.y > left.y > across.y and me.y > right.y > across.y
    assert left.x < me.x < right.x  # the next seat (3) is on the player's left
    assert relative(3, 2, 4) == 1 and relative(0, 2, 4) == 2  # a partner sits opposite


def test_bigger_terminals_get_bigger_seats() -> None:
    small = choose_layout(4, 0, 60, 14)
    large = choose_layout(4, 0, 120, 34)
    assert small is not None and large is not None
    assert TIERS.index(large.tier) < TIERS.index(small.tier)


def test_names_are_shortened_with_care() -> None:
    assert shorten("Ann", 8, []) == "Ann"
    assert shorten("Christopher", 8, []) == "Christo…"
    # Two names with the same start keep their ends, so they still differ.
    a = shorten("Christopher", 8, ["Christopher", "Christina"])
    b = shorten("Christina", 8, ["Christopher", "Christina"])
    assert a != b and len(a) <= 8 and len(b) <= 8


def game_at(name: str, players: int = 4) -> GameState:
    table, view, _ = dealt_scene(name, 7, players)
    game = GameState()
    game.seat, game.table, game.view = 0, table, view
    return game


def test_a_completed_trick_stays_with_its_winner_marked() -> None:
    game = game_at("trick_won")
    shown = trick_shown(game)
    assert shown is not None and shown.last
    last = dealt(game).tricks[-1]
    assert shown.winner == last.winner
    text = felt_text(game, 80, 18).plain
    assert f"{game.who(last.winner)} won" in text
    assert "✓" in text  # the winning card's mark


def test_the_tally_is_public_and_adds_up() -> None:
    game = game_at("trick_won")
    tally = running_tally(dealt(game))
    worth = {"T": 10, "A": 4, "K": 3, "Q": 2, "J": 1}
    points = sum(
        worth.get(card.text[0], 0) for trick in dealt(game).tricks for _, card in trick.plays
    )
    assert sum(tally["game_points"]) == points
    assert tally["high"] is not None and tally["high"][1][1] == dealt(game).trump


async def test_a_bid_is_picked_then_confirmed(monkeypatch: pytest.MonkeyPatch) -> None:
    table, view, events = dealt_scene("bidding", seed=7)
    sent: list[object] = []
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    monkeypatch.setattr(app, "send_bid", sent.append)
    async with at_the_table(app, (table, view, events), (80, 24)) as pilot:
        assert view is not None
        bid = max(b for b in view.legal_bids if b is not None)
        await pilot.press(str(bid))
        assert sent == []  # picked only
        await pilot.press("enter")
        assert sent == [bid]


async def test_one_press_bids_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    table, view, events = dealt_scene("bidding", seed=7)
    sent: list[object] = []
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    monkeypatch.setattr(app, "send_bid", sent.append)
    app.prefs.one_press = True
    async with at_the_table(app, (table, view, events), (80, 24)) as pilot:
        await pilot.press("p" if None in view.legal_bids else "4")
        assert len(sent) == 1


async def test_at_60x20_every_card_and_the_prompt_are_on_screen() -> None:
    table, view, events = dealt_scene("playing", seed=7, players=7)
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with app.run_test(size=(60, 20)) as pilot:
        app.game.seat = 0
        app.apply_state(1, table, view, events * 3)
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.pause()
        text = screen_text(app)
        assert view is not None
        for card in view.hand:
            assert card[0] + {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}[card[1]] in text
        assert "YOUR TURN" in text
        for seat in range(1, 7):
            assert f"Bot {seat}" in text


async def test_resizing_live_keeps_the_hand_and_prompt_on_screen() -> None:
    table, view, events = dealt_scene("playing", seed=7)
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with at_the_table(app, (table, view, events), (200, 60)) as pilot:
        hand = app.screen.query_one("#hand")
        assert hand.has_class("-huge")  # bigger cards on a huge terminal
        assert hand.size.height > 5  # taller than at 120x40
        for size in ((120, 40), (80, 24), (60, 20)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            assert not hand.has_class("-huge")
            assert hand.has_class("-large") == (size == (120, 40))
            text = screen_text(app)
            assert "YOUR TURN" in text and "Trump" in text
            assert view is not None
            for card in view.hand:
                assert card[0] in text


def test_the_tally_counts_only_public_cards_of_completed_tricks() -> None:
    """It is computed from the view alone, which holds no other seat's hand."""
    game = game_at("playing")
    view = game.view
    assert view is not None
    before = running_tally(view)
    view.trick.append((1, "AS"))  # a card on the table but not yet in a completed trick
    assert running_tally(view) == before


async def test_the_bell_rings_on_our_turn_only_when_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table, view, events = dealt_scene("playing", seed=7)
    for wanted in (False, True):
        app = PilotApp(ClientOptions(name="Ann"), idle=True)
        rung: list[bool] = []
        monkeypatch.setattr(app, "bell", partial(rung.append, True))
        app.prefs.bell = wanted
        async with app.run_test(size=(80, 24)) as pilot:
            app.game.seat = 0
            app.apply_state(1, table, view, events)
            await pilot.pause()
            app.apply_state(2, table, view, [])  # still our turn: no second ring
            await pilot.pause()
        assert rung == ([True] if wanted else [])


async def test_a_screenshot_is_saved_and_the_place_said(tmp_path: Path) -> None:
    table, view, events = dealt_scene("playing", seed=7)
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    shots = state_dir() / "screenshots"  # the test's own (tests/conftest.py)
    async with app.run_test(size=(80, 24)) as pilot:
        app.game.seat = 0
        app.apply_state(1, table, view, events)
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = list(shots.glob("*.svg"))
    assert len(saved) == 1 and "<svg" in saved[0].read_text(encoding="utf-8")
    assert any(str(saved[0]) in notice for notice in app.notices)


@pytest.mark.parametrize("scene", ["hand_over", "match_over"])
async def test_a_screenshot_and_the_rules_work_over_the_summary_and_match_end(
    tmp_path: Path, scene: str
) -> None:
    """ctrl+s and F2 work "anywhere" (the help says so), the end-of-hand and end-of-match
    screens included: those are modal, and a modal screen hides the app's keys unless
    they are priority keys."""
    from client.screens.help import RulesScreen

    table, view, events = dealt_scene(scene, seed=7)
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    shots = state_dir() / "screenshots"  # the test's own (tests/conftest.py)
    async with at_the_table(app, (table, view, events), (80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, (HandSummary, MatchEnd)), scene)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert len(list(shots.glob("*.svg"))) == 1
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)


async def test_the_command_palette_offers_pitchnets_commands() -> None:
    table, view, events = dealt_scene("playing", seed=7)
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with app.run_test(size=(80, 24)) as pilot:
        app.game.seat = 0
        app.apply_state(1, table, view, events)
        await pilot.pause()
        titles = [command.title for command in app.get_system_commands(app.screen)]
    for wanted in ("Last trick", "Rules", "Theme", "Screenshot", "Deck: four colours"):
        assert wanted in titles


async def test_the_theme_and_deck_are_remembered() -> None:
    from client.settings import load_preferences

    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with app.run_test(size=(80, 24)) as pilot:
        app.theme = "textual-light"
        app.set_deck("two")
        await pilot.pause()
    prefs = load_preferences()
    assert prefs.theme == "textual-light" and prefs.deck == "two"
    again = PilotApp(ClientOptions(name="Ann"), idle=True)
    assert again.theme == "textual-light"


@pytest.mark.parametrize("width", [30, 40, 60, 80])
def test_the_header_keeps_trump_bid_and_target_whole(width: int) -> None:
    """At every width down to 30 columns the header fits, with what play needs whole;
    the table's name and the labels give way first."""
    from client.model import status_line
    from client.text import suit_text

    game = game_at("playing")
    game.table_name = "The Long Kitchen Table of Doom"
    view = game.view
    assert view is not None and view.trump is not None and view.high_bid is not None
    line = status_line(game, width).plain
    assert len(line) <= width, line
    assert "Trump " + suit_text(view.trump).plain in line, line
    assert f"Bid {view.high_bid}: {game.who(view.pitcher)}" in line, line
    assert line.endswith(f"To {view.target}"), line
    assert status_line(game).plain.startswith("The Long Kitchen Table of Doom  Hand")


@pytest.mark.parametrize("size", [(40, 20), (60, 20), (80, 24)], ids=["40x20", "60x20", "80x24"])
async def test_every_bid_button_and_the_pitch_show_whole(size: tuple[int, int]) -> None:
    """The first bidder sees pass, every bid and the pitch with its card, none cut off
    at the right edge (the prompt shortens and the buttons narrow for them)."""
    from textual.widgets import Button

    table, view, events = dealt_scene("first_bid", seed=7)
    assert view is not None and len(view.legal_bids) >= 5
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with at_the_table(app, (table, view, events), size):
        shown = [
            b for b in app.screen.query(Button) if b.display and (b.id or "").startswith("bid-")
        ]
        assert len(shown) == len(view.legal_bids) + 1  # and the pitch
        for button in shown:
            assert button.region.right <= size[0] - 1, (button.id, button.region)
        text = screen_text(app)
        assert "BID:" in text
        pitch = app.screen.query_one("#bid-pitch", Button)
        assert str(pitch.label).startswith("!") and view.hand[0][0] in str(pitch.label)


async def test_a_player_away_shows_in_the_smallest_seats() -> None:
    """At 60x20 a seat is one line of numbers; a player who is away still says so."""
    import dataclasses

    table, view, events = dealt_scene("bidding", seed=7)
    seats = list(table.seats)
    seats[2] = dataclasses.replace(seats[2], kind=SeatKind.HUMAN, connected=False, away=12.0)
    table = dataclasses.replace(table, seats=seats)
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with at_the_table(app, (table, view, events), (60, 20)):
        # Counted on once a second from the snapshot's 12 s: a busy machine may show 13.
        # Beside the name, or beside the points under it (Bot 2 is the only one away).
        away = re.search(r"away (\d+)s", screen_text(app))
        assert away is not None and int(away[1]) >= 12, screen_text(app)


@pytest.mark.parametrize("partnership", [False, True])
async def test_the_match_ends_keys_offer_the_rotation_in_partnership_play_only(
    partnership: bool,
) -> None:
    """The help screen lists what the footer shows: no 'Partners rotated' key where it
    does nothing."""
    from client.screens.help import screen_keys
    from client.screens.match_end import MatchEnd

    table, view, events = dealt_scene("match_over", 7, partnership=partnership)
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with app.run_test(size=(80, 24)) as pilot:
        app.game.seat = 0
        app.apply_state(1, table, view, events)
        await until(pilot, lambda: isinstance(app.screen, MatchEnd), "the match end")
        meanings = [meaning for _, meaning in screen_keys(app.screen)]
    assert "Play again" in meanings
    assert ("Partners rotated" in meanings) is partnership


async def test_the_log_rewraps_to_its_width_when_shown_or_resized() -> None:
    """Lines written while the log was hidden (at 80x24, after a wide start) are drawn
    again at the log's width once it shows (a wider terminal, or `l`), not left wrapped
    at RichLog's ten-column minimum."""
    table, view, events = dealt_scene("playing", seed=7)
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with at_the_table(app, (table, view, []), (120, 40)) as pilot:
        log = app.screen.query_one("#log")
        assert log.display
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not log.display
        app.apply_state(2, table, view, events)  # the bids and plays arrive while hidden
        await pilot.pause()
        for shown in ("resize", "l"):
            if shown == "resize":
                await pilot.resize_terminal(120, 40)
            else:
                await pilot.resize_terminal(80, 24)
                await pilot.pause()
                await pilot.press("l")
            await pilot.pause()
            await pilot.pause()
            assert log.display
            text = screen_text(app)
            assert re.search(r"Bot 1 (bids \d|passes)", text), text


@pytest.mark.parametrize("size", [(60, 14), (80, 18)], ids=["60x20", "80x24"])
def test_the_tally_shows_every_sides_game_points_whole(size: tuple[int, int]) -> None:
    """With four players each holding Game points, none is cut off the corner
    (at 80x24 it read "Game Bot 1 4, Bot 2 3, B")."""
    game = game_at("playing")
    assert game.view is not None
    cards = [["TS", "KS", "QS", "JS"], ["TD", "AD", "KD", "QD"], ["TC", "AC", "KC", "9C"]]
    game.view = dataclasses.replace(
        game.view,
        tricks=[
            Trick(w, tuple(((w + i) % 4, Card.parse(c)) for i, c in enumerate(cards[w % 3])), w)
            for w in (1, 2, 3)
        ]
        + [Trick(0, tuple((i, Card.parse(c)) for i, c in enumerate(["3S", "4S", "5S", "AS"])), 0)],
        trick=[],
    )
    points = running_tally(dealt(game))["game_points"]
    assert all(points), points
    text = felt_text(game, *size).plain
    for side, p in enumerate(points):
        assert re.search(rf"{re.escape(game.who(side))} {p}\b", text), (side, p, text)


def test_the_standings_carry_each_sides_chart_number() -> None:
    """At the match end each name has its number from the chart beside it (the chart
    numbers sides by seat), not its place: "1 Bot 3" above a chart whose 1 is Bot 1
    misread the chart whenever the legend under it was scrolled off (60x20, 80x24)."""
    from rich.console import Console

    from client.screens.match_end import standings
    from client.widgets.chart import side_marker

    game = game_at("match_over")
    assert game.view is not None and dealt(game).winner != 0  # place and seat differ
    console = Console(width=60, record=True)
    console.print(standings(game))
    rows = console.export_text().splitlines()[1:]
    for side in range(dealt(game).sides):
        name = game.side_name(side)
        row = next(r for r in rows if f" {name} " in f"{r} ")
        assert row.split()[0] == side_marker(side), (side, rows)


async def test_the_pitch_buttons_card_takes_the_new_themes_colour() -> None:
    """Switching to the light theme recolours the card on the pitch button too: a
    button's label compares by its text only, so the same card in a new colour was
    never drawn (yellow clubs, the dark theme's, on the light theme's grey)."""
    from client.text import card_text

    table, view, events = dealt_scene("bidding", seed=7)
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with at_the_table(app, (table, view, events), (80, 24)) as pilot:
        pitch = app.screen.query_one("#bid-pitch", Button)
        assert pitch.display
        app.theme = "textual-light"
        await pilot.pause()
        assert app.pitch_lead.card is None
        card = str(pitch.label).split()[-1]
        card = card.translate(str.maketrans("♣♦♥♠", "CDHS"))
        card = card.replace("10", "T")  # the screen's ten, the wire's "T"
        now = Content.from_rich_text(Text("! ").append_text(card_text(card))).spans[-1].style
        label = pitch.label
        assert isinstance(label, Content) and label.spans[-1].style == now, (label, now)


def test_the_pitcher_about_to_lead_is_named_in_good_english() -> None:
    """Before the first card the middle says who leads: "You lead", "Bot 3 leads"."""
    game = game_at("playing")
    assert game.view is not None and dealt(game).pitcher == 0  # Ann pitched
    game.view = dataclasses.replace(game.view, trick=[], tricks=[], turn=0)
    assert "You lead" in felt_text(game, 80, 18).plain
    assert "You leads" not in felt_text(game, 80, 18).plain
    game.view = dataclasses.replace(game.view, pitcher=3, turn=3)
    assert "Bot 3 leads" in felt_text(game, 80, 18).plain


async def test_one_point_is_one_pt_in_the_seat_panels() -> None:
    """A seat with 1 (or -1) point says "1 pt", not "1 pts"."""
    import dataclasses

    table, view, events = dealt_scene("bidding", seed=7)
    assert view is not None
    view = dataclasses.replace(view, scores=[1, -1, 2, 0][: len(view.scores)])
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with at_the_table(app, (table, view, events), (80, 24)):
        text = screen_text(app)
        assert re.search(r"(?<![\d-])1 pt\b", text) and "-1 pt " in text, text
        assert "2 pts" in text and not re.search(r"(?<!\d)-?1 pts", text), text


@pytest.mark.parametrize(("watching", "our_turn"), [(False, True), (True, True), (False, False)])
async def test_the_footer_offers_to_play_a_card_only_to_a_player_on_their_turn(
    watching: bool, our_turn: bool
) -> None:
    """A spectator has no hand, and a player waiting for another's card has nothing to
    play: neither footer has a "Play card" key."""
    import dataclasses

    table, view, events = dealt_scene("playing", seed=7)
    assert view.turn == 0
    if not our_turn:
        view = dataclasses.replace(view, turn=1, legal_plays=[])
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with app.run_test(size=(80, 24)) as pilot:
        app.game.seat, app.game.watching = 0, watching
        app.apply_state(1, table, view, events)
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.pause()
        offered = not watching and our_turn
        assert ("Play card" in screen_text(app)) is offered, screen_text(app)


@pytest.mark.parametrize(
    ("joker", "legal", "pitch"),
    [("on", [None, 5], True), ("on", [None, 4, 5], True), ("off", [None, 4], True)],
)
async def test_the_pitch_key_offers_the_tables_top_bid(
    joker: str, legal: list[int | None], pitch: bool
) -> None:
    """`!` bids the top bid the table's rules allow: at a joker table that is 5, so after
    someone bid 4 (only pass and 5 are left) the pitch is still offered."""
    table, view, events = dealt_scene("first_bid", seed=7)
    assert view is not None
    view = dataclasses.replace(view, rules={**view.rules, "joker": joker}, legal_bids=legal)
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with at_the_table(app, (table, view, events), (80, 24)):
        assert app.game.view is not None and dealt(app).turn == app.game.me
        assert app.screen.check_action("pitch", ()) is pitch


def test_the_top_bid_is_read_from_the_rules_and_tolerates_a_newer_hosts() -> None:
    _, view, _ = dealt_scene("first_bid", seed=7)
    assert view is not None
    assert top_bid(dataclasses.replace(view, rules={"joker": "on"})) == 5
    assert top_bid(dataclasses.replace(view, rules={"joker": "off"})) == 4
    assert top_bid(dataclasses.replace(view, rules={"joker": "on", "wild": "on"})) == 5
    assert top_bid(dataclasses.replace(view, rules={"joker": "maybe"})) == 4


@pytest.mark.parametrize("width", [38, 58, 78])
def test_a_late_comer_is_told_why_there_is_no_hand_at_every_width(width: int) -> None:
    """Issue 25: a newcomer who claimed seat 4 watches until the next hand; at 40
    columns (38 inside the padding) the header still says so, short."""
    import dataclasses

    table, view, _ = dealt_scene("playing", 7, 4)
    assert view is not None
    game = GameState()
    game.seat, game.table = 3, table
    game.view = dataclasses.replace(view, spectator=True)
    assert game.me is None  # the spectators' view until the next hand
    line = status_line_plain(game, width)
    assert len(line) <= width, line
    assert "seat 4" in line and "next hand" in line, line
    assert f"To {view.target}" in line, line


def status_line_plain(game: GameState, width: int) -> str:
    from client.model import status_line

    return status_line(game, width).plain


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40), (200, 60), (40, 20)])
async def test_the_other_seats_show_the_backs_of_the_cards_they_hold(
    size: tuple[int, int],
) -> None:
    """Issue 28: a seat's cards face down, one back each, beside or under its name (or
    their count where a row does not fit); never our own, which the hand shows."""
    table, view, events = dealt_scene("playing", seed=7)
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with at_the_table(app, (table, view, events), size):
        text = screen_text(app)
        others = [n for seat, n in enumerate(view.hand_counts) if seat != view.seat]
        rows = re.findall(r"(\d*)(▮+)", text)
        shown = sorted(int(count) if count else len(backs) for count, backs in rows)
        assert shown == sorted(others), (shown, others, text)


@pytest.mark.parametrize("partnership", [False, True])
async def test_the_hand_summary_heads_its_rows_team_or_player(partnership: bool) -> None:
    """Issue 28: partnership rows are teams, under a "Team" heading (not "Player")."""
    table, view, events = dealt_scene("hand_over", 7, partnership=partnership)
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with app.run_test(size=(80, 40)) as pilot:
        app.game.seat = 0
        app.apply_state(1, table, view, events)
        await until(pilot, lambda: isinstance(app.screen, HandSummary), "the summary")
        await pilot.pause()
        heading = re.search(r"(Team|Player) +Before +Hand +Score", screen_text(app))
        assert heading is not None and heading[1] == ("Team" if partnership else "Player")


@pytest.mark.parametrize("watching", [False, True])
async def test_the_match_end_shows_no_rotation_outside_partnerships_and_no_play_again_to_a_watcher(
    watching: bool,
) -> None:
    """From its first frame: no "Partners rotated" button at a table without partners (the
    game night saw one flash), and a watcher, who has no seat to play again in, is offered
    Leave alone."""
    from client.screens.match_end import MatchEnd

    table, view, events = dealt_scene("match_over", 7, partnership=False)
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with app.run_test(size=(80, 24)) as pilot:
        app.game.seat = 0
        app.game.watching = watching
        app.apply_state(1, table, view, events)
        await until(pilot, lambda: isinstance(app.screen, MatchEnd), "the match end")
        await until(pilot, lambda: "Leave (Esc)" in screen_text(app), "the buttons")
        text = screen_text(app)
        assert "Partners rotated" not in text and "Rotate (r)" not in text
        assert ("Play again (Enter)" in text) is not watching


@pytest.mark.parametrize("connected", [True, False])
def test_the_prompt_says_why_the_table_waits_on_a_player_who_lost_the_connection(
    connected: bool,
) -> None:
    """The game night: Cal's link dropped on his turn; the others saw only his seat's
    countdown. The prompt says it in words, and only while he is away."""
    from client.widgets.bidbar import prompt_text

    table, view, _ = dealt_scene("playing", seed=7)
    turn = view.turn
    assert turn is not None
    seats = list(table.seats)
    seats[turn] = dataclasses.replace(
        seats[turn], name="Cal", kind=SeatKind.HUMAN, connected=connected
    )
    table = dataclasses.replace(table, seats=seats)
    # Seen from the next seat, whose turn it is not (the prompt reads only whose it is).
    game = GameState(seat=(turn + 1) % len(seats), table=table, view=view)
    said = prompt_text(game).plain
    assert said.startswith("Waiting for Cal")
    assert ("connection lost" in said) is not connected


@pytest.mark.parametrize("size", [(80, 18), (80, 15), (100, 24), (120, 30), (200, 50)])
def test_a_bot_countdown_shows_whole_in_every_seat_size(size: tuple[int, int]) -> None:
    """The seat whose turn it is, its player away, reads "bot in 58s" whole: at 80x24 it
    read "bot in 58" (the "s" cut by the points beside it), a number with no unit."""
    import dataclasses

    game = game_at("bidding")
    assert game.view is not None and game.table is not None
    seat = 2
    game.view = dataclasses.replace(game.view, turn=seat)
    seats = list(game.table.seats)
    seats[seat] = dataclasses.replace(seats[seat], kind=SeatKind.HUMAN, connected=False)
    game.table = dataclasses.replace(game.table, seats=seats, substitute=True, grace=58.0)
    text = felt_text(game, *size).plain
    assert "bot in 58s" in text, text
