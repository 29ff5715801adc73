"""The table and the setup screen at 80x24 in a script like Telugu's and with
Lithuanian's diacritics (issue 30): nothing shifts, nothing is cut mid-letter.

The translations are pseudo ones made from the template (tests/pseudo.py), so these
pictures do not change as translators fill the catalogs: every Latin letter of the
English becomes a Telugu consonant with a vowel sign (ు takes a cell of its own in a
terminal, ె, ్ and ా none), or takes Lithuanian's diacritics. Card faces stay as they are.
Update with `pytest --snapshot-update` after checking the pictures by eye."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest
from textual.pilot import Pilot

from client.app import ClientOptions, PitchApp
from client.demo import scene_with_events
from client.widths import count_spacing_marks
from pitchnet import i18n
from tests.pseudo import lithuanian_like, pseudo_translations, telugu_like

SIZE = (80, 24)
SCRIPTS = {"te": telugu_like, "lt": lithuanian_like}
NAMES = {"te": ["అన్నా", "రాజు", "సీత", "కృష్ణ"], "lt": ["Šarūnė", "Žygimantas", "Ąžuolas", "Ėglė"]}


@pytest.fixture(params=sorted(SCRIPTS))
def lang(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    code: str = request.param
    real = i18n.translations
    made = pseudo_translations(code, SCRIPTS[code])
    monkeypatch.setattr(i18n, "translations", lambda c: made if c == code else real(c))
    count_spacing_marks()
    yield code


def app(lang: str) -> PitchApp:
    return PitchApp(ClientOptions(name=NAMES[lang][0], mode="idle", lang=lang))


def showing(name: str, lang: str) -> Callable[[Pilot[Any]], Any]:
    """Seat 0's view of the seeded match at `name`, its players named in `lang`'s script."""

    async def run_before(pilot: Pilot[Any]) -> None:
        table, view, events = scene_with_events(name, 7)
        seats = [replace(seat, name=NAMES[lang][i]) for i, seat in enumerate(table.seats)]
        target: PitchApp = pilot.app  # type: ignore[assignment]
        target.game.seat, target.game.table_name = 0, "Kitchen"
        target.apply_state(1, replace(table, seats=seats), view, events)
        await pilot.pause()

    return run_before


def test_the_table_in_another_script(snap_compare: Any, lang: str) -> None:
    assert snap_compare(app(lang), terminal_size=SIZE, run_before=showing("playing", lang))


def test_the_setup_screen_in_another_script(snap_compare: Any, lang: str) -> None:
    from client.screens.setup import SetupScreen

    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.push_screen(SetupScreen(NAMES[lang][0]))
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(app(lang), terminal_size=SIZE, run_before=run_before)
