"""A seeded 4-bot match on a loopback host serving the web join, in peace and while
two browsers flood their websockets (issue 27, item 5).

Before the web join charged a browser's input to a terminal client's budgets, two
browsers writing keystrokes as fast as their websockets took made their client
processes (on the host laptop) take about one core: a match went from 11.6 s to 28.1 s.
This script times the same seeded match with and without two such browsers, in one
run, alternating peace and flood so machine noise hits both.

Three processes (multiprocessing "spawn"), everything on 127.0.0.1:
- this one hosts the table (HostServer) and its web join (WebServer, each browser
  session a real `client.web_session` process, as `pitchnet host --web` runs them);
- one child plays the four seats (tests/netclient.py's bot player);
- one child is the two browsers, from 127.0.0.2: each signs in (a cookie and a name)
  and opens its session before the match; in the flood run each then writes `stdin`
  messages as fast as its websocket takes them, and when the host ends its session
  opens another 50 ms later; in the peaceful run they sit idle (the baseline has the
  same two sessions, so only the flood differs).

The figure is the match's wall time (first hello to the last seat seeing match_over);
the goal is flood/peace <= 1.5 (medians of `--rounds` each). The two browsers sit in the
lobby of a second table of the same host process (a table of seven), so the timed match
is the four bots' alone; the web join, the browsers' client processes and the flood
cost this process and this laptop as they would with one table.

Run: uv run python benchmarks/web_flood.py [--rounds N] [--target POINTS]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import queue
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]

from benchmarks.decode_attack import players_main  # noqa: E402
from host.server import HostConfig, HostServer  # noqa: E402
from host.web import WebConfig, WebServer  # noqa: E402

SEED = 9
BROWSERS = 2
FLOOD_ADDRESS = "127.0.0.2"
RECONNECT_PAUSE = 0.05


def browsers_main(
    web_port: int,
    flood: bool,
    ready: multiprocessing.Queue,
    go: multiprocessing.Event,
    stop: multiprocessing.Event,
    stats: multiprocessing.Queue,
) -> None:
    """Two browsers seated at the table's web join (each a session, so a client process
    on the host); once `go` is set they flood their websockets if `flood`, else stay
    idle. A flooding browser whose session ends opens another 50 ms later."""
    import aiohttp

    async def one(n: int, counter: list[int]) -> None:
        url = f"http://127.0.0.1:{web_port}/"
        connector = aiohttp.TCPConnector(local_addr=(FLOOD_ADDRESS, 0))
        jar = aiohttp.CookieJar(unsafe=True)
        async with aiohttp.ClientSession(connector=connector, cookie_jar=jar) as browser:
            async with browser.get(url):
                pass
            async with browser.post(url + "join", data={"name": f"Flood {n}"}):
                pass
            first = True
            while not stop.is_set():
                try:
                    socket = await browser.ws_connect(url + "ws")
                except (aiohttp.ClientError, OSError):
                    await asyncio.sleep(RECONNECT_PAUSE)
                    continue
                counter[1] += 1
                if first:  # seated: the session's first screen came
                    await socket.receive()
                    ready.put(n)
                    first = False
                    while not go.is_set():
                        await asyncio.sleep(0.05)
                reader = asyncio.create_task(socket.receive())
                try:
                    while not stop.is_set() and not socket.closed:
                        if flood:
                            await socket.send_str('["stdin", "x"]')
                            counter[0] += 1
                        if reader.done():  # the screen, or the close
                            if socket.closed:
                                break
                            reader = asyncio.create_task(socket.receive())
                        await asyncio.sleep(0 if flood else 0.05)
                except (ConnectionError, OSError, aiohttp.ClientError):
                    pass
                finally:
                    reader.cancel()
                    with contextlib.suppress(Exception):
                        await socket.close()
                await asyncio.sleep(RECONNECT_PAUSE)

    async def run() -> list[int]:
        counter = [0, 0]
        tasks = [asyncio.create_task(one(n, counter)) for n in range(BROWSERS)]
        while not stop.is_set():
            await asyncio.sleep(0.05)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return counter

    stats.put(asyncio.run(run()))


async def one_match(state_dir: Path, flood: bool, target: int, cap: float) -> tuple[float, Any]:
    ctx = multiprocessing.get_context("spawn")
    config = HostConfig(
        interface="127.0.0.1", port=0, advertise=False, seed=SEED, target=target,
        bot_delay=0.0, state_dir=state_dir,
    )  # fmt: skip
    lobby_config = HostConfig(interface="127.0.0.1", port=0, advertise=False, players=7)
    async with HostServer(config) as server, HostServer(lobby_config) as lobby:
        # The browsers sit in another table's lobby of this same process, so that the
        # timed match is the four bots' alone; the web join, its sessions and the flood
        # run on this host's loop and laptop as they would for one table.
        web = WebServer(
            WebConfig(
                port=0,
                table_port=lobby.port,
                table_id=lobby.table_id,
                interface="127.0.0.1",
                table_name=lobby.name,
            )
        )
        await web.start()
        try:
            start, stop, go = ctx.Event(), ctx.Event(), ctx.Event()
            done, stats, ready = ctx.Queue(), ctx.Queue(), ctx.Queue()
            browsers = ctx.Process(
                target=browsers_main, args=(web.port, flood, ready, go, stop, stats)
            )
            browsers.start()
            loop = asyncio.get_running_loop()
            for _ in range(BROWSERS):  # both seated, their client processes started
                await loop.run_in_executor(None, ready.get, True, cap)
            players = ctx.Process(target=players_main, args=(server.port, start, done))
            players.start()
            go.set()
            await asyncio.sleep(3.0)  # the players' process up, the flood under way
            start.set()
            try:
                took = await loop.run_in_executor(None, done.get, True, cap)
            except queue.Empty:
                took = cap
                players.terminate()
            stop.set()
            sent = await loop.run_in_executor(None, stats.get)
            await loop.run_in_executor(None, players.join)
            await loop.run_in_executor(None, browsers.join)
        finally:
            await web.close()
    return took, sent


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--target", type=int, default=21)
    parser.add_argument("--cap", type=float, default=120.0)
    args = parser.parse_args()
    peace, flood = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for number in range(args.rounds):
            took, _ = await one_match(Path(tmp), False, args.target, args.cap)
            peace.append(took)
            took, sent = await one_match(Path(tmp), True, args.target, args.cap)
            flood.append(took)
            print(
                f"round {number + 1}: peace {peace[-1]:.2f} s, flood {flood[-1]:.2f} s "
                f"(the browsers sent {sent[0]:,} messages over {sent[1]} websockets)",
                flush=True,
            )
    ratio = statistics.median(flood) / statistics.median(peace)
    print(
        f"peace median {statistics.median(peace):.2f} s, flood median "
        f"{statistics.median(flood):.2f} s, ratio {ratio:.2f} (goal <= 1.5)"
    )


if __name__ == "__main__":
    asyncio.run(main())
