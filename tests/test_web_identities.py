"""The web join's identities against strangers (issue 27): requests without a cookie
cost the address that makes them, never a seated browser its seat."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp

from client.tokens import SavedSeat, TokenStore
from host.web import MAX_IDENTITIES, MAX_UNSEATED_PER_ADDRESS, WebServer
from tests.test_web_keep import TABLE_ID, address, page_for, sign_in, web_join


def seat(web: WebServer, secret: str, name: str) -> Path:
    """What a browser's client writes once the table seats it: its token, in its file."""
    from host.web import identity_key

    identity = web.identities[identity_key(secret)]
    TokenStore(identity.seats_file).remember(
        SavedSeat(TABLE_ID, name, "127.0.0.1", 1, token="t" * 32)
    )
    return identity.seats_file


async def strangers(web: WebServer, visits: int, source: str = "127.0.0.1") -> None:
    """`visits` cookie-less page loads from `source` (a loopback address of its own)."""
    connector = aiohttp.TCPConnector(local_addr=(source, 0))
    async with aiohttp.ClientSession(connector=connector) as stranger:
        for _ in range(visits):
            async with stranger.get(address(web)) as answer:
                assert answer.status == 200


async def test_300_cookie_less_page_loads_leave_a_sleeping_phones_seat(tmp_path: Path) -> None:
    async with web_join(tmp_path / "keep") as web:
        secret = await sign_in(web, "Ann")
        seats_file = seat(web, secret, "Ann")
        await strangers(web, 300)
        assert 'id="terminal"' in await page_for(web, secret)  # the game, not the name form
        assert seats_file.exists()
        mine = [i for i in web.identities.values() if i.name is None]
        assert len(mine) <= MAX_UNSEATED_PER_ADDRESS  # the stranger churned its own


async def test_strangers_from_many_addresses_forget_only_identities_without_a_seat(
    tmp_path: Path,
) -> None:
    async with web_join(tmp_path / "keep") as web:
        seated = await sign_in(web, "Ann")
        seat(web, seated, "Ann")
        unseated = await sign_in(web, "Bob")  # named, never seated: may go
        sources = MAX_IDENTITIES // MAX_UNSEATED_PER_ADDRESS + 2
        for n in range(sources):
            await strangers(web, MAX_UNSEATED_PER_ADDRESS, f"127.0.0.{n + 2}")
        assert len(web.identities) <= MAX_IDENTITIES
        assert 'id="terminal"' in await page_for(web, seated)
        assert 'name="name"' in await page_for(web, unseated)


async def test_the_web_forms_password_wait_is_per_address_not_per_request(
    tmp_path: Path,
) -> None:
    """Issue 27 item 3: twenty wrong passwords posted at once from one address are
    compared only as the table's limiter allows; then even the right one from that
    address waits (not compared), while another address gets in at once."""
    async with web_join(tmp_path / "keep", password="c4t") as web:

        async def guess(browser: aiohttp.ClientSession, password: str) -> int:
            form = {"name": "Eve", "password": password}
            async with browser.post(address(web) + "join", data=form) as answer:
                return answer.status

        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as eve:
            async with eve.get(address(web)):
                pass
            statuses = await asyncio.gather(*(guess(eve, f"x{n}") for n in range(20)))
            assert statuses.count(403) == 4 and statuses.count(429) == 16
            assert await guess(eve, "c4t") == 429  # the right one is not even compared
        connector = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
        jar = aiohttp.CookieJar(unsafe=True)
        async with aiohttp.ClientSession(connector=connector, cookie_jar=jar) as ann:
            async with ann.get(address(web)):
                pass
            assert await guess(ann, "c4t") == 200  # on to the game page
