"""The per-address limits of host/limits.py, by injected time (issue 11, items 2 and 6)."""

from __future__ import annotations

from host.limits import Arrivals, RefusalLog, address_key


def test_ipv6_addresses_count_per_64_and_mapped_ipv4_as_ipv4() -> None:
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:ffff::9")
    assert address_key("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:192.0.2.7") == "192.0.2.7"
    assert address_key("fe80::1%eth0") == "fe80::/64"
    assert address_key("192.0.2.7") == "192.0.2.7"
    assert address_key("?") == "?"


def test_arrivals_refuse_an_address_past_its_burst_and_refill_with_time() -> None:
    arrivals = Arrivals(rate=2.0, burst=3)
    assert [arrivals.allow("a", 100.0) for _ in range(4)] == [True, True, True, False]
    assert arrivals.allow("b", 100.0)  # another address has its own bucket
    assert arrivals.allow("a", 100.5) and not arrivals.allow("a", 100.5)


def test_arrivals_hold_a_bounded_number_of_addresses() -> None:
    arrivals = Arrivals(rate=1.0, burst=2, max_addresses=8)
    for n in range(100):
        arrivals.allow(f"10.0.0.{n}", 100.0 + n / 1000)
    assert len(arrivals._buckets) <= 8


def test_refusals_are_logged_once_per_address_per_interval_with_a_count() -> None:
    log = RefusalLog(interval=10.0)
    lines = [log.line("a", "refused a", 100.0 + n / 100) for n in range(100)]
    assert lines[0] == "refused a" and lines[1:] == [None] * 99
    assert log.line("b", "refused b", 101.0) == "refused b"
    assert log.line("a", "refused a", 110.0) == (
        "refused a (and 99 more refused from a since the last line)"
    )
