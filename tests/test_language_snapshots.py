"""The table during a hand and the setup screen at 80x24 in real Telugu and real
Lithuanian (issue 30): the catalogs as shipped, players named in each script. Telugu's
vowel signs take the cells terminals give them; Lithuanian's words are the longest the
table shows. Nothing may be cut mid-word, nothing shifted. Update with
`pytest --snapshot-update` after looking at each picture (rsvg-convert makes a PNG of
pytest's SVG) and at tests/pilot.py `screen_text` of it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from textual.pilot import Pilot

from client.app import ClientOptions
from client.demo import scene_with_events
from client.widths import count_spacing_marks
from tests.pilot_app import PilotApp

SIZE = (80, 24)
LANGS = ["lt", "te"]
NAMES = {"te": ["అన్నా", "రాజు", "సీత", "కృష్ణ"], "lt": ["Šarūnė", "Žygimantas", "Ąžuolas", "Ėglė"]}


def app(lang: str) -> PilotApp:
    count_spacing_marks()
    return PilotApp(ClientOptions(name=NAMES[lang][0], lang=lang), idle=True)


def showing(name: str, lang: str) -> Callable[[Pilot[Any]], Any]:
    """Seat 0's view of the seeded match at `name`, its players named in `lang`'s script."""

    async def run_before(pilot: Pilot[Any]) -> None:
        table, view, events = scene_with_events(name, 7)
        seats = [replace(seat, name=NAMES[lang][i]) for i, seat in enumerate(table.seats)]
        target = pilot.app
        assert isinstance(target, PilotApp)
        target.game.seat, target.game.table_name = 0, "Kitchen"
        target.apply_state(1, replace(table, seats=seats), view, events)
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("lang", LANGS)
def test_the_table_in_a_real_language(snap_compare: Any, lang: str) -> None:
    assert snap_compare(app(lang), terminal_size=SIZE, run_before=showing("playing", lang))


@pytest.mark.parametrize("lang", LANGS)
def test_the_setup_screen_in_a_real_language(snap_compare: Any, lang: str) -> None:
    from client.screens.setup import SetupScreen

    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.push_screen(SetupScreen(NAMES[lang][0]))
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(app(lang), terminal_size=SIZE, run_before=run_before)
