"""Real pitchnet processes on a namespace LAN: a `pitchnet host` in the ``host`` node and one
`pitchnet bot` per player node, each "laptop" with its own state folder (the host's journal,
each player's seat token), plus what the fault tests need to judge a match afterwards: the
host's SQLite journal read back, and a replay of it through the rules to get the scores.

Everything waits on something it can see (a log line, the journal) with a deadline.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pitchnet.cards import Card
from pitchnet.rules import Match, Settings

from .harness import Lan, LanProcess, wait_for

PITCHNET = str(Path(sys.executable).with_name("pitchnet"))
PORT = 7373
PLAYERS = 4
TARGET = 7
SEED = 147
THINK = 0.12
"""Each bot's pause before it acts: long enough to land a fault on a chosen turn, short
enough that the seeded match (3 hands, 84 bids and plays) takes about 12 s."""
BOT_DELAY = 0.05
MATCH_TIMEOUT = 120.0

FIND_TABLE = """
import asyncio, os, sys
from client.discovery import find_table
found = asyncio.run(find_table(os.environ["PITCHNET_INTERFACE"], sys.argv[1], float(sys.argv[2])))
print("found" if found else "not-found", *((found.host, found.port) if found else ()), flush=True)
"""


def state_dir(lan: Lan, node: str) -> Path:
    """The node's own pitchnet state folder (PITCHNET_STATE_DIR), as on its own laptop."""
    return lan.home(node) / "pitchnet-state"


def node_env(lan: Lan, node: str) -> dict[str, str]:
    return {
        "PITCHNET_STATE_DIR": str(state_dir(lan, node)),
        "PITCHNET_CONFIG_DIR": str(lan.home(node) / "pitchnet-config"),
    }


# ---- the journal, read back ---------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    """A match as its journal tells it."""

    entries: tuple[dict[str, Any], ...]
    deals: tuple[tuple[str, ...], ...]
    actions: tuple[tuple[str, int, Any], ...]
    """(op, seat, value) of every bid and play, in order."""
    scores: tuple[int, ...]
    winner: int | None
    hand_sizes: tuple[int, ...] = field(default=())
    """How many bids and plays each hand took (the boundaries of `actions`)."""


def read_entries(path: Path) -> list[dict[str, Any]]:
    """Every journal entry, read-only; an empty list while the file does not exist yet."""
    if not path.exists():
        return []
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        rows = db.execute("SELECT entry FROM entries ORDER BY seq").fetchall()
    finally:
        db.close()
    return [json.loads(text) for (text,) in rows]


def read_meta(path: Path, key: str) -> Any:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        row = db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    finally:
        db.close()
    return None if row is None else json.loads(row[0])


def actions_of(entries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in entries if e["op"] in ("bid", "play")]


def result_of(entries: Sequence[dict[str, Any]], players: int = PLAYERS) -> Result:
    """Replay the journal's first match through the rules: the deals, the bids and plays,
    and the scores they add up to."""
    match: Match | None = None
    deals: list[tuple[str, ...]] = []
    actions: list[tuple[str, int, Any]] = []
    sizes: list[int] = []
    for entry in entries:
        op = entry["op"]
        if op == "match":
            if match is not None:
                break  # only the first match is compared
            match = Match(Settings(players, False, TARGET), dealer=entry["dealer"])
        elif op == "deal" and match is not None:
            deals.append(tuple(entry["deck"]))
            match.deal([Card.parse(c) for c in entry["deck"]])
            sizes.append(0)
        elif op == "bid" and match is not None:
            match.bid(entry["seat"], entry["value"])
            actions.append(("bid", entry["seat"], entry["value"]))
            sizes[-1] += 1
        elif op == "play" and match is not None:
            match.play(entry["seat"], Card.parse(entry["value"]))
            actions.append(("play", entry["seat"], entry["value"]))
            sizes[-1] += 1
    assert match is not None, "the journal has no match"
    return Result(
        entries=tuple(entries),
        deals=tuple(deals),
        actions=tuple(actions),
        scores=tuple(match.scores),
        winner=match.winner,
        hand_sizes=tuple(sizes),
    )


def duplicated_actions(entries: Sequence[dict[str, Any]]) -> list[tuple[str, int, int]]:
    """Client actions (op, seat, id) the journal holds more than once, plus any id that is
    not above the same seat's previous one (the host must apply each id once, in order)."""
    seen = Counter(
        (e["op"], e["seat"], e["id"]) for e in actions_of(entries) if e.get("id") is not None
    )
    twice = [key for key, n in seen.items() if n > 1]
    last: dict[int, int] = {}
    for e in entries:
        if e["op"] in ("bid", "play", "ready", "start") and e.get("id") is not None:
            if e["id"] <= last.get(e["seat"], -1):
                twice.append((e["op"], e["seat"], e["id"]))
            last[e["seat"]] = e["id"]
    return twice


def compare(result: Result, baseline: Result) -> list[str]:
    """What differs between a match and its baseline (empty when they agree)."""
    problems = []
    if result.deals != baseline.deals:
        problems.append(f"deals differ: {len(result.deals)} vs {len(baseline.deals)} hands")
    if result.actions != baseline.actions:
        first = next(
            (
                i
                for i, (a, b) in enumerate(zip(result.actions, baseline.actions, strict=False))
                if a != b
            ),
            min(len(result.actions), len(baseline.actions)),
        )
        problems.append(
            f"bids/plays differ from action {first}: {result.actions[first : first + 3]} vs "
            f"{baseline.actions[first : first + 3]} ({len(result.actions)} vs "
            f"{len(baseline.actions)} actions)"
        )
    if result.scores != baseline.scores or result.winner != baseline.winner:
        problems.append(
            f"scores {result.scores} (winner {result.winner}) vs baseline "
            f"{baseline.scores} (winner {baseline.winner})"
        )
    dupes = duplicated_actions(result.entries)
    if dupes:
        problems.append(f"actions journaled more than once or out of order: {dupes}")
    return problems


# ---- processes ------------------------------------------------------------------------------


class PitchLan:
    """A seeded table on a `Lan`: the host, a bot per player node, and the host's journal."""

    def __init__(
        self,
        lan: Lan,
        *,
        seed: int = SEED,
        think: float = THINK,
        host_args: Sequence[str] = (),
    ) -> None:
        self.lan, self.seed, self.think = lan, seed, think
        self.host_args = list(host_args)
        self.host: LanProcess | None = None
        self.hosts: list[LanProcess] = []
        self.bots: dict[str, LanProcess] = {}
        self.table_id = ""
        self.port = PORT
        self.address = f"{lan.ip('host')}:{PORT}"

    @property
    def serving(self) -> LanProcess:
        """The host process started last (a test that started none fails here)."""
        assert self.host is not None, "no host started yet (start_host)"
        return self.host

    # -- the host --
    def start_host(self, *, resume: bool = False, interface: str | None = None) -> LanProcess:
        """`pitchnet host` (or `--resume` of this table) on the host node's address, or on
        `interface` (an address the test gave the host node instead)."""
        argv = [PITCHNET, "host", "--port", str(PORT), "--bot-delay", str(BOT_DELAY)]
        if resume:
            argv += ["--resume", self.table_id]
        else:
            argv += ["--players", str(PLAYERS), "--target", str(TARGET), "--seed", str(self.seed)]
            argv += ["--name", "LAN test"]
        argv += self.host_args
        label = f"host-{len(self.hosts)}"
        env = node_env(self.lan, "host")
        address = interface or self.lan.ip("host")
        env["PITCHNET_INTERFACE"] = address
        proc = self.lan.spawn("host", argv, env=env, name=label)
        found = proc.wait_for_line(r"is open: id ([0-9a-f]+)", timeout=20)
        if resume:
            assert found.group(1) == self.table_id, "the resumed table has another id"
        self.table_id = found.group(1)
        listening = proc.wait_for_line(r"open on (\S+):(\d+)", timeout=20)
        self.port = int(listening.group(2))
        self.address = f"{address}:{self.port}"
        self.host = proc
        self.hosts.append(proc)
        return proc

    def host_log(self) -> str:
        return "\n".join(p.log() for p in self.hosts)

    @property
    def journal(self) -> Path:
        return state_dir(self.lan, "host") / "tables" / f"{self.table_id}.sqlite"

    # -- players --
    def start_bot(
        self, node: str, seat: int | None = None, think: float | None = None
    ) -> LanProcess:
        """`pitchnet bot` named after its node; waits until it sits (at `seat`, if given)."""
        pause = self.think if think is None else think
        argv = [PITCHNET, "bot", self.address, "--name", node.upper(), "--think", str(pause)]
        runs = sum(1 for p in self.lan.processes if p.node == node)
        proc = self.lan.spawn(node, argv, env=node_env(self.lan, node), name=f"{node}-bot-{runs}")
        sat = proc.wait_for_line(r"seated at seat (\d+)", timeout=20)
        if seat is not None:
            assert int(sat.group(1)) == seat, f"{node} sat at seat {sat.group(1)}, not {seat}"
        self.bots[node] = proc
        return proc

    def seat_all(self, think: dict[str, float] | None = None) -> None:
        """One bot per player node, one at a time, so p1 is seat 0, p2 seat 1, ...;
        `think` gives some of them their own pause."""
        for index, node in enumerate(self.lan.players):
            self.start_bot(node, seat=index, think=(think or {}).get(node))

    def discover(self, node: str, timeout: float = 15) -> tuple[str, int]:
        """Find this table by its id through zeroconf, from inside `node`."""
        done = self.lan.run(
            node,
            [sys.executable, "-c", FIND_TABLE, self.table_id, str(timeout)],
            timeout=timeout + 15,
            env=node_env(self.lan, node),
        )
        words = done.stdout.split()
        assert words[:1] == ["found"], f"{node} did not find {self.table_id}: {done}"
        return words[1], int(words[2])

    # -- the match --
    def entries(self) -> list[dict[str, Any]]:
        return read_entries(self.journal)

    def action_count(self) -> int:
        return len(actions_of(self.entries()))

    def wait_actions(self, count: int, timeout: float = 60) -> int:
        """Wait until the journal holds at least `count` bids and plays; returns how many."""
        return wait_for(
            lambda: (n := self.action_count()) >= count and n,
            timeout,
            interval=0.02,
            what=f"{count} actions in the journal",
        )

    def finish(self, timeout: float = MATCH_TIMEOUT) -> Result:
        """Wait for every bot to see the match end and leave; the match as journaled."""
        deadline = time.monotonic() + timeout
        for node, proc in self.bots.items():
            code = proc.wait(max(1.0, deadline - time.monotonic()))
            assert code == 0, f"{node}'s bot exited {code}:\n{proc.tail()}"
        assert read_meta(self.journal, "finished") is True, "the journal says unfinished"
        result = result_of(self.entries())
        assert result.winner is not None, "the replayed match has no winner"
        return result

    def seats_taken(self, node_seat: int) -> list[int]:
        """Every seat the host says this player's connections sat at."""
        name = self.lan.players[node_seat].upper()
        return [int(s) for s in re.findall(rf"sits at seat (\d+) as '{name}'", self.host_log())]


def fault_point(
    baseline: Result, seat: int, *, hand: int = 2, accept: Callable[[int], bool] | None = None
) -> int:
    """The index (in the baseline's bids and plays) of a play by `seat` in `hand` that is not
    the first card of its trick: "mid-trick, on their turn". The fault goes in when the
    journal holds exactly this many actions, so `seat` is the one everybody waits for."""
    start = sum(baseline.hand_sizes[: hand - 1])
    end = start + baseline.hand_sizes[hand - 1]
    in_trick = 0
    for index in range(start, end):
        op, who, _ = baseline.actions[index]
        if op == "play":
            if who == seat and in_trick > 0 and (accept is None or accept(index)):
                return index
            in_trick = (in_trick + 1) % PLAYERS
    raise AssertionError(f"seat {seat} never plays mid-trick in hand {hand}")
