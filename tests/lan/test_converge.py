"""Two people start `pitchnet play` a moment apart on a namespace LAN (issue 25, item 1):
whoever opens first, and however (`play`'s setup screen, or `h` in the finder with
Browsers ticked), they end at one table."""

from __future__ import annotations

import time
from functools import partial

import pytest

from .harness import Lan, WaitTimeout, wait_for
from .test_gamenight import accept_setup_screens, people_at, screens
from .tui import Tui

TABS_TO_BROWSERS = 8
"""Tab presses from the setup screen's name box to its Browsers tick box (past the
Reactions tick box, which comes before it)."""


def drawn(tui: Tui) -> str:
    """The screen with its colours (where the focus is shows only in them)."""
    return tui._tmux("capture-pane", "-p", "-e", "-t", "main", check=False)


def moved(tui: Tui, before: str) -> bool:
    """The screen differs from `before` (the focus moved)."""
    return drawn(tui) != before


def open_from_the_finder_with_browsers(tui: Tui) -> float:
    """`h` in the finder, Browsers ticked with Space, Enter: returns when Enter went."""
    tui.wait_for_text("Host one here (h)")
    tui.keys("h")
    tui.wait_for_text("Open the table")
    for _ in range(TABS_TO_BROWSERS):  # one at a time, each seen to move the focus
        before = drawn(tui)
        tui.keys("Tab")
        wait_for(partial(moved, tui, before), 5, interval=0.05, what="the focus moved")
    tui.keys("Space")
    tui.wait_for_text("X▌ serve to phones")  # ticked (unticked shows no X)
    tui.keys("Enter")
    opened = time.monotonic()
    tui.wait_for_text("(hosted here)")
    return opened


@pytest.mark.parametrize("how", ["play", "h with browsers"])
@pytest.mark.parametrize("gap", [0.5, 2.0, 4.0])
@pytest.mark.lan(players=2)
def test_two_people_a_moment_apart_end_at_one_table(lan: Lan, gap: float, how: str) -> None:
    names = ["P1", "P2"]
    answered: set[str] = set()
    if how == "play":
        first = Tui(lan, "p1", ["play", "--name", "P1"]).start()
        since = first.started_at
    else:  # the finder (`join` without an address), then `h`
        first = Tui(lan, "p1", ["join", "--name", "P1"]).start()
        first.started()
        answered.add("p1")
        since = open_from_the_finder_with_browsers(first)
    # The scenario's spacing between the two people, not a wait for anything to happen.
    time.sleep(max(0.0, since + gap - time.monotonic()))
    second = Tui(lan, "p2", ["play", "--name", "P2"]).start()
    tuis = [first, second]
    for tui in tuis:
        tui.started()

    def one_table() -> bool:
        accept_setup_screens(tuis, answered)
        return any(people_at(j) == set(names) for tui in tuis for j in tui.journals())

    try:
        try:
            wait_for(one_table, 60, interval=0.2, what="both at one table")
        except WaitTimeout:
            raise AssertionError(screens(tuis)) from None
        tables = [j for tui in tuis for j in tui.journals() if people_at(j)]
        assert len(tables) == 1, screens(tuis)  # nobody left alone at a second table
    finally:
        for tui in tuis:
            tui.close()
