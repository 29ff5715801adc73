"""Driving Debian's chromium with Playwright against a table served by host/web.py.

The terminal is drawn on a canvas, so tests read the game from the host (its table)
and find what to click from the session's regions file (`WebConfig.show_regions`),
turning cells into pixels with the size of xterm's screen element. Playwright's
own browser download is not used: chromium comes from apt (.ci/run installs it), and
Playwright itself from the `browser` dependency group (`uv sync --group browser`). A test
needing either is skipped when it is absent, unless CI is set: then it fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

from host.server import HostServer
from host.web import (
    COOKIE,
    Identity,
    WebConfig,
    WebServer,
    WebSession,
    identity_key,
    regions_file,
)
from tests.netclient import running_host, until_true

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _absent(what: str, how: str) -> NoReturn:
    if os.environ.get("CI"):
        pytest.fail(f"{what} is not installed, and CI must run the browser tests")
    pytest.skip(f"{what} is not installed ({how})")


def chromium_or_skip() -> str:
    path = shutil.which("chromium")
    if path is None:
        _absent("chromium", "apt-get install chromium")
    return path


@contextlib.asynccontextmanager
async def browser() -> AsyncIterator[Any]:
    path = chromium_or_skip()
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        _absent("Playwright", "uv sync --group browser")
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=path, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield launched
        finally:
            await launched.close()


@contextlib.asynccontextmanager
async def web_table(
    host_options: dict[str, Any] | None = None, **web_options: Any
) -> AsyncIterator[tuple[HostServer, WebServer]]:
    """A table with bots on 127.0.0.1 and its web join, both on free ports (the web join
    knows the table's password unless `password` says otherwise)."""
    options = {"bots": 3, "bot_delay": 0.05, **(host_options or {})}
    web_options = {"password": options.get("password"), **web_options}
    async with running_host(**options) as host:
        config = WebConfig(
            port=0,
            table_port=host.port,
            table_id=host.table_id,
            interface="127.0.0.1",
            table_name=host.name,
            show_regions=True,
            **{"table_closed": lambda: host.closed_on_purpose, **web_options},
        )
        web = WebServer(config)
        await web.start()
        try:
            yield host, web
        finally:
            await web.close()


def url(web: WebServer) -> str:
    return f"http://127.0.0.1:{web.port}/"


def phone(width: int, height: int, ratio: int) -> dict[str, Any]:
    """A Playwright context's options for a phone: its CSS size and pixel ratio, touch."""
    return {
        "viewport": {"width": width, "height": height},
        "device_scale_factor": ratio,
        "is_mobile": True,
        "has_touch": True,
    }


PHONE_AT_3 = phone(360, 780, 3)
"""The phone people hold: a small screen at device pixel ratio 3."""


async def join(page: Any, web: WebServer, name: str, lang: str | None = None) -> None:
    """Open the table's address and give a name (choosing `lang` on the page first)."""
    await page.goto(url(web))
    if lang is not None:
        await page.select_option("#lang", lang)
    await page.fill("#name", name)
    await page.click("button[type=submit]")


async def identity_of(context: Any, web: WebServer) -> Identity | None:
    """The server's identity for this browser context's cookie."""
    for cookie in await context.cookies():
        if cookie["name"] == COOKIE:
            return web.identities.get(identity_key(cookie["value"]))
    return None


def seat_of(host: HostServer, name: str) -> int | None:
    """The seat a connected person of that name sits in."""
    for number, seat in enumerate(host.table.seats):
        if seat.kind == "human" and seat.name == name and seat.connected:
            return number
    return None


async def drop_wifi(session: WebSession, context: Any) -> None:
    """A dead Wi-Fi under a browser's session: its connection cut with no close frame
    (the page sees 1006), then no network at all (it cannot reach the host). Cut first:
    offline, the page closes its socket itself, which is a goodbye, not a loss."""
    request = session.websocket._req  # aiohttp's own: the socket under the websocket
    assert request is not None
    transport = request.transport
    assert transport is not None
    transport.abort()
    await context.set_offline(True)


def regions(identity: Identity) -> dict[str, Any]:
    try:
        shown: dict[str, Any] = json.loads(regions_file(identity).read_text(encoding="utf-8"))
        return shown
    except (OSError, ValueError):
        return {"screen": "", "regions": {}}


async def region_of(identity: Identity, key: str, timeout: float = 20.0) -> list[int]:
    """Where `key` (a button's id, or "card:7C") is on the session's screen, in cells."""
    await until_true(lambda: key in regions(identity)["regions"], f"{key} on screen", timeout)
    where: list[int] = regions(identity)["regions"][key]
    return where


async def click_cells(
    page: Any, identity: Identity, region: list[int], *, touch: bool = False
) -> None:
    """Click (or tap) the middle of a region given in cells."""
    assert identity.session is not None
    columns, rows = identity.session.size
    box = await page.locator(".xterm-screen").bounding_box()
    x, y, width, height = region
    cell_width, cell_height = box["width"] / columns, box["height"] / rows
    px = box["x"] + (x + width / 2) * cell_width
    py = box["y"] + (y + height / 2) * cell_height
    if touch:
        await page.touchscreen.tap(px, py)
    else:
        await page.mouse.click(px, py)


async def click(page: Any, identity: Identity, key: str, *, touch: bool = False) -> None:
    await click_cells(page, identity, await region_of(identity, key), touch=touch)


async def painted(page: Any) -> None:
    """Two animation frames: what the page has received is on its canvas."""
    await page.evaluate(
        "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )


def screenshot_dir() -> Path:
    folder = Path(os.environ.get("PITCHNET_SCREENSHOTS", "/tmp/pitchnet-screens"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder
