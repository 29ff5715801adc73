"""The loop `pitchnet host` runs on (host/loop.py): uvloop where it is installed, asyncio's
own when told so, and the same whole match on either."""

from __future__ import annotations

import asyncio

import pytest

from host.loop import LOOP_VARIABLE, loop_factory, loop_name, run
from pitchnet.views import SeatView
from tests.netclient import RawClient, play_as_bot, running_host

uvloop = pytest.importorskip("uvloop", reason="uvloop has no build for this platform")


def test_the_host_runs_on_uvloop_unless_told_to_use_asyncio(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def which() -> type[asyncio.AbstractEventLoop]:
        return type(asyncio.get_running_loop())

    monkeypatch.delenv(LOOP_VARIABLE, raising=False)
    assert loop_factory() is uvloop.new_event_loop
    assert loop_name() == "uvloop"
    assert run(which()) is uvloop.Loop
    monkeypatch.setenv(LOOP_VARIABLE, "asyncio")
    assert loop_factory() is None
    assert loop_name() == "asyncio"
    assert not issubclass(run(which()), uvloop.Loop)


async def _whole_match() -> tuple[str, list[SeatView], int]:
    """Two people and two bots play a whole match over real sockets."""
    async with running_host(players=4, bots=2, seed=5) as server:
        people = [await RawClient.connect(server) for _ in range(2)]
        for number, client in enumerate(people):
            await client.hello(f"P{number}")
        finals = await asyncio.gather(*(play_as_bot(client) for client in people))
        for client in people:
            await client.close()
        return type(asyncio.get_running_loop()).__name__, list(finals), server.table.seq


def test_a_whole_match_is_the_same_on_either_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(LOOP_VARIABLE, raising=False)
    on_uvloop = run(_whole_match())
    monkeypatch.setenv(LOOP_VARIABLE, "asyncio")
    on_asyncio = run(_whole_match())
    assert (on_uvloop[0], on_asyncio[0]) == ("Loop", "_UnixSelectorEventLoop")
    for _, finals, actions in (on_uvloop, on_asyncio):
        assert [view.phase for view in finals] == ["match_over", "match_over"]
        assert finals[0].scores == finals[1].scores and actions > 20
    # The same seeded deck and the same bots: the same match, move for move.
    assert on_uvloop[1][0].scores == on_asyncio[1][0].scores
    assert on_uvloop[2] == on_asyncio[2]
