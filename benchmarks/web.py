"""What the web join costs and how fast it feels, against baselines in the same run.

Memory: a real `pitchnet host --web` runs on 127.0.0.1 as its own process; its
resident memory (RSS, and PSS, which shares libraries fairly) is read from /proc
with no browser, then with one to seven browsers (headless chromium, Playwright)
sitting at the table. Each browser session is a client process the host started:
its memory is read too. The baseline is a terminal client, `pitchnet join` in an
80x24 pseudo-terminal, sitting at the same table's lobby in the same run.

Time, median of N runs:
  - URL to lobby: from `page.goto(url)` in a new browser (the name form is filled and
    sent by the script) until the first paint in the page of a frame received after
    the host seated the player. Baseline: `pitchnet join` launched in a pty until its
    lobby text is on the terminal (benchmarks/startup.py's method), alternating with it.
  - URL to table, known browser: the same from a reload mid-hand (no form; the old
    session is ended and a new one sits back down with the seat's token).
  - click to shown: from the second click on a card (the first picks it) until the
    first paint of a frame received after the host took the card. Baseline: the
    same click until the host took it (the floor: what the host and the client
    process need, before anything is sent to the browser).
Paint times come from the page (an init script stamps each websocket frame and the
animation frame after it, in epoch ms); host times from polling the in-process host
every 2 ms. The host and the browser driver share this process for the time
measurements, so those figures are, if anything, pessimistic.

The timed browser is a phone by default (`--device phone3`: 360x780 CSS px at a device
pixel ratio of 3, touch, mobile; its clicks are taps); `--device desktop` is the
1000x700 window the first figures were taken in.

The web server keeps a spare client process started ahead (host/web_spare.py);
`--without-spare` times everything again in the same run without it.

Run: uv run python benchmarks/web.py [--runs 10] [--browsers 7] [--device phone3]
     [--without-spare]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import json
import os
import pty
import re
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from startup import ANSI, _pitchnet, time_to_text

from host.server import HostConfig, HostServer
from host.web import COOKIE, WebConfig, WebServer, identity_key, regions_file
from tests.browser import CHROMIUM_ARGS as ARGS  # the browser tests' own flags

DEVICES: dict[str, dict[str, Any]] = {
    # A current phone (about 360x780 CSS px at 3 device pixels each), tapped.
    "phone3": {
        "viewport": {"width": 360, "height": 780},
        "device_scale_factor": 3,
        "is_mobile": True,
        "has_touch": True,
    },
    # The desktop window the earlier figures were taken in, clicked.
    "desktop": {"viewport": {"width": 1000, "height": 700}},
}
"""The browser the time measurements emulate (`--device`); memory always uses desktop."""

STAMPS = """
window.__frames = []; window.__paints = [];
(function () {
  const Native = window.WebSocket;
  function Stamped(url, protocols) {
    const socket = protocols === undefined ? new Native(url) : new Native(url, protocols);
    socket.addEventListener("message", function (event) {
      if (typeof event.data === "string") return;
      const received = performance.timeOrigin + performance.now();
      window.__frames.push(received);
      requestAnimationFrame(function () {
        window.__paints.push([received, performance.timeOrigin + performance.now()]);
      });
    });
    return socket;
  }
  Stamped.prototype = Native.prototype;
  Stamped.CONNECTING = 0; Stamped.OPEN = 1; Stamped.CLOSING = 2; Stamped.CLOSED = 3;
  window.WebSocket = Stamped;
})();
"""


def memory_kib(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process, in KiB."""
    fields: dict[str, int] = {}
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[0] in ("Rss:", "Pss:"):
                fields[parts[0]] = int(parts[1])
    return fields.get("Rss:", 0), fields.get("Pss:", 0)


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            stat = (entry / "stat").read_text()
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def mib(kib: float) -> str:
    return f"{kib / 1024:6.1f} MiB"


async def first_paint_after(page: Any, moment: float, deadline: float = 20.0) -> float:
    """Epoch seconds of the first paint of a frame received at or after `moment`."""
    stop = time.monotonic() + deadline
    while time.monotonic() < stop:
        paints = await page.evaluate("window.__paints")
        later = [p for received, p in paints if received >= moment * 1000]
        if later:
            return min(later) / 1000
        await asyncio.sleep(0.01)
    raise TimeoutError("no frame painted")


async def until(condition: Any, what: str, timeout: float = 30.0) -> None:
    stop = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > stop:
            raise TimeoutError(what)
        await asyncio.sleep(0.002)


# ---- memory ---------------------------------------------------------------------------------


async def measure_memory(browsers: int, workdir: Path, env: dict[str, str]) -> None:
    from playwright.async_api import async_playwright

    web_port = free_port()
    host = subprocess.Popen(
        [
            *_pitchnet(),
            "host",
            "--port",
            "0",
            "--interface",
            "127.0.0.1",
            "--players",
            "7",
            "--web",
            str(web_port),
            "--web-per-address",
            str(browsers),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert host.stdout is not None
    lines: list[str] = []
    table_port = 0
    while not table_port:
        line = host.stdout.readline()
        lines.append(line)
        if found := re.search(r"pitchnet join 127\.0\.0\.1:(\d+)", line):
            table_port = int(found.group(1))
        if not line:
            raise RuntimeError("the host did not start")

    async def read_log() -> None:
        assert host.stdout is not None
        while line := await asyncio.to_thread(host.stdout.readline):
            lines.append(line)

    reader = asyncio.create_task(read_log())
    url = f"http://127.0.0.1:{web_port}/"
    try:
        await until(lambda: any("web join open" in line for line in lines), "web join", 20)
        await asyncio.sleep(1.0)  # let the host settle before the baseline reading
        alone = memory_kib(host.pid)
        # Baseline: a terminal client at the lobby, read while it sits there.
        with TerminalClient([*_pitchnet(), "join", f"127.0.0.1:{table_port}"], env) as terminal:
            await until(
                lambda: terminal.shows(b"seats open") or terminal.shows(b"seat open"),
                "the terminal's lobby",
                30,
            )
            await asyncio.sleep(1.0)
            terminal_mem = memory_kib(terminal.pid)
        async with async_playwright() as playwright:
            chromium = await playwright.chromium.launch(
                executable_path=shutil.which("chromium"), headless=True, args=ARGS
            )
            rows = []
            for count in range(1, browsers + 1):
                context = await chromium.new_context(viewport={"width": 1000, "height": 700})
                page = await context.new_page()
                await page.goto(url)
                await page.fill("#name", f"Web {count}")
                await page.click("button[type=submit]")
                name = f"'Web {count}'"
                await until(
                    lambda n=name: any(n in line and "web session" in line for line in lines),
                    "the session",
                    30,
                )
                await until(lambda c=count: len(sessions(host.pid)) >= c, "the process", 30)
                await asyncio.sleep(1.5)  # the session draws its lobby; then read memory
                host_mem = memory_kib(host.pid)
                per = [memory_kib(p) for p in sessions(host.pid)]
                rows.append((count, host_mem, per))
            await chromium.close()
    finally:
        host.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            host.wait(timeout=10)
        reader.cancel()
    print(f"host alone (pitchnet host --web, no browser): RSS {mib(alone[0])}  PSS {mib(alone[1])}")
    rss, pss = terminal_mem
    print(
        f"baseline: a terminal client (pitchnet join) at the lobby: RSS {mib(rss)}  PSS {mib(pss)}"
    )
    for count, host_mem, per in rows:
        total_rss = host_mem[0] + sum(r for r, _ in per)
        total_pss = host_mem[1] + sum(p for _, p in per)
        each_rss = statistics.median(r for r, _ in per)
        each_pss = statistics.median(p for _, p in per)
        print(
            f"{count} browser(s): host process RSS {mib(host_mem[0])}; per session median "
            f"RSS {mib(each_rss)} PSS {mib(each_pss)}; host total RSS {mib(total_rss)} "
            f"PSS {mib(total_pss)}"
        )


class TerminalClient:
    """A command in an 80x24 pseudo-terminal whose output is read (and kept, without
    escape codes) by a thread, so the program never blocks on a full terminal."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.child = subprocess.Popen(
            command,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**env, "TERM": "xterm-256color"},
            start_new_session=True,
        )
        os.close(slave)
        self.pid = self.child.pid
        self.seen = b""
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        with contextlib.suppress(OSError):
            while chunk := os.read(self.master, 65536):
                self.seen += chunk

    def shows(self, text: bytes) -> bool:
        return text in ANSI.sub(b"", self.seen)

    def __enter__(self) -> TerminalClient:
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(OSError):
            os.write(self.master, b"\x11")  # Ctrl+Q
        try:
            self.child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.child.kill()
            self.child.wait()
        with contextlib.suppress(OSError):
            os.close(self.master)


def _cmd(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def sessions(host_pid: int) -> list[int]:
    """The web session client processes under the host (not their shells)."""
    return [
        p
        for p in descendants(host_pid)
        if "client.web_session" in _cmd(p) and "python" in _cmd(p).split(" ", 1)[0]
    ]


# ---- time -----------------------------------------------------------------------------------


async def measure_times(
    runs: int, workdir: Path, env: dict[str, str], device: str, spare: bool = True
) -> None:
    from playwright.async_api import async_playwright

    host = HostServer(
        HostConfig(
            port=0,
            interface="127.0.0.1",
            bots=3,
            seed=3,
            bot_delay=0.0,
            advertise=False,
            state_dir=workdir / "state",
            grace=600.0,
        )
    )
    await host.start()
    web = WebServer(
        WebConfig(
            port=0,
            table_port=host.port,
            table_id=host.table_id,
            interface="127.0.0.1",
            table_name=host.name,
            show_regions=True,
            spare_client=spare,
        )
    )
    await web.start()
    # The terminal baseline joins a table of its own: the first one is full.
    lobby_host = HostServer(
        HostConfig(
            port=0, interface="127.0.0.1", advertise=False, state_dir=workdir / "s2", players=7
        )
    )
    await lobby_host.start()
    lobby_web = WebServer(
        WebConfig(
            port=0,
            table_port=lobby_host.port,
            table_id=lobby_host.table_id,
            interface="127.0.0.1",
            table_name=lobby_host.name,
            spare_client=spare,
        )
    )
    await lobby_web.start()
    fresh: list[float] = []
    url = f"http://127.0.0.1:{web.port}/"
    lobby, floor_join = [], []
    clicks, floor_click = [], []
    terminal_lobby: list[float] = []
    join_stages = [(b"seats open", b"seat open")]  # the lobby: "2 seats open"
    try:
        async with async_playwright() as playwright:
            chromium = await playwright.chromium.launch(
                executable_path=shutil.which("chromium"), headless=True, args=ARGS
            )
            context = await chromium.new_context(**DEVICES[device])
            await context.add_init_script(STAMPS)
            page = await context.new_page()
            await page.goto(url)
            await page.fill("#name", "Ann")
            await page.click("button[type=submit]")
            await until(lambda: seated(host, "Ann") is not None, "Ann seated")
            seat = seated(host, "Ann")
            secret = next(c["value"] for c in await context.cookies() if c["name"] == COOKIE)
            identity = web.identities[identity_key(secret)]
            for run in range(runs):
                # URL to lobby (here: to the table, the match being under way), a reload
                # of a browser that is known: the same path as a phone coming back.
                before = identity.session
                await page.evaluate("window.__paints = []")
                started = time.time()
                await page.goto(url)
                await until(
                    lambda b=before: (
                        identity.session not in (None, b) and seated(host, "Ann") == seat
                    ),
                    "back in the seat",
                )
                at_host = time.time()
                shown = await first_paint_after(page, at_host)
                lobby.append(shown - started)
                floor_join.append(at_host - started)
                # Baseline: a terminal client's launch to its first table screen.
                command = [
                    *_pitchnet(),
                    "join",
                    f"127.0.0.1:{lobby_host.port}",
                    "--name",
                    f"T{run}",
                ]
                terminal_lobby += await asyncio.to_thread(time_to_text, command, join_stages, env)
                # A browser that has never been here: the name form, then the lobby.
                newcomer = await chromium.new_context(**DEVICES[device])
                await newcomer.add_init_script(STAMPS)
                visitor = await newcomer.new_page()
                started = time.time()
                await visitor.goto(f"http://127.0.0.1:{lobby_web.port}/")
                await visitor.fill("#name", f"B{run}")
                await visitor.click("button[type=submit]")
                await until(lambda r=run: seated(lobby_host, f"B{r}") is not None, "newcomer")
                shown = await first_paint_after(visitor, time.time())
                fresh.append(shown - started)
                await newcomer.close()
                await until(lambda r=run: seated(lobby_host, f"B{r}") is None, "newcomer gone")
                # Click to shown: play one card when it is our turn.
                clicked = await play_one(page, host, identity, seat)
                if clicked is not None:
                    clicks.append(clicked[1] - clicked[0])
                    floor_click.append(clicked[2] - clicked[0])
            await chromium.close()
    finally:
        await web.close()
        await host.close()
        await lobby_web.close()
        await lobby_host.close()

    def ms(values: list[float]) -> str:
        return (
            f"median {statistics.median(values) * 1000:6.0f} ms (min {min(values) * 1000:.0f}, "
            f"max {max(values) * 1000:.0f}, n={len(values)})"
        )

    print(f"-- {'with' if spare else 'without'} a spare client process (host/web_spare.py)")
    print(f"URL to the lobby on screen (new browser, name form): {ms(fresh)}")
    print(f"URL to the table on screen (known browser, reload): {ms(lobby)}")
    print(f"  of which until the host seated it again:          {ms(floor_join)}")
    print(f"baseline: pitchnet join in a pty, launch to lobby:  {ms(terminal_lobby)}")
    print(f"click on a card to the card shown played:           {ms(clicks)}")
    print(f"  baseline: click to the host taking the card:      {ms(floor_click)}")


def seated(host: HostServer, name: str) -> int | None:
    for number, seat in enumerate(host.table.seats):
        if seat.kind == "human" and seat.name == name and seat.connected:
            return number
    return None


async def play_one(
    page: Any, host: HostServer, identity: Any, seat: int
) -> tuple[float, float, float] | None:
    """Bid (by key) until it is our turn to play; then click a card twice. Returns the
    epoch times of the second click, its paint and the host taking it."""
    for _ in range(200):
        match = host.table.match
        if match is None:
            return None
        phase = match.phase.value
        if phase in ("hand_over", "match_over"):
            ready = regions(identity).get("regions", {}).get("ready")
            if ready:
                finished = match.hand
                await click_cells(page, identity, ready)
                await until(lambda f=finished: host.table.match.hand is not f, "a new hand")
            else:
                await asyncio.sleep(0.05)
            continue
        if match.turn != seat:
            await asyncio.sleep(0.01)
            continue
        await until(lambda: regions(identity).get("seq") == host.table.seq, "caught up")
        step = match.hand.step
        if phase == "bidding":
            legal = match.legal_bids(seat)
            key = "bid-pass" if None in legal else f"bid-{max(b for b in legal if b)}"
            await until(lambda k=key: k in regions(identity)["regions"], "bid button")
            await click_cells(page, identity, regions(identity)["regions"][key])
            await until(lambda s=step, m=match: m.hand.step > s, "the bid")
            continue
        card = sorted(str(c) for c in match.legal_plays(seat))[0]
        key = f"card:{card}"
        await until(lambda k=key: k in regions(identity)["regions"], "the card")
        where = regions(identity)["regions"][key]
        await click_cells(page, identity, where)  # picks it
        await page.evaluate("window.__paints = []")
        started = time.time()
        await click_cells(page, identity, where)  # plays it
        await until(lambda s=step, m=match: m.hand.step > s, "the play")
        at_host = time.time()
        shown = await first_paint_after(page, at_host)
        return started, shown, at_host
    return None


def regions(identity: Any) -> dict[str, Any]:
    try:
        return json.loads(regions_file(identity).read_text())
    except (OSError, ValueError):
        return {"regions": {}}


async def click_cells(page: Any, identity: Any, region: list[int]) -> None:
    """Click the middle of a region in cells; a tap on a touch screen."""
    columns, rows = identity.session.size
    box = await page.locator(".xterm-screen").bounding_box()
    x, y, width, height = region
    px = box["x"] + (x + width / 2) * box["width"] / columns
    py = box["y"] + (y + height / 2) * box["height"] / rows
    if await page.evaluate("() => matchMedia('(pointer: coarse)').matches"):
        await page.touchscreen.tap(px, py)
    else:
        await page.mouse.click(px, py)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--browsers", type=int, default=7)
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument(
        "--without-spare",
        action="store_true",
        help="time the web join a second time in the same run with no spare client process",
    )
    parser.add_argument(
        "--device", choices=sorted(DEVICES), default="phone3", help="the browser timed"
    )
    args = parser.parse_args()
    if shutil.which("chromium") is None:
        print("chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="pitchnet-web-bench-"))
    env = {
        **os.environ,
        "PITCHNET_INTERFACE": "127.0.0.1",
        "PITCHNET_CONFIG_DIR": str(workdir),
        "PITCHNET_STATE_DIR": str(workdir),
    }
    env.pop("TEXTUAL", None)
    os.environ.update({k: env[k] for k in ("PITCHNET_CONFIG_DIR", "PITCHNET_STATE_DIR")})
    print(f"python {sys.version.split()[0]}; {os.cpu_count()} cores; headless chromium")
    print(f"timed browser: {args.device} {DEVICES[args.device]}")
    try:
        if not args.skip_memory:
            asyncio.run(measure_memory(args.browsers, workdir, env))
        asyncio.run(measure_times(args.runs, workdir, env, args.device))
        if args.without_spare:
            asyncio.run(measure_times(args.runs, workdir, env, args.device, spare=False))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
