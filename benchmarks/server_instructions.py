"""The whole host process's work per action, as a count of instructions, for any tree.

`host_instructions.py` counts the referee's path alone and needs `host/referee.py`;
CPU time on these VMs varies by a third between two runs of the same code. This counts
everything the `pitchnet host` process does for one action on a real socket: the event
loop waking, the read, decoding, the referee, the rules, the journal, the views, the
packing and the four sends, as user-space instructions under valgrind's cachegrind
(system calls are not counted: per action those are the same read, sends and journal
writes in every tree). So it compares any two trees, before the referee too.

For each tree and each of two lengths A and B, one table is served by that tree's
`HostServer` (its own `benchmarks/latency.py` settings: journal on, heartbeats on) in a
process under cachegrind; four clients of
that tree's `latency.py` play A (or B) actions in lock-step from another process (one
action at a time, as people play). (Instructions with B - those with A) / (B - A) is one
action's share; start-up and shutdown cancel out. Everything binds 127.0.0.1. Needs
`valgrind` (apt-get install valgrind).

Run: uv run python benchmarks/server_instructions.py [--against /path/to/checkout ...]
                                                     [--first 100] [--second 500]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from host_cost import add_tree_options, trees_to_measure  # this folder's

SEED = 1000
"""The table's deck seed (latency.py's first table)."""
STEP_SECONDS = 120.0
"""How long the clients wait for one state: the host is some 50 times slower under
cachegrind."""


def serve() -> None:
    """In the tree under test, under cachegrind: one table until standard input closes."""
    sys.path[:0] = [str(Path.cwd() / "benchmarks"), str(Path.cwd())]
    import latency

    from host.server import HostServer

    async def main() -> None:
        loop = asyncio.get_running_loop()
        done = asyncio.Event()
        threading.Thread(
            target=lambda: (sys.stdin.read(), loop.call_soon_threadsafe(done.set)), daemon=True
        ).start()
        with tempfile.TemporaryDirectory() as state_dir:
            server = HostServer(latency.host_config(SEED, Path(state_dir), True))
            await server.start()
            print(server.port, flush=True)
            await done.wait()
            await server.close()

    asyncio.run(main())


def play(port: int, actions: int) -> None:
    """In the tree under test: its four lock-step clients play `actions` actions."""
    sys.path[:0] = [str(Path.cwd() / "benchmarks"), str(Path.cwd())]
    import latency

    latency.STEP_TIMEOUT = STEP_SECONDS
    got = asyncio.run(latency.latency_clients("host", port, actions, 3600.0, 0))
    if len(got["samples"]) != actions:
        raise SystemExit(f"played {len(got['samples'])} of {actions} actions")


def instructions(tree: Path, actions: int) -> int:
    """User-space instructions of one host process that served `actions` actions."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    script = str(Path(__file__).resolve())
    with tempfile.TemporaryDirectory() as scratch, open(Path(scratch) / "log", "w+") as log:
        host = subprocess.Popen(
            [
                "valgrind",
                "--tool=cachegrind",
                "--cache-sim=no",
                f"--cachegrind-out-file={Path(scratch) / 'out'}",
                sys.executable,
                script,
                "--serve",
            ],
            cwd=tree,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
        assert host.stdin is not None and host.stdout is not None
        try:
            port = int(host.stdout.readline())
            subprocess.run(
                [sys.executable, script, "--play", str(port), str(actions)],
                cwd=tree,
                env=env,
                check=True,
                timeout=3600,
            )
        finally:
            host.stdin.close()  # the host closes its table and exits
            host.wait(timeout=600)
        log.seek(0)
        errors = log.read()
    found = re.search(r"I\s+refs:\s+([\d,]+)", errors)
    if host.returncode != 0 or found is None:
        raise SystemExit(f"the host in {tree} failed:\n{errors[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_tree_options(parser)
    parser.add_argument("--first", type=int, default=100, help="actions in the short run")
    parser.add_argument("--second", type=int, default=500, help="actions in the long run")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--play", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return 0
    if args.play:
        play(*args.play)
        return 0
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    trees, names = trees_to_measure(args)
    print(
        f"pitchnet host process instructions per action - {time.strftime('%Y-%m-%d %H:%M')}; "
        f"one table, four lock-step clients, actions {args.first} and {args.second}, "
        "under cachegrind"
    )
    for tree, name in zip(trees, names, strict=True):
        short = instructions(tree, args.first)
        long = instructions(tree, args.second)
        per_action = (long - short) / (args.second - args.first)
        print(f"  {name:>12}: {per_action:9,.0f} instructions per action", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
