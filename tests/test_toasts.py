"""Toasts on a small screen (the LAN game night: five "Trump was led" toasts stacked over
a phone's cards and bid buttons): one toast per sentence, and at most two at once under
60 columns, three on a wider screen."""

from __future__ import annotations

import pytest

from client.app import MAX_TOASTS, ClientOptions
from tests.pilot import until
from tests.pilot_app import PilotApp


@pytest.mark.parametrize(("width", "most"), [(40, 2), (100, MAX_TOASTS)])
async def test_a_repeated_sentence_is_one_toast_and_few_show_at_once(width: int, most: int) -> None:
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with app.run_test(size=(width, 24)) as pilot:
        await pilot.pause()
        app.clear_notifications()
        for _ in range(5):
            app.notify("Trump was led: you must play hearts.")
        await pilot.pause()
        assert [n.message for n in app._notifications] == ["Trump was led: you must play hearts."]
        for n in range(5):
            app.notify(f"Sentence {n}.")
        await until(pilot, lambda: len(list(app._notifications)) == most, "the oldest gone")
        assert [n.message for n in app._notifications][-1] == "Sentence 4."
        assert len(app.notices) >= 10  # every sentence is still kept for the log
        await app.close_network()
