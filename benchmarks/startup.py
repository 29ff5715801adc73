"""How long `pitchnet join HOST:PORT` takes to put its first screen on a terminal,
against a bare Textual app measured in the same run.

Method: each program is started in a real pseudo-terminal (80x24, TERM=xterm-256color)
exactly as a user would start it, and the clock runs from the process launch until a
known piece of text of its first screen has been written to the terminal:
  - bare:    a Textual App showing one Static ("bare app ready");
  - pitchnet: the console script `pitchnet join 127.0.0.1:PORT`, whose first screen
    says "Connecting to"; the time until the lobby (table data from the host) is drawn
    is reported too.
A real `pitchnet host` runs on 127.0.0.1 for the whole benchmark. Runs alternate
between the two programs so that machine noise hits both alike; the medians are
compared. The child is then asked to quit (Ctrl+Q) and killed if it lingers.

Run: uv run python benchmarks/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import pty
import re
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

BARE_APP = """
from textual.app import App
from textual.widgets import Static


class Bare(App):
    def compose(self):
        yield Static("bare app ready")


Bare().run()
"""

ANSI = re.compile(rb"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b[\]P_^][^\x07\x1b]*(\x07|\x1b\\\\)?")


def _pitchnet() -> list[str]:
    script = Path(sys.executable).with_name("pitchnet")
    return [str(script)] if script.exists() else [sys.executable, "-m", "pitchnet"]


def time_to_text(
    command: list[str], stages: list[tuple[bytes, ...]], env: dict[str, str], timeout: float = 30.0
) -> list[float]:
    """Seconds from launch until each stage has appeared on the terminal, in order; a
    stage is reached when any of its texts is on screen (the connecting screen may be
    skipped when the lobby is ready before Textual's first paint)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    started = time.perf_counter()
    child = subprocess.Popen(
        command, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
    )
    os.close(slave)
    seen = b""
    times: list[float] = []
    try:
        while len(times) < len(stages):
            remaining = started + timeout - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError(f"{command[-1]}: no {stages[len(times)]!r} in {timeout} s")
            ready, _, _ = select.select([master], [], [], remaining)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                raise RuntimeError(f"{command} exited early: {seen[-400:]!r}") from None
            now = time.perf_counter()
            seen += chunk
            plain = ANSI.sub(b"", seen)
            while len(times) < len(stages) and any(t in plain for t in stages[len(times)]):
                times.append(now - started)
    finally:
        with contextlib.suppress(OSError):
            os.write(master, b"\x11")  # Ctrl+Q: quit politely
        try:
            child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        with contextlib.suppress(OSError):
            while os.read(master, 65536):
                pass
        os.close(master)
    return times


def start_host(env: dict[str, str]) -> tuple[subprocess.Popen[str], int]:
    host = subprocess.Popen(
        [*_pitchnet(), "host", "--port", "0", "--interface", "127.0.0.1", "--name", "Bench"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert host.stdout is not None
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        line = host.stdout.readline()
        match = re.search(r"pitchnet join 127\.0\.0\.1:(\d+)", line)
        if match:
            return host, int(match.group(1))
        if not line and host.poll() is not None:
            break
    host.kill()
    raise RuntimeError("the host did not start")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="pitchnet-startup-"))
    bare = workdir / "bare_app.py"
    bare.write_text(BARE_APP)
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "PITCHNET_INTERFACE": "127.0.0.1",
        "PITCHNET_CONFIG_DIR": str(workdir),
        "PITCHNET_STATE_DIR": str(workdir),  # the host's journal and our seat tokens
    }
    env.pop("TEXTUAL", None)
    host, port = start_host(env)

    def join(run: int) -> list[str]:
        # A new name each run: no remembered seat token, so every run is a fresh join.
        return [*_pitchnet(), "join", f"127.0.0.1:{port}", "--name", f"Bench {run}"]

    bare_times: list[float] = []
    first_times: list[float] = []
    lobby_times: list[float] = []
    try:
        bare_stages = [(b"bare app ready",)]
        join_stages = [
            (b"Connecting to", b"seats open", b"seat open"),
            (b"seats open", b"seat open"),
        ]
        time_to_text([sys.executable, str(bare)], bare_stages, env)  # warm the file caches
        time_to_text(join(0), join_stages, env)
        for run in range(1, args.runs + 1):
            bare_times += time_to_text([sys.executable, str(bare)], bare_stages, env)
            first, lobby = time_to_text(join(run), join_stages, env)
            first_times.append(first)
            lobby_times.append(lobby)
    finally:
        host.terminate()
        host.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)

    def ms(values: list[float]) -> str:
        low, mid, high = (
            round(v * 1000) for v in (min(values), statistics.median(values), max(values))
        )
        return f"median {mid:5d} ms  (min {low}, max {high})"

    ratio = statistics.median(first_times) / statistics.median(bare_times)
    print(f"runs: {args.runs} each, alternating; python {sys.version.split()[0]}; 80x24 pty")
    print(f"bare Textual app, first screen:     {ms(bare_times)}")
    print(f"pitchnet join, first screen:        {ms(first_times)}")
    print(f"pitchnet join, lobby from the host: {ms(lobby_times)}")
    print(f"first screen ratio (pitchnet / bare): {ratio:.2f}x  (goal <= 1.30x)")
    best = min(first_times) / min(bare_times)
    print(f"ratio of the fastest runs:            {best:.2f}x  (less sensitive to a busy machine)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
