"""The web join's identities against strangers (issue 27): requests without a cookie
cost the address that makes them, never a seated browser its seat."""

from __future__ import annotations

import asyncio
import sys
from functools import partial
from pathlib import Path

import aiohttp
import pytest

from client.tokens import SavedSeat, TokenStore
from host.web import (
    CLOSE_REFUSED,
    CLOSE_REPLACED,
    COOKIE,
    HTTP_PER_ADDRESS,
    INPUT_BURST,
    MAX_IDENTITIES,
    MAX_UNSEATED_PER_ADDRESS,
    STARTS_BURST,
    WebConfig,
    WebServer,
)
from tests.netclient import until_true
from tests.test_web_keep import TABLE_ID, address, page_for, sign_in, web_join

CLOSING = (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSING, aiohttp.WSMsgType.CLOSED)


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


STAND_IN = (
    "import sys; print('__GANGLION__', flush=True)\n"
    "while (data := sys.stdin.buffer.read1(65536)) and b'quit' not in data: pass"
)
"""A stand-in for the client process: textual-serve's prelude, then it waits for the
quit message or the end of its input. What runs per session is not what is tested."""


def sessions_running(marker: str) -> int:
    """Processes of the stand-in client with `marker` on its command line."""
    count = 0
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit():
                continue
            command = (entry / "cmdline").read_bytes().split(b"\0")
            status = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if marker.encode() in command and status[0] != "Z":
            count += 1
    return count


async def close_code(socket: aiohttp.ClientWebSocketResponse) -> int | None:
    """Read a websocket until the server closes it: its close code."""
    while (await socket.receive()).type not in CLOSING:
        pass
    return socket.close_code


def started_or_refused(web: WebServer, closing: asyncio.Task[int | None]) -> bool:
    """A session started, or the socket was closed on us (bound to this socket's task)."""
    return bool(web.sessions) or closing.done()


async def test_twenty_websockets_at_once_from_one_browser_start_one_session(
    tmp_path: Path,
) -> None:
    """Issue 27 item 5: the caps hold for sessions actually started: twenty websockets
    opened at once by one browser (one identity) leave one client process, not 19."""
    marker = f"pitchnet-test-{tmp_path.name}"
    config = WebConfig(
        port=0, table_port=1, table_id=TABLE_ID, interface="127.0.0.1",
        keep_dir=tmp_path / "keep", client_command=[sys.executable, "-c", STAND_IN, marker],
    )  # fmt: skip
    web = WebServer(config)
    await web.start()
    try:
        secret = await sign_in(web, "Ann")
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as tab:
            tab.cookie_jar.update_cookies({COOKIE: secret})
            sockets = await asyncio.gather(
                *(tab.ws_connect(address(web) + "ws") for _ in range(20))
            )
            closes = [asyncio.create_task(close_code(socket)) for socket in sockets]
            await until_true(lambda: sum(c.done() for c in closes) >= 19, "19 closed")
            codes = [c.result() for c in closes if c.done()]
            # Replaced by the next, or refused: one address starts 8 sessions at once at most.
            assert set(codes) <= {CLOSE_REPLACED, CLOSE_REFUSED} and len(codes) == 19
            for waiting in closes:
                waiting.cancel()
            await until_true(lambda: sessions_running(marker) == 1, "one client process")
            assert len(web.sessions) == 1
    finally:
        await web.close()
    await until_true(lambda: sessions_running(marker) == 0, "the last one gone")


async def test_a_slowloris_is_capped_per_address_timed_out_and_logged_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 27 item 5: one address holding connections that never finish their headers
    gets at most HTTP_PER_ADDRESS of them (the rest closed at once, logged once), each
    closed after REQUEST_SECONDS; another address still gets the page meanwhile."""
    import host.web

    monkeypatch.setattr(host.web, "REQUEST_SECONDS", 1.0)  # the keep-alive timer's, made short
    async with web_join(tmp_path / "keep") as web:
        held = []
        for _ in range(HTTP_PER_ADDRESS + 8):
            reader, writer = await asyncio.open_connection("127.0.0.1", web.port)
            writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # never ends
            held.append((reader, writer))
        ended = [asyncio.create_task(reader.read()) for reader, _ in held]
        await until_true(lambda: sum(e.done() for e in ended) >= 8, "the 8 past the cap")
        assert sum(e.done() for e in ended) == 8
        await strangers(web, 1, "127.0.0.2")  # another address is served meanwhile
        refused = [r for r in caplog.records if "web join refused 127.0.0.1" in r.message]
        assert len(refused) == 1  # one line per address per interval
        await until_true(lambda: all(e.done() for e in ended), "the header timeout")
        for _, writer in held:
            writer.close()


async def test_a_websocket_from_another_pages_origin_is_refused(tmp_path: Path) -> None:
    """Issue 27 item 5: a page elsewhere cannot open the table's websocket with the
    browser's cookie (the cookie's SameSite aside)."""
    async with web_join(tmp_path / "keep") as web:
        secret = await sign_in(web, "Ann")
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as tab:
            tab.cookie_jar.update_cookies({COOKIE: secret})
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await tab.ws_connect(address(web) + "ws", origin="http://evil.example")
            assert refused.value.status == 403
            assert web.sessions == set()


async def test_a_browser_flooding_its_websocket_is_charged_like_a_terminal_client(
    tmp_path: Path,
) -> None:
    """Issue 27 item 5: a browser's input goes through the budgets a terminal client's
    frames do (host/limits.py): a flood past them ends the session."""
    marker = f"pitchnet-test-{tmp_path.name}"
    config = WebConfig(
        port=0, table_port=1, table_id=TABLE_ID, interface="127.0.0.1",
        keep_dir=tmp_path / "keep", client_command=[sys.executable, "-c", STAND_IN, marker],
    )  # fmt: skip
    web = WebServer(config)
    await web.start()
    try:
        secret = await sign_in(web, "Ann")
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as tab:
            tab.cookie_jar.update_cookies({COOKIE: secret})
            socket = await tab.ws_connect(address(web) + "ws")
            closing = asyncio.create_task(close_code(socket))
            sent = 0
            while not closing.done() and sent < 5 * INPUT_BURST:
                await socket.send_str('["stdin", "x"]')
                sent += 1
                await asyncio.sleep(0)  # let the read side see the close
            assert await asyncio.wait_for(closing, 30) == CLOSE_REFUSED
            assert INPUT_BURST <= sent < 5 * INPUT_BURST
    finally:
        await web.close()


async def test_one_address_starts_at_most_a_burst_of_sessions_then_one_per_interval(
    tmp_path: Path,
) -> None:
    """Issue 27 item 5: a browser cut off for flooding that opens its websocket again
    and again cannot make the host start a client process each time."""
    marker = f"pitchnet-test-{tmp_path.name}"
    config = WebConfig(
        port=0, table_port=1, table_id=TABLE_ID, interface="127.0.0.1",
        keep_dir=tmp_path / "keep", client_command=[sys.executable, "-c", STAND_IN, marker],
    )  # fmt: skip
    web = WebServer(config)
    await web.start()
    try:
        secret = await sign_in(web, "Ann")
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as tab:
            tab.cookie_jar.update_cookies({COOKIE: secret})
            refused = []
            for _ in range(STARTS_BURST + 1):
                socket = await tab.ws_connect(address(web) + "ws")
                closing = asyncio.create_task(close_code(socket))
                await until_true(partial(started_or_refused, web, closing), "a session or a no")
                if closing.done():
                    refused.append(closing.result())
                closing.cancel()
                await socket.close()
                await until_true(lambda: not web.sessions, "the session over")
            assert refused == [CLOSE_REFUSED]  # the 9th, a moment after the 8th
    finally:
        await web.close()
