"""The zeroconf layer: adverts, browsing, and hostile TXT records.

The network tests run a real AsyncZeroconf bound to 127.0.0.1 only (never all interfaces), so
nothing leaves this machine. Other test processes may advertise tables on the same loopback at
the same time, so every assertion picks tables out by their table id, never by count. Waiting is
on the browser's change notifications with a deadline, never a bare sleep.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from client.discovery import (
    BadAdvert,
    FoundTable,
    TableBrowser,
    claimed_twice,
    find_table,
    pick_address,
    table_from_record,
    tables_from_advert,
)
from host.advertise import Advert, Advertiser, instance_label, server_name
from pitchnet.protocol import MAX_NAME, PROTOCOL_VERSION, SERVICE_TYPE
from pitchnet.rules import MAX_PLAYERS
from tests.fakes_zeroconf import FakeFactory
from tests.multicast import LOOPBACK
from tests.netclient import until_true
from tests.profiles import examples

DEADLINE = 15.0
"""Generous: mDNS probing plus announcement takes about 1-2 s; a slow CI box may take longer."""
_ids = iter(range(10**6))


def unique(prefix: str) -> str:
    """An id no concurrent test process will also use (pid), distinct within this one."""
    return f"{prefix}{os.getpid()}x{next(_ids)}"


def advert(table_id: str, name: str = "Kitchen table", **changes: Any) -> Advert:
    fields: dict[str, Any] = {"taken": 1, "seats": 4, "state": "lobby"} | changes
    return Advert(table_id=table_id, name=name, **fields)


def by_id(table_id: str) -> Callable[[list[FoundTable]], bool]:
    return lambda tables: any(t.table_id == table_id for t in tables)


def one(tables: list[FoundTable], table_id: str) -> FoundTable:
    [table] = [t for t in tables if t.table_id == table_id]
    return table


@pytest.fixture
async def closing() -> AsyncIterator[Callable[[Any], Any]]:
    """Register anything with an async close(); it is closed after the test whatever happens."""
    things: list[Any] = []
    try:

        def kept(thing: Any) -> Any:
            things.append(thing)
            return thing

        yield kept
    finally:
        for thing in reversed(things):
            await thing.close()


@pytest.fixture
async def raw_zeroconf(multicast: None) -> AsyncIterator[Any]:
    """A bare AsyncZeroconf on loopback, for publishing records our Advertiser never would."""
    from zeroconf.asyncio import AsyncZeroconf

    zc = AsyncZeroconf(interfaces=[LOOPBACK])
    try:
        yield zc
    finally:
        await zc.async_close()


# ---- real zeroconf on loopback ----------------------------------------------------------------


async def test_browser_sees_advert_then_update_then_removal(multicast: None, closing: Any) -> None:
    table_id = unique("life")
    lists: list[list[FoundTable]] = []
    browser = closing(TableBrowser(LOOPBACK, lists.append))
    await browser.start()
    host = closing(Advertiser(LOOPBACK, 40101))
    await host.start(advert(table_id, "Kitchen table", password=True))

    assert await browser.wait_until(by_id(table_id), DEADLINE)
    found = one(browser.tables, table_id)
    assert found == FoundTable(
        name="Kitchen table",
        table_id=table_id,
        host=LOOPBACK,
        port=40101,
        version=PROTOCOL_VERSION,
        taken=1,
        seats=4,
        state="lobby",
        password=True,
    )
    assert any(by_id(table_id)(tables) for tables in lists), "on_change saw it too"

    await host.update(advert(table_id, "Kitchen table", taken=3, password=True))
    assert await browser.wait_until(
        lambda ts: by_id(table_id)(ts) and one(ts, table_id).taken == 3, DEADLINE
    )
    assert one(lists[-1], table_id).taken == 3, "on_change got the live update"

    await host.close()
    assert await browser.wait_until(lambda ts: not by_id(table_id)(ts), DEADLINE)
    assert not by_id(table_id)(lists[-1])
    await host.close()  # idempotent


async def test_a_browser_keeps_asking_after_zeroconfs_own_questions(
    multicast: None, closing: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """zeroconf asks four times (0, 1, 4, 9 s) and then only refreshes what it knows: a
    finder opened while the Wi-Fi was down never found the table once it came back, until
    another program happened to ask. Here zeroconf's own questions never start (as after
    its ninth second), and the browser is seen asking for tables still, again and again.
    (Counted as sent rather than as a table found: other programs on this loopback may
    ask too, and any answer reaches every listener.)"""
    browser = closing(TableBrowser(LOOPBACK, ask_every=0.2))
    await browser.start()
    browser._browser._query_sender_task.cancel()  # zeroconf's own questions never start
    zeroconf = browser._zc.zeroconf
    asked: list[str] = []
    send = zeroconf.async_send

    def spy(out: Any, *args: Any, **kwargs: Any) -> Any:
        asked.extend(question.name for question in out.questions)
        return send(out, *args, **kwargs)

    monkeypatch.setattr(zeroconf, "async_send", spy)
    await until_true(lambda: asked.count(SERVICE_TYPE) >= 3, "three questions", DEADLINE, 0.05)


async def test_find_table_returns_the_right_one_of_two_with_one_name(
    multicast: None, closing: Any
) -> None:
    name = f"Twin {os.getpid()}"
    first, second = unique("twa"), unique("twb")
    host_a = closing(Advertiser(LOOPBACK, 40201))
    host_b = closing(Advertiser(LOOPBACK, 40202))
    await host_a.start(advert(first, name))
    await host_b.start(advert(second, name, taken=2))
    assert host_a.instance_name != host_b.instance_name, "zeroconf renamed the second one"

    found = await find_table(LOOPBACK, second, timeout=DEADLINE)
    assert found is not None
    assert (found.table_id, found.port, found.taken, found.name) == (second, 40202, 2, name)
    found = await find_table(LOOPBACK, first, timeout=DEADLINE)
    assert found is not None and found.port == 40201 and found.name == name


async def test_an_impostor_with_the_exact_instance_name_is_a_second_row_beside_the_table(
    multicast: None, raw_zeroconf: Any, closing: Any
) -> None:
    """Issue 11: an impostor registers the real table's exact instance name and id (no
    probing, so zeroconf does not rename it) pointing at itself. The finder keeps the
    real table and shows the impostor as a second row, and the two are a conflict."""
    from zeroconf.asyncio import AsyncServiceInfo

    table_id = unique("real")
    browser = closing(TableBrowser(LOOPBACK))
    await browser.start()
    host = closing(Advertiser(LOOPBACK, 40501))
    await host.start(advert(table_id, f"Kitchen {os.getpid()}"))
    assert await browser.wait_until(by_id(table_id), DEADLINE)
    copy = AsyncServiceInfo(
        SERVICE_TYPE,
        host.instance_name,
        port=40502,
        properties=advert(table_id, f"Kitchen {os.getpid()}").txt(),
        server=f"impostor-{table_id}.local.",
        parsed_addresses=[LOOPBACK],
    )
    await raw_zeroconf.async_register_service(copy, cooperating_responders=True)

    def both(tables: list[FoundTable]) -> bool:
        return {t.port for t in tables if t.table_id == table_id} == {40501, 40502}

    assert await browser.wait_until(both, DEADLINE), browser.tables
    assert {t.port for t in claimed_twice(browser.tables)[table_id]} == {40501, 40502}
    # A reconnecting client that met the impostor asks for the table without it.
    found = await find_table(LOOPBACK, table_id, DEADLINE, avoid={(LOOPBACK, 40502)})
    assert found is not None and found.port == 40501
    await raw_zeroconf.async_unregister_service(copy)


def test_one_instance_name_claimed_at_two_addresses_is_two_tables_and_a_conflict() -> None:
    txt = {k.encode(): v.encode() for k, v in advert("t1", "Kitchen").txt().items()}
    claims = [(7373, ["10.0.0.5"]), (7373, ["10.0.0.9"]), (7373, ["10.0.0.5"]), (None, ["x"])]
    tables = tables_from_advert(f"Kitchen.{SERVICE_TYPE}", txt, claims)
    assert [(t.host, t.port) for t in tables] == [("10.0.0.5", 7373), ("10.0.0.9", 7373)]
    assert list(claimed_twice(tables)) == ["t1"]
    other = table_from_record("Den", {**txt, b"id": b"t2"}, 7373, ["10.0.0.7"])
    assert list(claimed_twice([tables[0], other])) == []  # one claimant each: no conflict
    with pytest.raises(BadAdvert):
        tables_from_advert("x", txt, [(None, ["10.0.0.5"])])


async def test_find_table_gives_none_for_an_unknown_id(multicast: None) -> None:
    assert await find_table(LOOPBACK, unique("nobody"), timeout=1.0) is None


async def test_malformed_adverts_are_skipped_and_a_valid_one_still_found(
    multicast: None, raw_zeroconf: Any, closing: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from zeroconf.asyncio import AsyncServiceInfo

    caplog.set_level(logging.WARNING, logger="client.discovery")
    tag = unique("m")
    good = {"v": "1", "taken": "1", "seats": "4", "state": "lobby", "pw": "0"}
    bad: dict[str, bytes | dict[str, Any] | dict[bytes, bytes]] = {
        "garbage": b"\x07v=\xff\xfe\x01\x03id=\x00\x10taken\x99",  # lengths overrun the record
        "badutf": {
            b"v": b"1",
            b"id": b"\xff\xfe\xfd",
            b"taken": b"1",
            b"seats": b"4",
            b"state": b"lobby",
        },
        "nonnumeric": good | {"id": tag + "n", "taken": "three"},
        "huge": good | {"id": tag + "h", "seats": "9" * 200},
        "missing": {"v": "1", "name": "No id here"},
        "badstate": good | {"id": tag + "s", "state": "\x1b[31mpwned"},
    }
    # Odd but usable values are cleaned and clamped rather than refused.
    clamped = good | {
        "id": tag + "c",
        "taken": "9999",
        "seats": "99",
        "name": "\x1b[2JEvil\u202e name\x00 that goes on and on and on",
    }
    infos = [
        AsyncServiceInfo(
            SERVICE_TYPE,
            f"{label} {tag}.{SERVICE_TYPE}",
            port=40301,
            properties=properties,
            server=f"bad-{tag}.local.",
            parsed_addresses=[LOOPBACK],
        )
        for label, properties in [*bad.items(), ("clamped", clamped)]
    ]
    await asyncio.gather(*(raw_zeroconf.async_register_service(info) for info in infos))
    published = [info.name for info in infos[:-1]]

    browser = closing(TableBrowser(LOOPBACK))
    await browser.start()
    valid_id = unique("ok")
    host = closing(Advertiser(LOOPBACK, 40303))
    await host.start(advert(valid_id, "Fine table"))

    def settled() -> bool:
        return (
            by_id(valid_id)(browser.tables)
            and by_id(tag + "c")(browser.tables)
            and all(name in browser.rejected for name in published)
        )

    assert await browser.wait_for(settled, DEADLINE), (browser.tables, browser.rejected)
    assert one(browser.tables, valid_id).name == "Fine table"
    weird = one(browser.tables, tag + "c")
    assert (weird.seats, weird.taken) == (MAX_PLAYERS, MAX_PLAYERS)
    assert weird.name == "[2JEvil name that goes o" and len(weird.name) <= 24
    assert not any(t.table_id.startswith(tag) and t.table_id != tag + "c" for t in browser.tables)
    logged = " ".join(r.getMessage() for r in caplog.records)
    for name in published:
        assert repr(name) in logged, f"no log line for {name}"


# ---- the Advertiser against a fake zeroconf ---------------------------------------------------


async def test_update_reregisters_only_when_the_txt_changes() -> None:
    factory = FakeFactory()
    host = Advertiser("10.9.8.7", 7373, zeroconf_factory=factory)
    await host.start(advert("abc", "Den"))
    [zc] = factory.made
    assert zc.interface == "10.9.8.7"
    [(_, info)] = zc.calls
    assert info.name == f"Den.{SERVICE_TYPE}" and info.port == 7373
    assert info.parsed_addresses() == ["10.9.8.7"] and info.server == server_name("abc")
    assert info.decoded_properties == {
        "v": str(PROTOCOL_VERSION),
        "id": "abc",
        "name": "Den",
        "taken": "1",
        "seats": "4",
        "state": "lobby",
        "pw": "0",
        "open": "0",
        "born": "0",
        "target": "7",
        "rules": "",
        "bots": "",
        "timer": "0",
    }
    await host.update(advert("abc", "Den"))
    assert zc.methods() == ["register"]
    await host.update(advert("abc", "Den", taken=2))
    assert zc.methods() == ["register", "update"]
    assert zc.calls[-1][1].decoded_properties["taken"] == "2"
    await host.close()
    await host.close()
    assert zc.methods() == ["register", "update", "unregister", "close"]


async def test_advertiser_failures_never_reach_the_host() -> None:
    for fail in [("create",), ("register",), ("update",), ("unregister", "close")]:
        factory = FakeFactory(fail)
        host = Advertiser(LOOPBACK, 7373, zeroconf_factory=factory)
        await host.start(advert("abc"))
        await host.update(advert("abc", taken=3))
        await host.close()
        assert all(zc.closed == 1 for zc in factory.made), fail


async def test_interface_defaults_to_pitchnet_interface_so_tests_stay_on_loopback() -> None:
    factory = FakeFactory()
    host = Advertiser(None, 7373, zeroconf_factory=factory)
    await host.start(advert("abc"))
    await host.close()
    assert factory.made[0].interface == LOOPBACK  # conftest sets PITCHNET_INTERFACE


# ---- pure helpers: names, addresses, TXT parsing ----------------------------------------------


def test_instance_label_is_a_valid_dns_sd_label() -> None:
    # raises BadTypeInNameException on a bad label; exported, but not in zeroconf's __all__
    from zeroconf import service_type_name  # type: ignore[attr-defined]

    for name in ["Kitchen", "a.b.c", "\x00\x1b[31m", "", "ü" * 24, "🂡" * 24, " x " * 30]:
        label = instance_label(name)
        assert label and "." not in label and len(label.encode()) <= 56
        assert service_type_name(f"{label}-99.{SERVICE_TYPE}") == SERVICE_TYPE


def test_pick_address_prefers_the_interface_then_its_subnet_then_ipv4() -> None:
    addrs = ["fd00::5", "10.0.0.5", "192.168.1.20", "fe80::1"]
    assert pick_address(addrs, "192.168.1.20") == "192.168.1.20"
    assert pick_address(addrs, "192.168.1.3") == "192.168.1.20"
    assert pick_address(addrs, None) == "10.0.0.5"
    assert pick_address(["fe80::1", "fd00::5"], None) == "fd00::5"
    assert pick_address(["127.0.0.1", "10.0.0.5"], None) == "10.0.0.5"
    with pytest.raises(BadAdvert):
        pick_address(["fe80::1", "not an ip", "224.0.0.251", "::"], None)


def test_an_advertised_name_keeps_printable_text_only() -> None:
    properties = {b"v": b"1", b"id": b"abc", b"taken": b"1", b"seats": b"4", b"state": b"lobby"}
    dirty = "\x1b[31mRed\x07 \u200bTable\t\n".encode()
    table = table_from_record("x", {**properties, b"name": dirty}, 7373, ["127.0.0.1"], None)
    assert table.name == "[31mRed Table"
    long = table_from_record("x", {**properties, b"name": b"x" * 100}, 7373, ["127.0.0.1"], None)
    assert long.name == "x" * MAX_NAME


TXT_KEYS = st.sampled_from([b"v", b"id", b"name", b"taken", b"seats", b"state", b"pw", b"V", b"x"])
TXT_VALUES = st.one_of(
    st.none(),
    st.binary(max_size=40),
    st.sampled_from([b"1", b"4", b"0", b"lobby", b"over", b"abc", b"99999", b"-1", b"\xd9\xa3"]),
)


@settings(derandomize=True, max_examples=examples(500), deadline=None)
@given(
    properties=st.dictionaries(st.one_of(TXT_KEYS, st.binary(max_size=12)), TXT_VALUES),
    port=st.one_of(st.none(), st.integers(-5, 70000)),
    addresses=st.lists(st.sampled_from(["127.0.0.1", "fe80::1", "x", "10.1.2.3", "::"])),
    instance=st.text(max_size=80),
)
def test_any_record_gives_a_bounded_table_or_bad_advert(
    properties: dict[bytes, bytes | None], port: int | None, addresses: list[str], instance: str
) -> None:
    try:
        table = table_from_record(instance, properties, port, addresses, LOOPBACK)
    except BadAdvert:
        return
    assert 0 <= table.taken <= table.seats <= MAX_PLAYERS
    assert 0 < table.port < 65536 and table.state in ("lobby", "playing", "over")
    assert 0 < len(table.name) <= 24 and table.name.isprintable()
    assert table.host in addresses and 0 <= table.version <= 9999


async def test_a_browser_that_cannot_start_leaves_nothing_open() -> None:
    factory = FakeFactory()  # a fake has no `.zeroconf` engine, so the browser cannot attach
    browser = TableBrowser(LOOPBACK, zeroconf_factory=factory)
    with pytest.raises(AttributeError):
        await browser.start()
    assert factory.made[0].closed == 1
    assert not await browser.wait_until(lambda tables: bool(tables), 1.0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux socket options")
async def test_with_an_interface_the_wildcard_listener_hears_only_that_device(
    multicast: None,
) -> None:
    """python-zeroconf binds its listener to the unspecified address, port 5353, whatever
    interface it is given; pitchnet ties it to the interface's device and to its own
    multicast groups, so a question sent to another of this machine's addresses is never
    heard (tests/lan/test_mdns_listener.py asks from another namespace)."""
    import ipaddress
    import socket

    from pitchnet.network import IP_MULTICAST_ALL, default_zeroconf

    zc = default_zeroconf(LOOPBACK)
    try:
        listener = zc.zeroconf.engine._listen_socket
        address, port = listener.getsockname()
        assert ipaddress.ip_address(address).is_unspecified and port == 5353
        device = listener.getsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, 16)
        assert device.rstrip(b"\0") == b"lo"
        assert listener.getsockopt(socket.IPPROTO_IP, IP_MULTICAST_ALL) == 0
    finally:
        await zc.async_close()
