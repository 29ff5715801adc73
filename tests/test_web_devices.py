"""The web join on the screens guests bring: phones, tablets and laptops at device pixel
ratios 1, 2 and 3, in portrait and landscape, by taps and by keys (Debian's chromium
driven by Playwright, emulating each device: viewport, device_scale_factor, is_mobile,
has_touch).

Each test reads the game from the host and what is on screen from the page: the
terminal's box against the viewport, and every canvas's backing store against its CSS
size times the ratio (a canvas drawn at 1x on a 3x screen is what made a phone show only
the top-left quarter of the table). Screenshots go to $PITCHNET_SCREENSHOTS (default
/tmp/pitchnet-screens), named after the device, to be looked at.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

import pytest

from pitchnet.rules import Match
from tests.browser import (
    browser,
    click,
    identity_of,
    join,
    painted,
    phone,
    regions,
    screenshot_dir,
    seat_of,
    web_table,
)
from tests.netclient import until_true
from tests.table_doubles import dealt_hand, match_of
from tests.test_web_browser import hand_of, shown_cards, take_turn, up_to_date

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]


DEVICES: dict[str, dict[str, Any]] = {
    "phone-1x": phone(360, 740, 1),
    "phone-2x": phone(390, 844, 2),
    "phone-3x": phone(360, 780, 3),
    "phone-3x-landscape": phone(780, 360, 3),
    "tablet-2x": phone(820, 1180, 2),
    "laptop-1x": {"viewport": {"width": 1280, "height": 800}, "device_scale_factor": 1},
    "laptop-2x": {"viewport": {"width": 1440, "height": 900}, "device_scale_factor": 2},
}

KEYBOARD = "m => document.querySelector('.xterm-helper-textarea')?.getAttribute('inputmode') === m"
"""True when the terminal's hidden text field has inputmode `m` ("none": no keyboard)."""

DRAWN = """() => {
  const screen = document.querySelector(".xterm-screen").getBoundingClientRect();
  const canvases = [...document.querySelectorAll(".xterm-screen canvas")].map(c => {
    const box = c.getBoundingClientRect();
    return {backing: [c.width, c.height], css: [box.width, box.height]};
  });
  return {
    ratio: window.devicePixelRatio,
    viewport: [window.innerWidth, window.innerHeight],
    screen: [screen.left, screen.top, screen.right, screen.bottom],
    canvases: canvases,
  };
}"""


async def drawn(page: Any) -> dict[str, Any]:
    await painted(page)
    result: dict[str, Any] = await page.evaluate(DRAWN)
    return result


def assert_whole_and_sharp(drawing: dict[str, Any], ratio: int) -> None:
    """The terminal inside the viewport, each canvas backed by ratio x its CSS pixels."""
    assert drawing["ratio"] == ratio
    width, height = drawing["viewport"]
    left, top, right, bottom = drawing["screen"]
    assert left >= 0 and top >= 0 and right <= width and bottom <= height, drawing
    assert right >= width * 0.95 and bottom >= height * 0.9, drawing  # and fills it
    assert drawing["canvases"], drawing
    for canvas in drawing["canvases"]:
        for backing, css in zip(canvas["backing"], canvas["css"], strict=True):
            assert abs(backing - css * ratio) <= ratio, drawing


def assert_hand_on_screen(identity: Any) -> None:
    """Every card the session shows lies inside the browser's terminal."""
    columns, rows = identity.session.size
    cards = {k: v for k, v in regions(identity)["regions"].items() if k.startswith("card:")}
    assert cards
    for key, (x, y, width, height) in cards.items():
        assert x + width <= columns and y + height <= rows, (key, columns, rows)


async def seated_with_hand(
    chromium: Any, web: Any, host: Any, options: dict[str, Any], lang: str | None = None
) -> Any:
    """A browser context joined as Ann (in `lang`, if given), seated, her hand drawn."""
    context = await chromium.new_context(**options)
    page = await context.new_page()
    await join(page, web, "Ann", lang)
    await until_true(lambda: seat_of(host, "Ann") is not None, "Ann to sit down")
    seat = seat_of(host, "Ann")
    assert seat is not None
    identity = await identity_of(context, web)
    assert identity is not None
    await until_true(lambda: identity.session is not None, "Ann's session")
    await until_true(lambda: bool(hand_of(host, seat)), "a deal", timeout=60)
    await until_true(lambda: shown_cards(identity) == hand_of(host, seat), "the hand drawn")
    return context, page, identity, seat


@pytest.mark.parametrize("device", list(DEVICES))
async def test_the_table_is_drawn_whole_and_sharp_on_each_device(device: str) -> None:
    options = DEVICES[device]
    ratio = options["device_scale_factor"]
    async with web_table() as (host, web), browser() as chromium:
        context, page, identity, _seat = await seated_with_hand(chromium, web, host, options)
        assert_whole_and_sharp(await drawn(page), ratio)
        assert_hand_on_screen(identity)
        columns, _rows = identity.session.size
        if options["viewport"]["width"] <= 400:
            assert columns >= 40, identity.session.size
        await page.screenshot(path=str(screenshot_dir() / f"device-{device}.png"))
        await context.close()


def turned_to(identity: Any, wide: bool) -> bool:
    """The session's screen is as wide (or as tall) as the turned device's."""
    width: int
    height: int
    width, height = identity.session.size
    return (width > height) == wide


def past_hand(match: Match, number: int) -> bool:
    """The match has dealt past hand `number`, or ended."""
    return match.hand_number > number or match.phase.value == "match_over"


async def test_a_phone_at_ratio_3_plays_a_whole_hand_by_taps_and_turns_mid_hand() -> None:
    """Portrait, then landscape after the first card, then portrait again: each time
    the whole terminal is on screen and sharp, and the taps land on the cards."""
    portrait = DEVICES["phone-3x"]
    upright, sideways = portrait["viewport"], {"width": 780, "height": 360}
    async with web_table() as (host, web), browser() as chromium:
        context, page, identity, seat = await seated_with_hand(chromium, web, host, portrait)
        done: list[str] = []
        while (action := await take_turn(page, host, identity, seat, touch=True)) not in (
            "hand_over",
            "match_over",
        ):
            done.append(action)
            plays = sum(a.startswith("play") for a in done)
            if plays in (1, 3) and action.startswith("play"):
                turned = sideways if plays == 1 else upright
                await page.set_viewport_size(turned)
                wide = turned["width"] > turned["height"]
                await until_true(
                    partial(turned_to, identity, wide), "the session resized to the turned screen"
                )
                await until_true(
                    lambda: regions(identity).get("size") == list(identity.session.size),
                    "the client laid out for the turned screen",
                )
                await up_to_date(host, identity)
                assert_whole_and_sharp(await drawn(page), 3)
                assert identity.session.size[0] >= 40, identity.session.size
                name = "landscape" if wide else "portrait-again"
                await page.screenshot(path=str(screenshot_dir() / f"device-turned-{name}.png"))
        assert sum(a.startswith("play") for a in done) == 6
        assert dealt_hand(host.table).hands[seat] == []
        assert await page.evaluate(KEYBOARD, "none")  # no tap opened the keyboard
        await context.close()


async def test_a_desktop_browser_takes_keys_without_a_first_click() -> None:
    async with web_table() as (host, web), browser() as chromium:
        options = DEVICES["laptop-1x"]
        context, page, identity, seat = await seated_with_hand(chromium, web, host, options)
        match = match_of(host.table)
        await until_true(
            lambda: match.turn == seat or match.phase.value != "bidding", "Ann's bid", 60
        )
        assert match.phase.value == "bidding" and match.turn == seat
        await up_to_date(host, identity)
        step = dealt_hand(host.table).step
        legal = match.legal_bids(seat)
        key = "p" if None in legal else str(max(b for b in legal if b is not None))
        await page.keyboard.press(key)  # no click anywhere on the page before this
        await page.keyboard.press("Enter")
        await until_true(
            lambda: dealt_hand(host.table).step > step, "the host to take the keyed bid"
        )
        await context.close()


async def test_a_phone_offline_for_a_minute_is_away_then_back_in_its_seat_by_itself() -> None:
    """Wi-Fi gone for 60 s (`context.set_offline`): the table sees the seat away, and once
    the network is back the page returns to the same seat and hand with no tap."""
    async with web_table() as (host, web), browser() as chromium:
        context, page, identity, seat = await seated_with_hand(
            chromium, web, host, DEVICES["phone-3x"]
        )
        first = identity.session
        loop_time = asyncio.get_running_loop().time
        await context.set_offline(True)
        offline_since = loop_time()
        await until_true(lambda: not host.table.seats[seat].connected, "the seat seen away")
        await page.locator("body.-ended").wait_for(timeout=30_000)
        assert "Reconnecting" in await page.locator("#notice-text").inner_text()
        # A minute away: wait it out on the host's clock, checking it stays away.
        await until_true(
            lambda: host.table.seats[seat].connected or loop_time() - offline_since >= 60,
            "a minute offline",
            timeout=90,
        )
        assert not host.table.seats[seat].connected
        await context.set_offline(False)
        await until_true(
            lambda: identity.session not in (None, first) and seat_of(host, "Ann") == seat,
            "back in the seat without a tap",
        )
        # Her hand as it is now (a bot may have played for her while she was away).
        await until_true(
            lambda: (
                regions(identity).get("seq") == host.table.seq
                and shown_cards(identity) == hand_of(host, seat)
            ),
            "her hand on screen, up to date",
        )
        assert_whole_and_sharp(await drawn(page), 3)
        await page.screenshot(path=str(screenshot_dir() / "device-back-from-offline.png"))
        await context.close()


async def test_a_phone_keeps_its_keyboard_shut_until_the_game_asks_for_text() -> None:
    """Taps never open the on-screen keyboard; the table's password prompt does. (The
    host's password is not given to the web join, so the session's client asks.)"""
    secret = {"password": "swordfish"}
    async with web_table(secret, password=None) as (host, web), browser() as chromium:
        context = await chromium.new_context(**DEVICES["phone-3x"])
        page = await context.new_page()
        await join(page, web, "Ann")
        await page.wait_for_function(KEYBOARD, arg="text", timeout=30_000)
        await page.screenshot(path=str(screenshot_dir() / "device-password-asked.png"))
        await page.keyboard.type("swordfish")
        await page.keyboard.press("Enter")
        await until_true(lambda: seat_of(host, "Ann") is not None, "Ann seated")
        await page.wait_for_function(KEYBOARD, arg="none", timeout=30_000)
        await context.close()


@pytest.mark.timeout(600)
async def test_a_phone_at_ratio_3_plays_a_whole_match_by_taps_seeing_its_whole_hand() -> None:
    """Issue 24's "done": the lowest target, bots acting at once, and every bid, card and
    "next hand" of the phone's seat tapped on the canvas where the client drew it. The
    phone passes where it may, so that the bots reach the target in few hands. The
    host's record of each hand then holds the seat's bid each time the auction came to it
    and its six cards, and the seat was a person's (never a bot's) throughout."""
    options = DEVICES["phone-3x"]
    async with web_table({"target": 7}) as (host, web), browser() as chromium:
        context, page, identity, seat = await seated_with_hand(chromium, web, host, options)
        hands: list[Any] = []
        tapped: list[list[str]] = []
        shots = 0
        while True:
            match = match_of(host.table)
            if match.hand is not None and (not hands or match.hand is not hands[-1]):
                hands.append(match.hand)
                tapped.append([])
                await up_to_date(host, identity)
                await until_true(
                    lambda: shown_cards(identity) == hand_of(host, seat), "the new hand drawn"
                )
                assert_whole_and_sharp(await drawn(page), 3)
                assert_hand_on_screen(identity)
                if shots < 2:
                    path = screenshot_dir() / f"device-match-hand-{len(hands)}.png"
                    await page.screenshot(path=str(path))
                    shots += 1
            action = await take_turn(page, host, identity, seat, touch=True, least=True)
            assert host.table.seats[seat].kind == "human", "a bot took the phone's seat"
            if action == "match_over":
                break
            if action == "hand_over":
                number = match.hand_number
                await click(page, identity, "ready", touch=True)
                await until_true(
                    partial(past_hand, match, number),
                    "the next hand after the phone tapped 'next hand'",
                    timeout=60,
                )
                continue
            tapped[-1].append(action)
        assert match_of(host.table).winner is not None
        assert len(hands) >= 2, "a match to 7 is more than one hand"
        for hand, actions in zip(hands, tapped, strict=True):
            ours = [bid for who, bid in hand.bids if who == seat]
            assert len(ours) == sum(a.startswith("bid") for a in actions), (hand.bids, actions)
            played = [
                str(card) for trick in hand.tricks for who, card in trick.plays if who == seat
            ]
            assert played == [a.removeprefix("play ") for a in actions if a.startswith("play")]
            assert len(played) == len(hand.tricks)  # a card in every trick of the hand
        assert await page.evaluate(KEYBOARD, "none")  # no tap opened the keyboard
        await context.close()
