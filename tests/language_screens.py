"""Screenshots of a hand in each of pitchnet's six languages, in a terminal and on a
phone (issue 30), for docs/screenshots/ and README's "Your language". Not a test: run
it and look at the pictures.

Terminal: the seeded demo hand (client.demo, seat 0's view of a trick being played) at
80x24, saved by Textual as SVG and drawn as PNG by chromium. Phone: a real table
on 127.0.0.1 with three bots, joined from Debian's chromium (Playwright, as the browser
tests drive it) emulating a 360x780 phone at device scale factor 3, its name page set to
the language; the player bids and plays a card by taps, and the page is captured at
the phone's own pixels.

Telugu needs a font with its glyphs on the machine that draws the pictures (Debian:
apt-get install fonts-lohit-telu); a phone has its own.

Run: uv run --group browser python -m tests.language_screens [OUTDIR]
(default docs/screenshots; `--terminal` or `--phone` makes only those)."""

from __future__ import annotations

import asyncio
import math
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

LANGS = ("en", "tl", "lt", "te", "hr", "da")
TERMINAL = (80, 24)
PNG_WIDTH = 960
"""The terminal pictures' width in pixels: 12 per cell, readable and a small file."""
VIEWBOX = r'viewBox="([0-9. ]+)"'


async def terminal(lang: str, out: Path) -> Path:
    """The demo hand at 80x24 in `lang`, as PNG: Textual's SVG drawn by chromium, which
    keeps each run of text to its cells (rsvg-convert let Telugu runs drift)."""
    from client.app import ClientOptions
    from client.demo import scene_with_events
    from client.widths import count_spacing_marks
    from tests.browser import browser
    from tests.pilot_app import PilotApp

    count_spacing_marks()
    app = PilotApp(ClientOptions(name="Ann", lang=lang), idle=True)
    png = out / f"hand-{lang}-terminal.png"
    async with app.run_test(size=TERMINAL) as pilot:
        table, view, events = scene_with_events("playing", 7)
        app.game.seat, app.game.table_name = 0, table.name
        app.apply_state(1, table, view, events)
        await pilot.pause()
        await pilot.pause()
        svg = app.export_screenshot()
    _x, _y, width, height = (float(n) for n in re.findall(VIEWBOX, svg)[0].split())
    size = {"width": PNG_WIDTH, "height": math.ceil(PNG_WIDTH * height / width)}
    with tempfile.TemporaryDirectory() as folder:
        drawn = Path(folder) / "hand.svg"
        drawn.write_text(svg, encoding="utf-8")
        async with browser() as chromium:
            page = await chromium.new_page(viewport=size)
            # Nothing from the network: the SVG names web fonts; the machine's are used.
            await page.route("**/*", _local_only)
            await page.goto(drawn.as_uri())
            await page.screenshot(path=str(png))
    return png


async def _local_only(route: Any) -> None:
    if route.request.url.startswith("file:"):
        await route.continue_()
    else:
        await route.abort()


async def phone(lang: str, out: Path) -> Path:
    """A hand on a phone in `lang`: joined, a bid made and a card played by taps."""
    from tests.browser import PHONE_AT_3, browser, painted, web_table
    from tests.test_web_browser import take_turn, up_to_date
    from tests.test_web_devices import seated_with_hand

    async with web_table() as (host, web), browser() as chromium:
        options = {**PHONE_AT_3, "locale": lang}
        context, page, identity, seat = await seated_with_hand(chromium, web, host, options, lang)
        while not (await take_turn(page, host, identity, seat, touch=True)).startswith("play"):
            pass
        await up_to_date(host, identity)
        await painted(page)
        png = out / f"hand-{lang}-phone.png"
        await page.screenshot(path=str(png))
        await context.close()
    return png


async def main(out: Path, kinds: set[str]) -> None:
    os.environ.setdefault("PITCHNET_INTERFACE", "127.0.0.1")
    os.environ.setdefault("PITCHNET_MOTION", "off")  # the cards still, as they landed
    with tempfile.TemporaryDirectory() as home:
        # Not this machine's own remembered name, language or unfinished tables.
        os.environ["PITCHNET_STATE_DIR"] = str(Path(home) / "state")
        os.environ["PITCHNET_CONFIG_DIR"] = str(Path(home) / "config")
        for lang in LANGS:
            if "terminal" in kinds:
                print(await terminal(lang, out))
            if "phone" in kinds:
                print(await phone(lang, out))


def run() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    kinds = {a[2:] for a in sys.argv[1:] if a.startswith("--")} or {"terminal", "phone"}
    out = Path(args[0] if args else "docs/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    asyncio.run(main(out, kinds))


if __name__ == "__main__":
    run()
