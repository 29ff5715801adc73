"""The spare client process (host/web_spare.py): started ahead with its imports done,
taken by the next browser session with that session's environment, and never left
behind when the server closes."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys

import aiohttp

from host.web_spare import SpareClient
from tests.browser import url, web_table
from tests.netclient import until_true
from tests.test_web import jar, named

ECHO = shlex.join([sys.executable, "-c", "import sys; print(sys.stdin.readline(), end='')"])
"""A stand-in for the client: answers the environment line it is given."""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_a_spare_is_given_its_session_environment_through_its_stdin() -> None:
    spare = SpareClient(f"exec {ECHO}", dict(os.environ))
    spare.start_soon()
    await until_true(lambda: spare._process is not None, "the spare started")
    process = await spare.take({"PITCHNET_WEB_NAME": "Ann"})
    assert process is not None and process.stdout is not None
    line = await asyncio.wait_for(process.stdout.readline(), 10)
    assert json.loads(line) == {"PITCHNET_WEB_NAME": "Ann"}
    await process.wait()
    assert await spare.take({}) is None  # the next one is not started yet: start your own
    await spare.close()


async def test_closing_kills_the_spare_and_one_about_to_start() -> None:
    spare = SpareClient("exec sleep 60", dict(os.environ))
    spare.start_soon()
    await until_true(lambda: spare._process is not None, "the spare started")
    process = spare._process
    assert process is not None
    await spare.close()
    assert process.returncode is not None
    late = SpareClient("exec sleep 60", dict(os.environ))
    late.start_soon(delay=30)
    await late.close()  # cancelled while waiting: nothing was started
    assert late._process is None


async def test_a_browser_session_runs_in_the_spare_and_a_new_spare_follows() -> None:
    async with web_table() as (host, web), aiohttp.ClientSession(cookie_jar=jar()) as client:
        spare = web.spare
        assert spare is not None
        await until_true(lambda: spare._process is not None, "the first spare")
        first = spare._process
        assert first is not None
        await named(client, web, "Ann")
        async with client.ws_connect(url(web) + "ws"):
            await until_true(lambda: len(web.sessions) == 1, "the session")
            (session,) = web.sessions
            assert session.pid == first.pid
            await until_true(
                lambda: any(s.name == "Ann" and s.connected for s in host.table.seats),
                "Ann seated by the spare",
            )
            await until_true(
                lambda: spare._process not in (None, first), "the next spare", timeout=60
            )
        following = spare._process
        assert following is not None
    assert not alive(following.pid) and not alive(first.pid)
