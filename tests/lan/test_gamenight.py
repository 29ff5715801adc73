"""Game night on a namespace LAN (issue 12), with the real Textual client in tmux on each
"laptop": people who start `pitchnet play` at the same moment end at one table."""

from __future__ import annotations

import itertools
import sqlite3
import time
from pathlib import Path

import pytest

from .harness import Lan, WaitTimeout, wait_for
from .pitchnet_lan import read_entries
from .tui import Tui

SETUP_TITLE = "Host a table here"
SETUP_BUTTON = "Open the table"


def people_at(journal: Path) -> set[str]:
    """The names of the people seated at a table, from its journal (joins and takeovers,
    less those who left the lobby)."""
    seated: dict[int, str] = {}
    try:
        entries = read_entries(journal)
    except sqlite3.Error:  # being created, or deleted (a lobby that moved)
        return set()
    for entry in entries:
        if entry["op"] in ("join", "claim"):
            seated[entry["seat"]] = entry["name"]
        elif entry["op"] == "move" and entry["seat"] in seated:
            seated[entry["to"]] = seated.pop(entry["seat"])
        elif entry["op"] in ("leave", "unclaim"):
            seated.pop(entry["seat"], None)
    return set(seated.values())


MOVE_OFFER = "Move there (m)"


def accept_setup_screens(tuis: list[Tui], answered: set[str]) -> None:
    """Whoever sees the setup screen presses Enter once (its defaults), as people would;
    whose lobby is offered a move to an older table accepts it (`m`: a lobby never moves
    without its creator's key press)."""
    for tui in tuis:
        screen = tui.screen()
        if MOVE_OFFER in screen:
            tui.keys("m")
        if tui.node in answered:
            continue
        if SETUP_TITLE in screen and SETUP_BUTTON in screen:
            tui.keys("Enter")
            answered.add(tui.node)


def screens(tuis: list[Tui]) -> str:
    """Every client's screen and journals, for a failure message."""
    parts = []
    for tui in tuis:
        tables = {j.stem: sorted(people_at(j)) for j in tui.journals()}
        parts.append(f"--- {tui.node} hosts {tables}\n{tui.screen()}")
    return "\n".join(parts)


@pytest.mark.lan(players=4)
def test_four_people_starting_play_within_a_second_sit_at_one_table(lan: Lan) -> None:
    names = [f"P{i}" for i in range(1, 5)]
    tuis = [Tui(lan, f"p{i}", ["play", "--name", name]) for i, name in enumerate(names, 1)]
    first = time.monotonic()
    for tui in tuis:
        tui.start()
    assert tuis[-1].started_at - first < 1.0  # all four within one second
    for tui in tuis:
        tui.started()
    answered: set[str] = set()

    def one_table() -> Path | None:
        accept_setup_screens(tuis, answered)
        for tui in tuis:
            for journal in tui.journals():
                if people_at(journal) == set(names):
                    return journal
        return None

    try:
        try:
            journal = wait_for(one_table, 60, interval=0.2, what="all four at one table")
        except WaitTimeout:
            raise AssertionError(screens(tuis)) from None
        assert answered, "somebody must have hosted"
        # Full: the match started by itself, and every window shows that one table.
        wait_for(lambda: any(e["op"] == "deal" for e in read_entries(journal)), 20, what="a deal")
        for tui in tuis:
            tui.wait_for_text("Hand 1", timeout=30)
    finally:
        for tui in tuis:
            tui.close()


def seats_of(journal: Path) -> dict[int, str]:
    """Seat -> the name of whoever plays it now (people, bots, takeovers), from the journal."""
    seated: dict[int, str] = {}
    try:
        entries = read_entries(journal)
    except sqlite3.Error:
        return {}
    pending: dict[int, str] = {}
    for entry in entries:
        op = entry["op"]
        if op in ("join", "bot"):
            seated[entry["seat"]] = entry.get("name", "")
        elif op == "claim":
            pending[entry["seat"]] = entry["name"]
        elif op == "unclaim":
            pending.pop(entry["seat"], None)
        elif op == "deal":
            seated.update(pending)
            pending.clear()
        elif op == "leave" and entry["seat"] in seated:
            seated[entry["seat"]] += " (bot)"
    return seated


PRESSES = [("p", "Enter"), *((n, n) for n in "234561"), ("Enter",)]
"""What play_along presses, one group per call in turn: pass (Enter confirms), a number
twice (a bid, or the card in that slot: the second press sends it), Enter (ready)."""
_turn = itertools.count()


def play_along(tuis: list[Tui]) -> None:
    """People at the table press one group of keys each call, the next group the next
    call. One group at a time: a move the host refuses keeps the client waiting for that
    answer, and keys pressed meanwhile are dropped, so a burst of every key could repeat
    the same refused move for ever on a busy machine."""
    keys = PRESSES[next(_turn) % len(PRESSES)]
    for tui in tuis:
        tui.keys(*keys)


@pytest.mark.lan(players=5)
def test_the_whole_evening(lan: Lan) -> None:
    """Three start `play` within a second and sit at one table; its creator starts with
    one bot; a fourth arrives mid-hand and takes the bot's seat at the next hand; one
    player leaves and takes a bot-held seat back; a spectator watches throughout (no
    frame leaks a card); the host's window quits with confirmation and every client
    says "The host closed the table"."""
    import json
    import sys

    from tests.leaks import spectator_leaks

    from .pitchnet_lan import read_meta

    names = ["P1", "P2", "P3"]
    tuis = {n: Tui(lan, f"p{i}", ["play", "--name", n]) for i, n in enumerate(names, 1)}
    for tui in tuis.values():
        tui.start()
    for tui in tuis.values():
        tui.started()
    answered: set[str] = set()

    def table_of_three() -> tuple[str, Path] | None:
        accept_setup_screens(list(tuis.values()), answered)
        for name, tui in tuis.items():
            for journal in tui.journals():
                if people_at(journal) == set(names):
                    return name, journal
        return None

    try:
        creator, journal = wait_for(table_of_three, 60, interval=0.2, what="three at one table")
        host_node = tuis[creator].node
        port = wait_for(lambda: read_meta(journal, "port"), 10, what="the table's port")
        frames_path = lan.workdir / "watcher.jsonl"
        watcher = lan.spawn(
            "p5",
            [
                sys.executable,
                str(Path(__file__).with_name("watcher.py")),
                lan.ip(host_node),
                str(port),
                str(frames_path),
            ],
            env={"PYTHONPATH": str(Path(__file__).resolve().parents[2])},
            name="watcher",
        )
        wait_for(lambda: frames_path.exists() and frames_path.stat().st_size, 20, what="frames")

        # The creator starts: one bot takes the empty fourth seat.
        tuis[creator].wait_for_text("Start with bots")
        tuis[creator].keys("s")
        wait_for(lambda: any(e["op"] == "deal" for e in read_entries(journal)), 20, what="deal")
        bot_seat = next(s for s, n in seats_of(journal).items() if n.startswith("Bot"))

        # A fourth person arrives mid-hand: a bot-played seat is free, taken next hand.
        newcomer = Tui(lan, "p4", ["play", "--name", "P4"], name="p4").start()
        newcomer.started()
        newcomer.wait_for_text("A match is on")  # strangers' match: `play` asks (issue 25)
        newcomer.keys("Enter")
        wait_for(lambda: any(e["op"] == "claim" for e in read_entries(journal)), 30, what="a claim")
        people = [tuis[n] for n in names]

        def taken_over() -> bool:
            play_along(people)
            return seats_of(journal).get(bot_seat) == "P4"

        wait_for(taken_over, 180, interval=0.3, what="P4 in the bot's seat at the next hand")

        # One player (not the creator) leaves, then comes back with `play`.
        leaver = next(n for n in names if n != creator)
        tuis[leaver].keys("Escape")
        tuis[leaver].wait_for_text("Leave the table?")
        tuis[leaver].keys("y")
        left_seat = wait_for(
            lambda: (
                next((s for s, n in seats_of(journal).items() if n == f"{leaver} (bot)"), None)
                if any(e["op"] == "leave" for e in read_entries(journal))
                else None
            ),
            20,
            what="the leaver's seat played by a bot",
        )
        tuis[leaver].close()
        back = Tui(lan, tuis[leaver].node, ["play", "--name", leaver], name="back").start()
        back.started()
        back.wait_for_text("A match is on")  # the seat was given up: one key to sit again
        back.keys("Enter")
        people = [tuis[n] for n in names if n != leaver] + [newcomer]

        def back_in_own_seat() -> bool:
            play_along([*people, back])
            return seats_of(journal).get(left_seat) == leaver

        try:
            wait_for(back_in_own_seat, 180, interval=0.3, what="the leaver back in their seat")
        except WaitTimeout:
            raise AssertionError(f"{seats_of(journal)}\n{back.screen()}") from None

        # The host's window quits, with confirmation; every client is told.
        tuis[creator].keys("C-q")
        tuis[creator].wait_for_text("You host this table")
        tuis[creator].keys("e")
        for tui in [t for n, t in tuis.items() if n not in (creator, leaver)] + [newcomer, back]:
            tui.wait_for_text("The host closed the table", timeout=20)
        watcher.wait(20)
        frames = [json.loads(line) for line in frames_path.read_text().splitlines()]
        assert sum(f.get("type") == "state" for f in frames) > 20
        assert spectator_leaks(frames) == []
        # Told the host closed the table; or, if this watcher fell behind on a busy machine,
        # cut by the host like any connection that does not read (it never slows the table).
        last = frames[-1]
        assert (last.get("type"), last.get("code")) in (("bye", "closed"), ("_cut", None)), last
    finally:
        for tui in tuis.values():
            tui.close()
