"""Issue 25 on a namespace LAN, with the real Textual client in tmux on each "laptop":
leaving on purpose hands the seat to a bot at once, "keep it running" from the lobby
and `play` ending that background table, a late-comer at a table of people offered to
watch, and `play` asking before it sits anyone at strangers' match."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest

from .harness import Lan, LanProcess, WaitTimeout, wait_for
from .pitchnet_lan import PITCHNET, node_env, read_entries, state_dir
from .test_gamenight import SETUP_BUTTON, SETUP_TITLE, play_along
from .tui import Tui


def host_table(lan: Lan, *args: str) -> tuple[LanProcess, Path]:
    """`pitchnet host` on the host node; returns it and its journal."""
    env = node_env(lan, "host")
    argv = [PITCHNET, "host", "--name", "Den", "--port", "7373", *args]
    proc = lan.spawn("host", argv, env=env, name="host")
    table_id = proc.wait_for_line(r"is open: id ([0-9a-f]+)", timeout=20).group(1)
    return proc, state_dir(lan, "host") / "tables" / f"{table_id}.sqlite"


def ops(journal: Path) -> list[dict[str, Any]]:
    return read_entries(journal)


def dealt(journal: Path) -> bool:
    return any(e["op"] == "deal" for e in ops(journal))


def people(lan: Lan, *names: str) -> list[Tui]:
    tuis = [Tui(lan, f"p{i}", ["play", "--name", n]) for i, n in enumerate(names, 1)]
    for tui in tuis:
        tui.start()
        tui.started()
    return tuis


@pytest.mark.lan(players=2)
def test_ctrl_q_by_a_seated_player_leaves_a_bot_playing_at_once(lan: Lan) -> None:
    """Ten minutes of grace: only a `leave` lets a bot play B's seat this soon."""
    _, journal = host_table(lan, "--players", "2", "--grace", "600", "--bot-delay", "0.2")
    ann, bob = people(lan, "A", "B")
    try:
        wait_for(lambda: dealt(journal), 30, what="the match (both sat at the open lobby)")
        bob.wait_for_text("Hand 1")
        bob.keys("C-q")
        bob.wait_for_text("Quit pitchnet? A bot takes your seat at once.")
        bob.keys("y")
        left = wait_for(
            lambda: next((e for e in ops(journal) if e["op"] == "leave"), None),
            20,
            what="B's leave",
        )["seat"]  # the entry, not its seat: seat 0 would read as not yet

        def bot_moved_for_b() -> bool:
            entries = ops(journal)
            at = next(i for i, e in enumerate(entries) if e["op"] == "leave")
            if any(e["op"] in ("bid", "play") and e["seat"] == left for e in entries[at:]):
                return True
            play_along([ann])  # A plays on; B's seat must answer by itself
            return False

        wait_for(bot_moved_for_b, 60, interval=0.3, what="a bot's move in B's seat")
    finally:
        ann.close()
        bob.close()


@pytest.mark.lan(players=1)
def test_keep_running_from_the_lobby_then_play_ends_it(lan: Lan) -> None:
    first = Tui(lan, "p1", ["play", "--name", "Ann"]).start()
    first.started()
    try:
        first.wait_for_text(SETUP_TITLE)
        first.wait_for_text(SETUP_BUTTON)
        first.keys("Enter")
        first.wait_for_text("(hosted here)")
        first.keys("C-q")
        first.wait_for_text("You host this table")
        first.keys("k")
        first.wait_for_text("The table goes on in the background")
        tables = state_dir(lan, "p1") / "tables"
        [note] = wait_for(lambda: list(tables.glob("*.background.json")), 10, what="the note")
        table_id = note.name.split(".")[0]
        log = tables / f"{table_id}.log"
        wait_for(lambda: log.exists() and "is open" in log.read_text(), 30, what="it opened")
        first.close()

        again = Tui(lan, "p1", ["play", "--name", "Ann"], name="again").start()
        again.started()
        again.wait_for_text("Running in the background")
        again.keys("e")
        again.wait_for_text("has ended for everyone")
        wait_for(lambda: "closed." in log.read_text(), 20, what="the background host to end")
        assert not note.exists()
        again.close()
    finally:
        first.close()


@pytest.mark.lan(players=3)
def test_a_late_comer_at_a_table_of_people_is_offered_to_watch(lan: Lan) -> None:
    _, journal = host_table(lan, "--players", "2", "--grace", "600")
    ann, bob = people(lan, "A", "B")
    late = Tui(lan, "p3", ["play", "--name", "C"])
    try:
        wait_for(lambda: dealt(journal), 30, what="the match")
        bob.close()  # B's laptop goes away: the seat waits for B (grace)
        late.start()
        late.started()
        screen = late.wait_for_text("Every seat is taken")
        assert "went away" not in screen and SETUP_BUTTON not in screen  # no setup
        late.keys("w")
        late.wait_for_text("(watching)")
    finally:
        for tui in (ann, bob, late):
            tui.close()


@pytest.mark.lan(players=2)
def test_play_at_a_strangers_match_asks_first(lan: Lan) -> None:
    _, journal = host_table(lan, "--players", "2", "--bots", "1")
    [ann] = people(lan, "A")
    stranger = Tui(lan, "p2", ["play", "--name", "S"])
    try:
        wait_for(lambda: dealt(journal), 30, what="A's match with a bot")
        stranger.start()
        stranger.started()
        stranger.wait_for_text("A match is on")
        assert not any(e["op"] == "claim" for e in ops(journal))  # nothing without a key
        stranger.keys("Enter")
        wait_for(
            lambda: any(e["op"] == "claim" and e["name"] == "S" for e in ops(journal)),
            20,
            what="S's claim on the bot's seat",
        )
    except WaitTimeout:
        raise AssertionError(stranger.screen()) from None
    finally:
        ann.close()
        stranger.close()


BIDS_AND_CARDS = [(n, n) for n in "234561"]
"""A's keys at the table: a number twice (a bid, or the card in that slot). Never Enter,
which at the match end would say "play again": between hands the ready limit deals."""


@pytest.mark.lan(players=1)
def test_a_match_end_waits_for_the_people_without_a_new_deal(lan: Lan) -> None:
    """Issue 25, item 3: the ready limit (1 s here) deals every hand of the match with
    nobody pressing Enter, yet after the match nothing is dealt: the screen says whom the
    table waits for, and it goes on waiting for many times that limit."""
    host, journal = host_table(
        lan, "--players", "2", "--bots", "1", "--ready", "1", "--bot-delay", "0.05"
    )
    [ann] = people(lan, "A")
    keys = itertools.cycle(BIDS_AND_CARDS)
    try:
        wait_for(lambda: dealt(journal), 30, what="A's match with a bot")

        def match_over() -> bool:
            if "match over" in host.log():
                return True
            ann.keys(*next(keys))
            return False

        wait_for(match_over, 300, interval=0.3, what="the match to end")
        deals = sum(e["op"] == "deal" for e in ops(journal))
        ann.wait_for_text("A new match starts when everyone says play again.")
        # Waited at least ten ready limits, as the table itself counts (no sleep).

        def waited_ten() -> str | None:
            screen = ann.screen()
            return screen if re.search(r"(?<!\d)(1\d|[2-9]\d) s so far", screen) else None

        screen = wait_for(
            waited_ten,
            60,
            interval=0.3,
            what="the table to say it has waited 10 s",
        )
        assert "either way" not in screen  # no deadline is shown: none runs
        assert sum(e["op"] == "deal" for e in ops(journal)) == deals
        assert sum(e["op"] == "match" for e in ops(journal)) == 1
    except WaitTimeout:
        raise AssertionError(ann.screen()) from None
    finally:
        ann.close()
