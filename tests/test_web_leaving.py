"""Closing a browser tab is leaving; losing the network is not (issue 25, item 2).

A page closed on purpose asks first ("Leave site?", the browser's own dialog, once the
page has had a click), then says "leaving" on its own websocket as it goes: the host hands
the seat to a bot at once, long before the table's grace period, and keeps it for this
browser (its token stays in the seat file). A connection cut without that word keeps the
seat for the grace period. Everything binds to, and the browser loads only, 127.0.0.1.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from client.tokens import TokenStore
from tests.browser import browser, drop_wifi, identity_of, join, seat_of, web_table
from tests.netclient import until_true

pytestmark = [pytest.mark.timeout(240), pytest.mark.slow]

GRACE = 600.0
"""Far longer than any wait here: a bot that plays the seat was not the grace period's."""


def host_clock() -> float:
    """The host's own clock (the referee is handed the running loop's time)."""
    return asyncio.get_running_loop().time()


async def seated(context: Any, web: Any, host: Any, name: str) -> tuple[int, Any, Any]:
    page = await context.new_page()
    await join(page, web, name)
    await until_true(lambda: seat_of(host, name) is not None, f"{name} seated")
    seat = seat_of(host, name)
    identity = await identity_of(context, web)
    assert seat is not None and identity is not None
    await until_true(lambda: identity.session is not None, "the session counted")
    return seat, identity, page


async def test_closing_the_tab_asks_then_a_bot_plays_the_seat_at_once_and_keeps_it() -> None:
    async with (
        web_table({"grace": GRACE, "bot_delay": 0.2}) as (host, web),
        browser() as chromium,
    ):
        context = await chromium.new_context(viewport={"width": 1000, "height": 700})
        seat, identity, page = await seated(context, web, host, "Ann")
        assert host.table.state == "playing"
        await page.mouse.click(3, 3)  # a gesture: only then may a page ask before closing
        asked: list[str] = []

        async def answer(dialog: Any) -> None:
            asked.append(dialog.type)
            await dialog.accept()

        page.on("dialog", answer)
        await page.close(run_before_unload=True)
        seats = host.table.seats
        await until_true(lambda: seats[seat].substitute, "a bot playing Ann's seat", 30)
        assert asked == ["beforeunload"]
        gone = seats[seat]
        assert gone.kind == "human" and gone.name == "Ann" and not gone.connected
        # The grace period had not run out: it was never started for this seat.
        assert seat not in host.referee.grace_until
        assert gone.away_since is not None and host_clock() - gone.away_since < GRACE
        # The seat is still this browser's: its token is kept, and coming back takes it.
        store = TokenStore(identity.seats_file)
        assert store.find("Ann", table_id=host.table_id) is not None
        await until_true(lambda: identity.session is None, "the closed page's session over")
        back = await context.new_page()
        await back.goto(f"http://127.0.0.1:{web.port}/")
        await until_true(
            lambda: seat_of(host, "Ann") == seat and not seats[seat].substitute,
            "Ann back in her seat from the bot",
        )
        assert [s.name for s in seats].count("Ann") == 1


async def test_a_tab_closed_without_the_question_still_hands_the_seat_to_a_bot() -> None:
    """No click on the page, or a browser that does not ask: the page goes at once."""
    async with web_table({"grace": GRACE}) as (host, web), browser() as chromium:
        context = await chromium.new_context()
        seat, _identity, page = await seated(context, web, host, "Bea")
        await page.close()
        seats = host.table.seats
        await until_true(lambda: seats[seat].substitute, "a bot playing Bea's seat", 30)
        assert seat not in host.referee.grace_until
        assert host_clock() - (seats[seat].away_since or 0.0) < GRACE


async def test_a_dropped_connection_keeps_the_seat_for_the_grace_period() -> None:
    """Wi-Fi gone: the websocket cut with no word from the page (then no network, so the
    page cannot come back). The seat waits, its grace period running, with no bot."""
    async with web_table({"grace": GRACE}) as (host, web), browser() as chromium:
        context = await chromium.new_context()
        seat, identity, _page = await seated(context, web, host, "Cal")
        first = identity.session
        assert first is not None
        await drop_wifi(first, context)
        seats = host.table.seats
        # Once its process is gone the table has heard all it ever will from the session.
        await until_true(
            lambda: first not in web.sessions and not seats[seat].connected,
            "the session over and the seat away",
            30,
        )
        assert not seats[seat].substitute and seats[seat].name == "Cal"
        assert seat in host.referee.grace_until
        assert not first.leaving
