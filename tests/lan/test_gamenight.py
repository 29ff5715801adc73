"""Game night on a namespace LAN (issue 12), with the real Textual client in tmux on each
"laptop": people who start `pitchnet play` at the same moment end at one table."""

from __future__ import annotations

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


def accept_setup_screens(tuis: list[Tui], answered: set[str]) -> None:
    """Whoever sees the setup screen presses Enter once (its defaults), as people would."""
    for tui in tuis:
        if tui.node in answered:
            continue
        screen = tui.screen()
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
