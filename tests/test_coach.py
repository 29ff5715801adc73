"""The coach (`c` at the table): the `hard` bot's choice from the seat's own view, in a line."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from client.app import ClientOptions
from client.demo import scene_with_events
from pitchnet.bots import SearchBot, make_bot
from pitchnet.cards import shuffled_deck
from pitchnet.coach import advise, moment
from pitchnet.rules import Action, Match, Phase, Settings
from pitchnet.search import Budget
from pitchnet.views import SeatView, seat_view
from tests.pilot import at_the_table, until
from tests.pilot_app import PilotApp
from tests.test_search import same_view_pairs

SMALL = Budget(samples=12)


def _views(seed: int, players: int = 4) -> list[SeatView]:
    """Every view that asked a seat for something in one seeded hand of normal bots."""
    rng = random.Random(seed)
    match = Match(Settings(players), dealer=seed % players)
    match.deal(shuffled_deck(rng))
    normal, views = make_bot("normal"), []
    while match.phase in (Phase.BIDDING, Phase.PLAYING):
        assert match.turn is not None
        view = seat_view(match, match.turn)
        views.append(view)
        normal.decide(view).apply_to(match)
    return views


@pytest.mark.parametrize("seed", range(3))
def test_the_coach_suggests_what_the_hard_bot_would_do(seed: int) -> None:
    for view in _views(seed)[::3]:
        advice = advise(view, SMALL, seed=seed)
        assert advice is not None and advice.moment == moment(view)
        hard = SearchBot(seed, SMALL).decide(view)
        if view.phase == Phase.BIDDING:
            assert advice.card is None and Action.of_bid(view.seat, advice.bid) == hard
            assert advice.bid in view.legal_bids
            assert advice.line.startswith("Pass" if advice.bid is None else f"Bid {advice.bid}")
        else:
            assert advice.card in view.legal_plays and advice.bid is None
            assert hard.card is not None and hard.card.text == advice.card
            assert advice.line.startswith("Play the ")
        assert advice.line.endswith(".") and "\n" not in advice.line


@pytest.mark.parametrize("seed", range(4))
def test_the_same_view_gets_the_same_advice_whatever_the_hidden_cards(seed: int) -> None:
    """The blind test the bots pass: two deals that show one seat the same view (the
    hidden cards differ) get the same advice, word for word."""
    compared = 0
    for view, other in same_view_pairs(seed, Settings(4, partnership=seed % 2 == 1)):
        assert advise(view, SMALL, seed) == advise(other, SMALL, seed)
        compared += 1
    assert compared >= 4


def test_no_advice_when_the_view_asks_nothing_of_the_seat() -> None:
    views = _views(1)
    waiting = next(v for v in views if v.turn is not None)
    other_seat = seat_view_for_other(waiting)
    assert advise(other_seat, SMALL) is None  # not this seat's turn
    assert advise(dataclasses.replace(waiting, spectator=True), SMALL) is None


def seat_view_for_other(view: SeatView) -> SeatView:
    """The same moment as another seat sees it (not its turn)."""
    return dataclasses.replace(view, seat=(view.seat + 1) % view.players)


def test_a_forced_card_is_said_to_be_the_only_one() -> None:
    for seed in range(20):
        forced = [v for v in _views(seed) if v.phase == Phase.PLAYING and len(v.legal_plays) == 1]
        if forced:
            advice = advise(forced[0], SMALL)
            assert advice is not None and advice.card == forced[0].legal_plays[0]
            assert advice.line.endswith("it is the only card you may play.")
            return
    pytest.fail("no forced card in 20 seeded hands")


def test_a_bid_names_its_trump_and_the_cards_held_in_it() -> None:
    for seed in range(30):
        for view in _views(seed):
            if view.phase != Phase.BIDDING:
                break
            advice = advise(view, SMALL, seed)
            assert advice is not None
            if advice.bid is None or "as trump you hold" not in advice.line:
                continue
            suit = advice.line.split(" with ")[1].split(" as trump")[0]
            held = [c for c in view.cards if c.suit is not None and c.suit.plural == suit]
            assert held, advice.line
            assert "% of the deals like this one" in advice.line
            return
    pytest.fail("no bid advised in 30 seeded auctions")


# ---- at the table: `c` ------------------------------------------------------------------------


def _notices(app: Any) -> list[str]:
    return [str(n.message) for n in app._notifications]


COACH_LINES = ("Bid", "Pass", "Play")
"""How the coach's line begins (its advice's first word)."""


async def _ask_the_coach(pilot: Any, app: Any) -> None:
    """Press `c` and wait for the coach's line among the toasts."""
    await pilot.press("c")
    await until(
        pilot,
        lambda: any(n.startswith(COACH_LINES) for n in _notices(app)),
        "the coach's line",
    )


@pytest.mark.parametrize("scene_name", ["bidding", "playing"])
async def test_c_at_the_table_shows_the_coachs_line_once_per_decision(
    scene_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pitchnet.coach

    calls: list[tuple[int, int]] = []
    real = pitchnet.coach.advise

    def counted(view: SeatView, budget: Budget = SMALL, seed: int = 0) -> Any:
        calls.append(moment(view))
        return real(view, SMALL, seed)

    monkeypatch.setattr(pitchnet.coach, "advise", counted)
    table, view, events = scene_with_events(scene_name, seed=7)
    assert view is not None and view.turn == view.seat
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with at_the_table(app, (table, view, events), (80, 24)) as pilot:
        await _ask_the_coach(pilot, app)
        await pilot.press("c")  # the same decision: the same line, not thought out again
        await until(  # said again (one toast: a repeated sentence replaces its own)
            pilot,
            lambda: len([n for n in app.notices if n[:3] in ("Bid", "Pas", "Pla")]) >= 2,
            "the line again",
        )
        assert calls == [moment(view)]
        expected = real(view, SMALL)
        assert expected is not None and expected.line in _notices(app)


async def test_c_says_why_there_is_no_coach_when_watching_or_turned_off() -> None:
    table, view, events = scene_with_events("bidding", seed=7)
    assert view is not None
    off = dataclasses.replace(table, coach=False)
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with at_the_table(app, (off, view, events), (80, 24)) as pilot:
        await pilot.press("c")
        await until(pilot, lambda: _notices(app), "a sentence")
        assert _notices(app) == ["This table's host has turned the coach off."]
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    watching = dataclasses.replace(view, spectator=True, hand=[], legal_bids=[], legal_plays=[])
    async with at_the_table(app, (table, watching, events), (80, 24)) as pilot:
        await pilot.press("c")
        await until(pilot, lambda: _notices(app), "a sentence")
        assert _notices(app) == ["The coach helps players on their turn; you are watching."]


def test_the_table_says_whether_the_coach_is_allowed() -> None:
    from host.snapshots import table_info
    from host.table import Table, TableOptions

    table = Table("t1", "Test", TableOptions(coach=False), deal_deck=lambda key: shuffled_deck())
    assert table_info(table).coach is False
    other = Table("t2", "Test", TableOptions(), deal_deck=lambda key: shuffled_deck())
    assert table_info(other).coach


async def test_the_coachs_line_goes_once_its_decision_has_passed() -> None:
    """Left up for its seconds after the bid, the line read as advice for the next move."""
    table, view, events = scene_with_events("bidding", seed=7)
    assert view is not None and view.turn == view.seat
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with at_the_table(app, (table, view, events), (80, 24)) as pilot:
        await _ask_the_coach(pilot, app)
        later = dataclasses.replace(view, step=view.step + 1, turn=(view.seat + 1) % 4)
        app.apply_state(app.game.seq + 1, table, later, [])
        await until(
            pilot,
            lambda: not any(n.startswith(COACH_LINES) for n in _notices(app)),
            "the line gone once the decision passed",
        )
