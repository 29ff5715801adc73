"""Referee rules against floods, by injected time (issue 11, items 2 and 6)."""

from __future__ import annotations

import logging

import pytest

from host.limits import Limits
from host.referee import Abort, Opened, Received, Referee, Seated
from host.table import Table, TableOptions
from pitchnet.cards import shuffled_deck
from pitchnet.protocol import PROTOCOL_VERSION, Hello


def referee(**limits: float) -> Referee:
    table = Table("t1", "Test", TableOptions(players=2), deal_deck=lambda key: shuffled_deck())
    return Referee(table, Limits(**limits))  # type: ignore[arg-type]


def test_an_address_that_connects_past_its_burst_is_aborted_and_refills_with_time() -> None:
    ref = referee(connect_burst=3, connects_per_second=1.0)
    effects = [ref.handle(n, Opened(f"10.0.0.1:{5000 + n}"), 0.0) for n in range(4)]
    assert [any(isinstance(e, Abort) for e in batch) for batch in effects] == [
        False,
        False,
        False,
        True,
    ]
    assert not any(isinstance(e, Abort) for e in ref.handle(9, Opened("10.0.0.2:1"), 0.0))
    assert not any(isinstance(e, Abort) for e in ref.handle(10, Opened("10.0.0.1:9"), 1.0))


def test_ipv6_connections_count_per_64() -> None:
    ref = referee(max_per_address=2, connect_burst=100)
    a = ref.handle(1, Opened("2001:db8:0:1::1:40000"), 0.0)
    b = ref.handle(2, Opened("2001:db8:0:1::2:40000"), 0.0)
    c = ref.handle(3, Opened("2001:db8:0:1:ffff::3:40000"), 0.0)
    d = ref.handle(4, Opened("2001:db8:0:2::1:40000"), 0.0)
    aborted = [any(isinstance(e, Abort) for e in batch) for batch in (a, b, c, d)]
    assert aborted == [False, False, True, False]


def test_a_flood_of_refusals_logs_one_line_per_address_per_interval(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ref = referee(connect_burst=1, connects_per_second=0.001)
    with caplog.at_level(logging.WARNING, logger="pitchnet.host"):
        for n in range(1000):
            ref.handle(n, Opened(f"10.0.0.7:{n}"), n / 1000)  # one second of refusals
        ref.handle(5000, Opened("10.0.0.7:1"), 10.5)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    assert lines[1].endswith("(and 998 more refused from 10.0.0.7 since the last line)")


def test_the_welcome_tells_the_adapter_the_connection_is_seated() -> None:
    ref = referee()
    ref.handle(1, Opened("10.0.0.1:1"), 0.0)
    effects = ref.handle(1, Received([Hello(version=PROTOCOL_VERSION, name="Ann")]), 0.1)
    assert [e for e in effects if isinstance(e, Seated)] == [Seated(1)]
