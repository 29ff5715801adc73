"""Bot levels at a table: a slow (`hard`) bot thinks off the loop, through the referee."""

from __future__ import annotations

import logging
import random
import threading
from pathlib import Path
from typing import Any

import pytest

from host import dispatch
from host.main import config_from_args
from host.referee import Pacing, Referee, Think
from host.table import Table, TableOptions
from host.tables import new_table, resume_table
from pitchnet.bots import EasyBot, NormalBot, SearchBot
from pitchnet.cards import shuffled_deck
from pitchnet.cli import build_parser
from pitchnet.protocol import PROTOCOL_VERSION, BidMsg, Hello, PlayMsg
from pitchnet.views import seat_view
from tests.table_doubles import hello_at


def _table(level: str) -> tuple[Table, list[str]]:
    table = Table(
        "t1",
        "Test",
        TableOptions(players=2, bot_level=level),
        lambda key: shuffled_deck(random.Random(key)),
    )
    tokens = [
        table.token_of(dispatch.join(table, Hello(PROTOCOL_VERSION, f"P{i}"))) for i in range(2)
    ]
    return table, tokens


def _human_moves_until(table: Table, seat: int) -> None:
    """The other seat (a person) moves until it is `seat`'s turn."""
    match = table.match
    assert match is not None
    while match.turn != seat:
        other = match.turn
        assert other is not None
        view = seat_view(match, other)
        next_id = table.seats[other].last_id + 1
        if view.legal_bids:
            dispatch.act(table, other, BidMsg(id=next_id, bid=view.legal_bids[-1]))
        else:
            dispatch.act(table, other, PlayMsg(id=next_id, card=view.legal_plays[0]))


def test_stand_ins_play_at_the_tables_level() -> None:
    for level, kind in (("easy", EasyBot), ("normal", NormalBot), ("hard", SearchBot)):
        table, _ = _table(level)
        table.disconnected(0)
        assert table.substitute_absent(0)
        _human_moves_until(table, 0)
        turn = table.bot_turn()
        assert turn is not None and isinstance(turn.bot, kind)


def test_a_hard_bot_thinks_off_the_loop_and_its_move_is_applied() -> None:
    table, _ = _table("hard")
    table.disconnected(0)
    assert table.substitute_absent(0)
    _human_moves_until(table, 0)
    referee = Referee(table, pacing=Pacing(bot_delay=0.0, trick_pause=0.0))
    referee.start(0.0)
    effects = referee.wake(1.0)
    [think] = [effect for effect in effects if isinstance(effect, Think)]
    assert referee.wake(2.0) == []  # while it thinks, no second turn is handed out
    match = table.match
    assert match is not None and match.hand is not None
    step = match.hand.step
    action = think.turn.bot.decide(think.turn.view)  # what the worker thread does
    referee.thought(think.turn, action, 3.0)
    assert match.hand.step == step + 1 and referee.thinking is None


def test_a_decision_for_a_turn_that_is_no_longer_the_bots_is_dropped() -> None:
    table, tokens = _table("hard")
    table.disconnected(0)
    assert table.substitute_absent(0)
    _human_moves_until(table, 0)
    referee = Referee(table, pacing=Pacing(bot_delay=0.0, trick_pause=0.0))
    referee.start(0.0)
    [think] = [effect for effect in referee.wake(1.0) if isinstance(effect, Think)]
    dispatch.join(table, hello_at(table, "back", token=tokens[0]))  # the player is back
    match = table.match
    assert match is not None and match.hand is not None
    step = match.hand.step
    referee.thought(think.turn, think.turn.bot.decide(think.turn.view), 2.0)
    assert match.hand.step == step  # the person plays this turn, not the bot
    assert referee.bot_at is None and table.bot_to_act() is None


def test_the_level_is_chosen_on_the_command_line_and_kept_by_resume(tmp_path: Path) -> None:
    args = build_parser().parse_args(["host", "--bot-level", "hard", "--bots", "1"])
    config = config_from_args(args)
    assert config.bot_level == "hard"
    assert build_parser().parse_args(["host"]).bot_level == "normal"
    assert build_parser().parse_args(["bot", "h:1", "--level", "easy"]).kind == "easy"
    table, journal = new_table(TableOptions(bots=1, bot_level="hard"), "T", 1, tmp_path)
    assert journal is not None
    journal.close()
    resumed, store, _ = resume_table(table.id, tmp_path)
    store.close()
    assert resumed.options.bot_level == "hard"


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["host", "--bot-level", "expert"])
    with pytest.raises(ValueError, match="unknown bot level"):
        Table("t", "T", TableOptions(bot_level="expert"), lambda key: shuffled_deck())


def test_pitchnet_play_hosts_at_the_level_asked_for() -> None:
    from client.main import options_from_args

    args = build_parser().parse_args(["play", "--bot-level", "hard", "--name", "Ann"])
    assert options_from_args(args).bot_level == "hard"


async def test_a_real_host_lets_a_hard_bot_think_in_a_worker_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A whole match against a hard bot on a real host: every one of its turns goes out
    as a `Think` and comes back through `Referee.thought`."""
    from tests.netclient import RawClient, play_as_bot, running_host

    async with running_host(players=2, bots=1, bot_level="hard") as server:
        thoughts: list[bool] = []
        real = server.referee.thought

        def counting(*args: Any) -> Any:
            thoughts.append(threading.current_thread() is threading.main_thread())
            return real(*args)

        monkeypatch.setattr(server.referee, "thought", counting)
        client = await RawClient.connect(server)
        await client.hello("Person")
        final = await play_as_bot(client, "normal")
        assert final.winner is not None
        assert len(thoughts) > 5 and all(thoughts)  # answers are applied on the loop's thread


def test_the_host_log_names_the_level_a_stand_in_plays_at(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Whoever runs the host can read there how well the bot standing in plays."""
    from host.tables import deck_source
    from tests.pair import RefereePair

    table = Table(
        "t1", "Test", TableOptions(players=2, grace=30.0, bot_level="easy"), deck_source(1)
    )
    pair = RefereePair(table)
    clients = [pair.join("Ann", "10.0.0.1:1"), pair.join("Bob", "10.0.0.2:1")]
    assert table.match is not None and table.match.turn is not None
    seat = table.match.turn
    pair.lose(clients[seat])
    with caplog.at_level(logging.INFO, logger="pitchnet.host"):
        pair.advance(30.1)
    assert table.seats[seat].substitute
    assert (
        f"seat {seat} is away past the grace period; a bot plays it at the table's level, easy"
        in caplog.text
    )
