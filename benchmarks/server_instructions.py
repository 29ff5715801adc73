"""The whole host process's work per action, as a count of instructions, for any tree.

`host_instructions.py` counts the referee's path alone and needs `host/referee.py`;
CPU time on these VMs varies by a third between two runs of the same code. This counts
everything the `pitchnet host` process does for one action on a real socket: the event
loop waking, the read, decoding, the referee, the rules, the journal, the views, the
packing and the four sends, as user-space instructions under valgrind's cachegrind.
So it compares any two trees, before the referee too. What the kernel does for the
system calls is not counted; `--syscalls` counts those calls instead.

For each tree and each of two lengths A and B, one table is served by that tree's
`HostServer` (its own `benchmarks/latency.py` settings: journal on, heartbeats on) in a
process under the counting tool; four clients of that tree's `latency.py` play A (or B)
actions in lock-step from another process (one action at a time, as people play). The
count with B less the count with A, over B - A, is one action's share: start-up and
shutdown cancel out. Everything binds 127.0.0.1. Needs `valgrind` (apt-get install
valgrind).

`--syscalls` counts the host's system calls per action the same way, under strace
(apt-get install strace).

Run: uv run python benchmarks/server_instructions.py [--against /path/to/checkout ...]
                                                     [--first 100] [--second 500] [--syscalls]
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
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from host_cost import add_tree_options, trees_to_measure  # this folder's

SEED = 1000
"""The table's deck seed (latency.py's first table)."""
STEP_SECONDS = 120.0
"""How long the clients wait for one state: the host is some 50 times slower under
cachegrind."""


def _tree_latency() -> Any:
    """The tree under test's own `benchmarks/latency.py` (the working directory is the
    tree), with the tree's packages first on the path."""
    sys.path[:0] = [str(Path.cwd() / "benchmarks"), str(Path.cwd())]
    import latency

    return latency


def serve() -> None:
    """In the tree under test, under the counting tool: one table until standard input
    closes."""
    latency = _tree_latency()
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
    latency = _tree_latency()
    latency.STEP_TIMEOUT = STEP_SECONDS
    got = asyncio.run(latency.latency_clients("host", port, actions, 3600.0, 0))
    if len(got["samples"]) != actions:
        raise SystemExit(f"played {len(got['samples'])} of {actions} actions")


def under(tool: list[str], tree: Path, actions: int) -> str:
    """Run one host process under `tool` (its output file named by {out}) while it serves
    `actions` actions; returns what the tool wrote to its file or to standard error."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    script = str(Path(__file__).resolve())
    with tempfile.TemporaryDirectory() as scratch, open(Path(scratch) / "log", "w+") as log:
        out = Path(scratch) / "out"
        host = subprocess.Popen(
            [*(part.format(out=out) for part in tool), sys.executable, script, "--serve"],
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
        written = log.read() + (out.read_text() if out.exists() else "")
    if host.returncode != 0:
        raise SystemExit(f"the host in {tree} failed:\n{written[-2000:]}")
    return written


def instructions(tree: Path, actions: int) -> Counter[str]:
    """User-space instructions of one host process that served `actions` actions."""
    written = under(CACHEGRIND, tree, actions)
    found = re.search(r"I\s+refs:\s+([\d,]+)", written)
    if found is None:
        raise SystemExit(f"no instruction count from the host in {tree}:\n{written[-2000:]}")
    return Counter(instructions=int(found.group(1).replace(",", "")))


def system_calls(tree: Path, actions: int) -> Counter[str]:
    """The system calls of one host process that served `actions` actions, by name."""
    calls: Counter[str] = Counter()
    for line in under(STRACE, tree, actions).splitlines():
        # strace -c's table: % time, seconds, usecs/call, calls, [errors,] syscall
        words = line.split()
        if len(words) in (5, 6) and words[-1].isidentifier() and words[3].isdigit():
            calls[words[-1]] += int(words[3])
    calls.pop("total", None)
    return calls


CACHEGRIND = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file={out}"]
STRACE = ["strace", "-f", "-c", "-o", "{out}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_tree_options(parser)
    parser.add_argument("--first", type=int, default=100, help="actions in the short run")
    parser.add_argument("--second", type=int, default=500, help="actions in the long run")
    parser.add_argument(
        "--syscalls",
        action="store_true",
        help="count the host's system calls per action instead (under strace)",
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--play", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return 0
    if args.play:
        play(*args.play)
        return 0
    tool = "strace" if args.syscalls else "valgrind"
    if shutil.which(tool) is None:
        raise SystemExit(f"{tool} is not installed (apt-get install {tool})")
    if args.syscalls:
        return report(args, "system calls", "strace", system_calls, _calls_line)
    return report(args, "instructions", "cachegrind", instructions, _instructions_line)


def report(
    args: argparse.Namespace,
    what: str,
    tool: str,
    count: Callable[[Path, int], Counter[str]],
    line: Callable[[dict[str, float]], str],
) -> int:
    """Each tree's counts per action: (the count after B actions - after A) / (B - A)."""
    print(
        f"pitchnet host process {what} per action - {time.strftime('%Y-%m-%d %H:%M')}; "
        f"one table, four lock-step clients, actions {args.first} and {args.second}, "
        f"under {tool}"
    )
    trees, names = trees_to_measure(args)
    for tree, name in zip(trees, names, strict=True):
        short, long = count(tree, args.first), count(tree, args.second)
        per_action = {key: (long[key] - short[key]) / (args.second - args.first) for key in long}
        print(f"  {name:>9}: {line(per_action)}", flush=True)
    return 0


def _instructions_line(per_action: dict[str, float]) -> str:
    return f"{per_action['instructions']:9,.0f} instructions per action"


def _calls_line(per_action: dict[str, float]) -> str:
    """In all, and each kind made at least once every twenty actions."""
    kinds = ", ".join(
        f"{call} {count:.2f}"
        for call, count in sorted(per_action.items(), key=lambda item: -item[1])
        if count >= 0.05
    )
    return f"{sum(per_action.values()):5.2f} per action ({kinds})"


if __name__ == "__main__":
    raise SystemExit(main())
