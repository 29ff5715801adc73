"""The web join's pages, cookies and limits over plain HTTP (no browser needed)."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from host.server import HostConfig, HostServer
from host.web import (
    CLOSE_REFUSED,
    CLOSE_TABLE_CLOSED,
    CLOSE_UNKNOWN,
    COOKIE,
    WebServer,
    identity_key,
)
from host.web_qr import qr_text
from tests.browser import seat_of, url, web_table
from tests.netclient import RawClient, until_true


def jar() -> aiohttp.CookieJar:
    return aiohttp.CookieJar(unsafe=True)  # it keeps cookies from an IP address only so


def cookie_from(response: aiohttp.ClientResponse) -> str:
    morsel = response.cookies[COOKIE]
    assert morsel["httponly"] and morsel["samesite"] == "Strict" and morsel["path"] == "/"
    return morsel.value


async def named(
    client: aiohttp.ClientSession, web: WebServer, name: str, *, visited: bool = False
) -> None:
    """A browser's first visit (its cookie; skipped if `visited`), then its name sent."""
    if not visited:
        async with client.get(url(web)):
            pass
    async with client.post(url(web) + "join", data={"name": name}):
        pass


async def test_a_first_visit_gets_a_cookie_and_the_name_form() -> None:
    async with web_table() as (_host, web), aiohttp.ClientSession(cookie_jar=jar()) as client:
        async with client.get(url(web)) as response:
            page = await response.text()
            secret = cookie_from(response)
            assert response.status == 200
            assert 'name="password"' not in page  # this table has none
            assert "default-src 'self'" in response.headers["Content-Security-Policy"]
        assert 'name="name"' in page and web.config.table_name in page
        assert identity_key(secret) in web.identities
        assert secret not in repr(web.identities)  # kept by its hash only
        # Nothing the page names is elsewhere: no absolute address at all.
        assert re.findall(r"(?:src|href|url)\(?=?[\"']?(?:https?:)?//", page) == []


async def test_a_forged_cookie_gets_a_fresh_identity() -> None:
    async with web_table() as (_host, web), aiohttp.ClientSession(cookie_jar=jar()) as client:
        client.cookie_jar.update_cookies({COOKIE: "made-up"})
        async with client.get(url(web)) as response:
            fresh = cookie_from(response)
        assert fresh != "made-up"
        assert identity_key("made-up") not in web.identities
        assert list(web.identities) == [identity_key(fresh)]


async def test_the_table_password_is_asked_for_before_a_session() -> None:
    async with (
        web_table({"password": "swordfish"}) as (_host, web),
        aiohttp.ClientSession(cookie_jar=jar()) as client,
    ):
        async with client.get(url(web)) as response:
            assert 'name="password"' in await response.text()
        form = {"name": "Ann", "password": "wrong"}
        async with client.post(url(web) + "join", data=form) as response:
            assert response.status == 403
            assert "That is not the table" in await response.text()
        async with client.ws_connect(url(web) + "ws") as socket:
            await socket.receive()
            assert socket.close_code == CLOSE_UNKNOWN  # no session without the password
        form["password"] = "swordfish"
        async with client.post(url(web) + "join", data=form) as response:
            assert response.status == 200  # followed the redirect to the game page
            assert 'id="terminal"' in await response.text()


async def test_only_the_pages_it_needs_are_served() -> None:
    async with web_table() as (_host, web), aiohttp.ClientSession(cookie_jar=jar()) as client:
        for path in ("static/", "static/js/textual.js", "static/fonts/", "download/x", "etc"):
            async with client.get(url(web) + path) as response:
                assert response.status == 404, path
        for path in ("static/textual.js", "static/xterm.css", "static/terminal.ttf"):
            async with client.get(url(web) + path) as response:
                assert response.status == 200, path
        async with client.get(
            url(web) + "?ping=http://example.invalid/", allow_redirects=False
        ) as r:
            assert r.status == 302 and r.headers["Location"] == "/"  # textual.js's ?ping= dropped


async def test_a_request_for_another_host_name_is_refused() -> None:
    async with web_table() as (_host, web), aiohttp.ClientSession(cookie_jar=jar()) as client:
        headers = {"Host": f"rebound.example:{web.port}"}
        async with client.get(url(web), headers=headers) as response:
            assert response.status == 421


@pytest.mark.parametrize("name", ["", "   ", "\t\n"])
async def test_a_name_is_required(name: str) -> None:
    async with web_table() as (_host, web), aiohttp.ClientSession(cookie_jar=jar()) as client:
        async with client.get(url(web)):
            pass
        async with client.post(url(web) + "join", data={"name": name}) as response:
            assert response.status == 400
            assert "Type a name" in await response.text()


def test_the_qr_code_is_drawn_in_half_blocks() -> None:
    lines = qr_text("http://192.168.1.20:8080/").splitlines()
    assert len(lines) > 10 and len({len(line) for line in lines}) == 1
    assert set("".join(lines)) <= {" ", "█", "▀", "▄"}


async def test_nonsense_on_the_websocket_is_ignored() -> None:
    async with web_table() as (_host, web), aiohttp.ClientSession(cookie_jar=jar()) as client:
        await named(client, web, "Ann")
        async with client.ws_connect(url(web) + "ws?width=x&height=99999") as socket:
            await until_true(lambda: len(web.sessions) == 1, "the session")
            (session,) = web.sessions
            assert session.size == (80, 500)  # a bad width is the default, a huge height clamped
            for junk in (
                "not json",
                "[]",
                '["stdin", 5]',
                '["resize", {"width": "x", "height": 7}]',
            ):
                await socket.send_str(junk)
            await socket.send_bytes(b"\x00\xff")
            await socket.send_str('["ping", "42"]')
            while True:  # the session's screen comes first, as binary frames
                message = await socket.receive(timeout=30)
                if message.type == aiohttp.WSMsgType.TEXT and message.data == '["pong", "42"]':
                    break
                assert message.type in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY)
            assert web.sessions == {session} and session.size == (80, 7)


def test_more_web_sessions_than_the_table_takes_from_one_address_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from pitchnet.cli import main

    assert main(["host", "--web", "0", "--web-sessions", "40", "--interface", "127.0.0.1"]) == 2
    assert "--web-sessions can be at most 15" in capsys.readouterr().err


async def host_serving_browsers(
    args: list[str], state_dir: Path
) -> tuple[asyncio.subprocess.Process, str, str]:
    """`pitchnet host ARGS` as a real process on 127.0.0.1, once it has printed where
    browsers join: the process, that address and its port."""
    command = [sys.executable, "-m", "pitchnet", "host", *args]
    env = {**os.environ, "PITCHNET_STATE_DIR": str(state_dir), "PITCHNET_INTERFACE": "127.0.0.1"}
    host = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=env
    )
    assert host.stdout is not None
    while True:
        line = (await asyncio.wait_for(host.stdout.readline(), 30)).decode()
        assert line, "the host ended before printing the web address"
        found = re.search(r"Browsers and phones join at: (http://127\.0\.0\.1:(\d+)/)", line)
        if found:
            return host, found.group(1), found.group(2)


async def test_pitchnet_host_web_prints_the_address_and_its_qr_code(tmp_path: Path) -> None:
    """The real command: it binds the web join to the --interface and says where it is."""
    host, address, _ = await host_serving_browsers(["--port", "0", "--web", "0"], tmp_path)
    assert host.stdout is not None
    try:
        qr = (await asyncio.wait_for(host.stdout.readline(), 10)).decode()
        assert set(qr.strip()) <= {"█", "▀", "▄", " "} and len(qr.strip()) > 20
        async with (
            aiohttp.ClientSession(cookie_jar=jar()) as client,
            client.get(address) as response,
        ):
            assert response.status == 200 and 'name="name"' in await response.text()
    finally:
        host.terminate()
        assert await asyncio.wait_for(host.wait(), 20) == 0


async def test_a_resumed_table_with_a_password_asks_for_it_on_the_web_join_too(
    tmp_path: Path,
) -> None:
    """`pitchnet host --resume ID --web PORT` (no --password: the table keeps its own in
    its journal) asks browsers for the table's password, and when closed again prints a
    command that brings the web join back too."""
    config = HostConfig(
        port=0, interface="127.0.0.1", advertise=False, players=2, bots=1,
        password="swordfish", state_dir=tmp_path,
    )  # fmt: skip
    first = HostServer(config)
    await first.start()
    try:
        player = await RawClient.connect(first)
        await player.hello("Ann", password="swordfish")
        await until_true(lambda: first.table.matches_started == 1, "the match to start")
        await player.close()
    finally:
        await first.close()
    args = ["--resume", first.table_id, "--web", "0", "--interface", "127.0.0.1"]
    host, address, web_port = await host_serving_browsers(args, tmp_path)
    assert host.stdout is not None
    try:
        async with (
            aiohttp.ClientSession(cookie_jar=jar()) as client,
            client.get(address) as response,
        ):
            assert response.status == 200 and 'name="password"' in await response.text()
        host.send_signal(signal.SIGINT)
        out = (await asyncio.wait_for(host.stdout.read(), 30)).decode()
    finally:
        if host.returncode is None:
            host.terminate()
        await asyncio.wait_for(host.wait(), 20)
    again = f"pitchnet host --resume {first.table_id} --port {first.port} --web {web_port}"
    assert again in out, out


async def test_more_browsers_from_one_address_than_its_cap_get_a_readable_refusal() -> None:
    """`--web-per-address`: with one browser from 127.0.0.1 playing and a cap of one, a
    second browser from there gets the refusal page, and its websocket is refused too;
    the first keeps its session."""
    async with (
        web_table(max_per_address=1) as (_host, web),
        aiohttp.ClientSession(cookie_jar=jar()) as first,
        aiohttp.ClientSession(cookie_jar=jar()) as second,
    ):
        await named(first, web, "Ann")
        async with second.get(url(web)) as response:
            assert response.status == 200  # nobody plays yet: the name form
        await named(second, web, "Bob", visited=True)
        async with first.ws_connect(url(web) + "ws"):
            await until_true(lambda: len(web.sessions) == 1, "the first browser's session")
            async with second.get(url(web)) as response:
                page = await response.text()
                assert response.status == 503
                assert "1 browser from this device is already playing" in page
            async with second.ws_connect(url(web) + "ws") as socket:
                await socket.receive()
                assert socket.close_code == CLOSE_REFUSED
            assert len(web.sessions) == 1


async def read_while(socket: Any, closing: Coroutine[Any, Any, None]) -> Any:
    """Run `closing` while the page reads its socket, as a browser would, to the end;
    returns the last message read (the close, with its reason in `extra`)."""
    task = asyncio.create_task(closing)
    message = None
    while not socket.closed:
        message = await asyncio.wait_for(socket.receive(), 30)
    await task
    return message


@pytest.mark.parametrize("ended", [True, False])
async def test_a_table_closed_on_purpose_tells_the_browsers_so(ended: bool) -> None:
    """Terminals hear "The host closed the table"; so do the browsers' pages (a code of
    their own, which the page shows with its reason). A table only moving to a
    background host closes them as a lost connection, which the page reconnects."""
    async with (
        web_table() as (_host, web),
        aiohttp.ClientSession(cookie_jar=jar()) as client,
    ):
        await named(client, web, "Ann")
        async with client.ws_connect(url(web) + "ws") as socket:
            await until_true(lambda: len(web.sessions) == 1, "the browser's session")
            message = await read_while(socket, web.close(ended=ended))
            if ended:
                assert socket.close_code == CLOSE_TABLE_CLOSED
                assert message is not None and message.extra == "The host closed the table."
            else:
                assert socket.close_code == 1001


async def test_a_browser_at_a_table_the_host_ends_is_told_the_table_closed() -> None:
    """The host ends the table (its person chose "End it"): the browser's client hears
    "closed" and ends a moment before the web join does. Its page says the host closed
    the table (and comes back if it does), never that its player left the game."""
    async with (
        web_table() as (host, web),
        aiohttp.ClientSession(cookie_jar=jar()) as client,
    ):
        await named(client, web, "Ann")
        async with client.ws_connect(url(web) + "ws") as socket:
            await until_true(lambda: len(web.sessions) == 1, "the browser's session")
            await until_true(
                lambda: any(s.kind.value == "human" for s in host.table.seats), "Ann seated"
            )
            message = await read_while(socket, host.close(on_purpose=True))
            assert socket.close_code == CLOSE_TABLE_CLOSED
            assert message is not None and message.extra == "The host closed the table."


async def test_a_pages_leaving_word_ends_its_own_session_only_and_a_bot_plays_at_once() -> None:
    """["leaving"] (the page's pagehide) on Bob's websocket: Bob's session ends and a bot
    plays his seat now, not after the grace period; whatever else the message names, Ann's
    session and seat are untouched (the word ends only the session it came on)."""
    async with (
        web_table({"bots": 2, "grace": 600.0}) as (host, web),
        aiohttp.ClientSession(cookie_jar=jar()) as ann,
        aiohttp.ClientSession(cookie_jar=jar()) as bob,
    ):
        await named(ann, web, "Ann")
        await named(bob, web, "Bob")
        async with ann.ws_connect(url(web) + "ws"), bob.ws_connect(url(web) + "ws") as socket:
            await until_true(
                lambda: seat_of(host, "Ann") is not None and seat_of(host, "Bob") is not None,
                "both seated",
            )
            seat = seat_of(host, "Bob")
            assert seat is not None and host.table.state == "playing"
            (mine,) = [s for s in web.sessions if s.identity.name == "Ann"]
            await socket.send_str(f'["leaving", {{"seat": {seat_of(host, "Ann")}}}]')
            await until_true(lambda: host.table.seats[seat].substitute, "a bot in Bob's seat", 30)
            assert seat not in host.referee.grace_until
            assert seat_of(host, "Ann") is not None and mine in web.sessions
            assert mine.identity.session is mine and not mine.leaving


async def test_a_page_back_within_the_reload_time_keeps_its_seat_from_the_bot() -> None:
    """A reload says "leaving" too (a page cannot tell): the same browser's new session,
    opened at once, takes the seat over as it was, and no bot ever played it."""
    async with (
        web_table({"grace": 600.0}) as (host, web),
        aiohttp.ClientSession(cookie_jar=jar()) as client,
    ):
        await named(client, web, "Ann")
        async with client.ws_connect(url(web) + "ws") as socket:
            await until_true(lambda: seat_of(host, "Ann") is not None, "Ann seated")
            seat = seat_of(host, "Ann")
            (first,) = web.sessions
            await socket.send_str('["leaving"]')
        async with client.ws_connect(url(web) + "ws"):
            await until_true(lambda: first not in web.sessions, "the old session over", 30)
            assert first.leaving and first.came_back
            await until_true(lambda: seat_of(host, "Ann") == seat, "Ann back in her seat")
            assert seat is not None and not host.table.seats[seat].substitute
