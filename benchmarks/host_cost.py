"""Where the host's CPU per action goes, part by part, in latency.py's throughput run (b).

latency.py says how much CPU the host spends per applied action; this says on what. It
runs the same part (b) (`latency.measure_throughput("host", ...)`: tables on loopback,
bot clients in another process) with a timer around each part of the host's path: the
whole of `Connection.data_received` (one action, read to sent), the table's change
(`dispatch.act`, `Table.handle` in older trees, journal write included), the journal
write alone and its pieces (the SQLite statements, the JSON text, the checksum link, the
mark file, checkpoints), and the snapshots (`Snapshots.frames`, `Table.state_frames` in
older trees). Each figure is CPU time (`time.process_time`) per
action. The timers cost CPU themselves (two clock reads each), so the parts are a
little high; compare trees with the same script, not with latency.py's figures.

`--against TREE` (once or more) measures other checkouts the same way, in the same
run, alternating with this one: this script is run with TREE as its working directory,
so it imports TREE's `host/` and TREE's `benchmarks/latency.py`. A part that tree lacks (the journal
had no checksum chain before 2026-12-01) shows as "-". Everything binds 127.0.0.1.

Run: uv run python benchmarks/host_cost.py [--tables 20] [--window 5] [--rounds 2]
                                            [--against /path/to/other/checkout ...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

PARTS = (
    ("Connection.data_received", "one action, read to sent"),
    ("the table's change", "dispatch.act (Table.handle before), journal write included"),
    ("journal write", "SqliteJournal.record_all (record before 2026-12-01)"),
    ("sql INSERT INTO entries", "  its INSERT"),
    ("_ENCODE", "  the entry's JSON text"),
    ("chain_link", "  its checksum link"),
    ("SqliteJournal._write_mark", "  the mark file"),
    ("SqliteJournal.checkpoint", "  WAL checkpoints"),
    ("the snapshots", "Snapshots.frames (Table.state_frames before), built and packed"),
)


def _timed(totals: dict[str, list[float]], name: str, function: Any) -> Any:
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            entry = totals[name]
            entry[0] += time.process_time() - start
            entry[1] += 1

    return timed


class _TimedDatabase:
    """The journal's SQLite connection, with each statement kind timed."""

    def __init__(self, db: Any, totals: dict[str, list[float]]) -> None:
        self._db, self._totals = db, totals

    def execute(self, sql: str, *args: Any) -> Any:
        name = "sql " + sql.split("(")[0].strip()
        return _timed(self._totals, name, self._db.execute)(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


def _instrument(totals: dict[str, list[float]]) -> None:
    import importlib

    import host.journal as journal
    import host.server as server
    import host.table as table

    owners: list[tuple[Any, str, str]] = [
        (server.Connection, "data_received", "Connection.data_received"),
        (table.Table, "handle", "the table's change"),  # trees before host/dispatch.py
        (table.Table, "state_frames", "the snapshots"),  # trees before host/snapshots.py
        (journal.SqliteJournal, "_write_mark", "SqliteJournal._write_mark"),
        (journal.SqliteJournal, "checkpoint", "SqliteJournal.checkpoint"),
    ]
    try:
        dispatch = importlib.import_module("host.dispatch")
        snapshots = importlib.import_module("host.snapshots")
    except ImportError:
        pass
    else:
        owners += [
            (dispatch, "act", "the table's change"),
            (snapshots.Snapshots, "frames", "the snapshots"),
        ]
    for owner, name, label in owners:
        if hasattr(owner, name):
            setattr(owner, name, _timed(totals, label, getattr(owner, name)))
    write = "record_all" if hasattr(journal.SqliteJournal, "record_all") else "record"
    setattr(
        journal.SqliteJournal,
        write,
        _timed(totals, "journal write", getattr(journal.SqliteJournal, write)),
    )
    for name in ("chain_link", "_ENCODE"):
        if hasattr(journal, name):
            setattr(journal, name, _timed(totals, name, getattr(journal, name)))
    opened = journal.SqliteJournal.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        opened(self, *args, **kwargs)
        self.db = _TimedDatabase(self.db, totals)

    journal.SqliteJournal.__init__ = init  # type: ignore[method-assign]


def measure(tables: int, warmup: float, window: float) -> dict[str, Any]:
    """One part (b) run of the tree in the working directory, with the parts timed."""
    sys.path[:0] = [str(Path.cwd() / "benchmarks"), str(Path.cwd())]
    import latency  # the working directory's own

    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    _instrument(totals)

    async def run() -> dict[str, Any]:
        with tempfile.TemporaryDirectory() as state_dir:
            ctx = {"state_dir": Path(state_dir), "journal": True, "profile": False}
            return await latency.measure_throughput("host", tables, warmup, window, ctx)

    got = asyncio.run(run())
    actions = totals["Connection.data_received"][1] or 1
    parts = {name: total / actions * 1e6 for name, (total, _) in totals.items()}
    return {"cpu_us": got["cpu_us"], "rate": got["rate"], "parts": parts}


def _run_in(tree: Path, args: argparse.Namespace) -> dict[str, Any]:
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        "--tables",
        str(args.tables),
        "--warmup",
        str(args.warmup),
        "--window",
        str(args.window),
    ]
    env = {**os.environ, "PYTHONPATH": ""}
    done = subprocess.run(
        command, cwd=tree, env=env, capture_output=True, text=True, check=False, timeout=600
    )
    if done.returncode != 0:
        raise SystemExit(f"the run in {tree} failed:\n{done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def tree_commit(tree: Path) -> str:
    """The tree's commit, with "+" when it has uncommitted changes to tracked files."""
    done = subprocess.run(
        ["git", "-C", str(tree), "log", "-1", "--format=%h"],
        capture_output=True,
        text=True,
        check=False,
    )
    dirty = subprocess.run(
        ["git", "-C", str(tree), "diff", "--quiet", "HEAD"], capture_output=True, check=False
    )
    return (done.stdout.strip() or tree.name) + ("+" if dirty.returncode == 1 else "")


def tree_labels(trees: list[Path]) -> list[str]:
    """One name per tree: its commit, and its folder too where two would read the same."""
    commits = [tree_commit(tree) for tree in trees]
    return [
        f"{commit} ({tree.name})" if commits.count(commit) > 1 else commit
        for commit, tree in zip(commits, trees, strict=True)
    ]


def add_tree_options(parser: argparse.ArgumentParser) -> None:
    """`--against TREE`, as every script comparing trees takes it."""
    parser.add_argument(
        "--against",
        type=Path,
        action="append",
        default=[],
        help="another checkout to measure alongside (may be given more than once)",
    )


def trees_to_measure(args: argparse.Namespace) -> tuple[list[Path], list[str]]:
    """The trees to measure (this one first) and their labels."""
    here = Path(__file__).resolve().parent.parent
    trees = [here] + [tree.resolve() for tree in args.against]
    return trees, tree_labels(trees)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--window", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=2, help="runs of each tree, alternating")
    add_tree_options(parser)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.tables, args.warmup, args.window)))
        return 0
    trees, names = trees_to_measure(args)
    print(
        f"pitchnet host cost by part - {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} "
        f"cores, load {os.getloadavg()[0]:.2f}; part (b) of latency.py, {args.tables} "
        f"tables, {args.window:.0f} s windows, {args.rounds} runs each, alternating"
    )
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for _ in range(args.rounds):
        for tree, name in zip(trees, names, strict=True):
            runs[name].append(_run_in(tree, args))
    print(f"\n  {'CPU per action, median of runs (us)':52}" + "".join(f" | {n:>9}" for n in names))
    whole = [statistics.median(r["cpu_us"] for r in runs[n]) for n in names]
    print(f"  {'server process (latency.py figure)':52}" + "".join(f" | {v:9.0f}" for v in whole))
    for part, meaning in PARTS:
        cells = []
        for name in names:
            seen = [r["parts"][part] for r in runs[name] if part in r["parts"]]
            cells.append(f"{statistics.median(seen):9.1f}" if seen else f"{'-':>9}")
        print(f"  {meaning:52}" + "".join(f" | {c}" for c in cells))
    for name in names:
        rates = ", ".join(f"{r['rate']:.0f}" for r in runs[name])
        cpus = ", ".join(f"{r['cpu_us']:.0f}" for r in runs[name])
        print(f"  {name}: actions/s {rates}; server CPU per action {cpus} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
