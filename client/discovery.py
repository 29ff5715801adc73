"""Finding tables on the LAN with zeroconf, treating every advert as untrusted input.

Anyone on a party LAN can publish a `_pitchnet._tcp` service, so each TXT value is decoded
defensively: bytes that are not UTF-8 are replaced, integers must be short decimals and are
clamped, names are reduced to 24 printable characters, and a record that still makes no sense is
skipped with one log line. Nothing from the wire may raise out of this module: a broken advert
costs its own row in the finder, never the client.

Questions are sent as QM (multicast answers). A QU question is often answered by unicast to
port 5353, and when several mDNS stacks share that port on one machine (a host and a client on
the same laptop, or Avahi beside us) the kernel hands the datagram to just one of them.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import itertools
import logging
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pitchnet.bots import LEVELS
from pitchnet.house_rules import RulesConfigError, parse_short
from pitchnet.house_rules import label as rules_label
from pitchnet.network import ZeroconfFactory, default_zeroconf, effective_interface
from pitchnet.protocol import MAX_NAME, SERVICE_TYPE, TABLE_STATES, TableState
from pitchnet.rules import MAX_PLAYERS
from pitchnet.text import printable

log = logging.getLogger(__name__)

RESOLVE_MS = 3000
"""How long one resolve of a service (SRV, TXT, A) may take before it is given up."""
MAX_TABLES = 256
MAX_RESOLVING = 64
MAX_CLAIMS = 8
"""Bounds on what a LAN peer flooding us with adverts can make us hold or do at once."""
ASK_EVERY = 5.0
"""Seconds between the questions a running browser sends after zeroconf's own four (at
0, 1, 4 and 9 s it asks, then only refreshes what it already knows): a finder opened
while the Wi-Fi was down, or a table whose records lapsed during a long cut, was found
only when some other program happened to ask (27 s and more after the network came
back on the LAN game night). One small packet per window, with the known answers that
keep tables already listed from answering again."""
CLAIM_HOLD = 120.0
"""Seconds an address seen for an instance name stays listed after its records vanish
(zeroconf's SRV lifetime), unless the service says goodbye."""
_SHORT_INT = re.compile(r"[0-9]{1,4}")
_TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class BadAdvert(ValueError):
    """A TXT record or service that cannot describe a usable table."""


@dataclass(frozen=True)
class FoundTable:
    """One table as its advert describes it; every field is already cleaned and bounded."""

    name: str
    table_id: str
    host: str
    port: int
    version: int
    taken: int
    seats: int
    state: str
    password: bool
    open: int = 0
    """Seats a newcomer can take now or at the next hand."""
    born: int = 0
    """When the table opened (Unix ms; 0 if its host does not say)."""

    @property
    def joinable(self) -> bool:
        """`pitchnet play` offers it: its lobby has a free seat, or a bot plays a seat."""
        return self.open > 0

    target: int = 7
    rules: str = ""
    """The advert's house rules (`HouseRules.short()`), as sent: "" for the rule book."""
    bot_level: str = ""
    """How well the table's bots play (one of `LEVELS`); "" if its host does not say."""
    turn_timer: int = 0
    """Seconds a person has to move before a bot moves for them once (0: no timer)."""

    @property
    def rules_label(self) -> str:
        """ "joker, to 10", "standard, to 7"; the raw text if this client does not know it."""
        try:
            return rules_label(parse_short(self.rules), self.target)
        except RulesConfigError:
            return f"{self.rules}, to {self.target}"


def table_from_record(
    instance: str,
    properties: Mapping[bytes, bytes | None],
    port: int | None,
    addresses: Sequence[str],
    interface: str | None = None,
) -> FoundTable:
    """Build a FoundTable from raw service data, or raise BadAdvert saying what is wrong."""
    txt = _decode_txt(properties)
    for key in ("v", "id", "taken", "seats", "state"):
        if key not in txt:
            raise BadAdvert(f"TXT key {key!r} is missing")
    table_id = txt["id"]
    if not _TABLE_ID.fullmatch(table_id):
        raise BadAdvert("table id is not 1-64 letters, digits, '-' or '_'")
    if txt["state"] not in TABLE_STATES:
        raise BadAdvert(f"state {txt['state'][:20]!r} is not one of {TABLE_STATES}")
    if not isinstance(port, int) or not 0 < port < 65536:
        raise BadAdvert(f"port {port!r} is out of range")
    seats = min(_short_int(txt, "seats"), MAX_PLAYERS)
    label = instance.removesuffix(SERVICE_TYPE).removesuffix(".")
    return FoundTable(
        name=printable(txt.get("name", ""), MAX_NAME) or printable(label, MAX_NAME) or table_id,
        table_id=table_id,
        host=pick_address(addresses, interface),
        port=port,
        version=_short_int(txt, "v"),
        taken=min(_short_int(txt, "taken"), seats),
        seats=seats,
        state=txt["state"],
        password=txt.get("pw") == "1",
        open=_open_seats(txt, seats),
        born=_born(txt),
        target=_short_int(txt, "target") if "target" in txt else 7,
        rules=printable(txt.get("rules", ""), 120),
        bot_level=txt["bots"] if txt.get("bots") in LEVELS else "",
        turn_timer=min(_short_int(txt, "timer"), 3600) if "timer" in txt else 0,
    )


def tables_from_advert(
    instance: str,
    properties: Mapping[bytes, bytes | None],
    claims: Sequence[tuple[int | None, Sequence[str]]],
    interface: str | None = None,
) -> list[FoundTable]:
    """Every table one instance name stands for: one per distinct address among `claims`
    (each SRV record seen for the name: its port and its target's addresses). Two
    responders can answer for one exact instance name (an impostor copying a table's
    advert); each gets its own row, so the real table cannot vanish behind the other.
    Claims that make no usable table are dropped; raises BadAdvert if none is left."""
    tables: dict[tuple[str, int], FoundTable] = {}
    problem: BadAdvert | None = None
    for port, addresses in claims:
        try:
            table = table_from_record(instance, properties, port, addresses, interface)
        except BadAdvert as exc:
            problem = exc
            continue
        tables.setdefault((table.host, table.port), table)
    if not tables:
        raise problem or BadAdvert("no usable address")
    return list(tables.values())


def claimed_twice(tables: Sequence[FoundTable]) -> dict[str, list[FoundTable]]:
    """Table ids that more than one address claims, each with its claimants: at most one
    is the real table (the id is public, anyone can copy the advert), so the finder shows
    them as a conflict and `pitchnet play` joins none of them on its own."""
    by_id: dict[str, dict[tuple[str, int], FoundTable]] = {}
    for table in tables:
        by_id.setdefault(table.table_id, {}).setdefault((table.host, table.port), table)
    return {key: list(found.values()) for key, found in by_id.items() if len(found) > 1}


def _open_seats(txt: dict[str, str], seats: int) -> int:
    """The advert's open seats; a host too old to say has the lobby's empty seats."""
    if _SHORT_INT.fullmatch(txt.get("open", "")):
        return min(int(txt["open"]), seats)
    if txt["state"] != TableState.LOBBY:
        return 0
    return max(0, seats - min(_short_int(txt, "taken"), seats))


def _born(txt: dict[str, str]) -> int:
    text = txt.get("born", "")
    return int(text) if re.fullmatch(r"[0-9]{1,15}", text) else 0


def pick_address(addresses: Sequence[str], interface: str | None) -> str:
    """The address to dial: the interface's own or one on its subnet first, then IPv4."""
    usable = []
    for text in addresses:
        try:
            ip = ipaddress.ip_address(text)
        except ValueError:
            continue
        if not (ip.is_multicast or ip.is_unspecified or (ip.version == 6 and ip.is_link_local)):
            usable.append(ip)  # IPv6 link-local needs a scope id we do not have
    if not usable:
        raise BadAdvert("no usable address")
    network = _interface_network(interface) if interface else None

    def rank(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> tuple[int, ...]:
        return (
            0 if interface and str(ip) == interface else 1,
            0 if network is not None and ip in network else 1,
            0 if ip.version == 4 else 1,
            1 if ip.is_loopback and not interface else 0,
        )

    return str(min(usable, key=rank))


class TableBrowser:
    """Keeps `tables` current while running and calls `on_change` with every new list."""

    def __init__(
        self,
        interface: str | None,
        on_change: Callable[[list[FoundTable]], None] | None = None,
        *,
        zeroconf_factory: ZeroconfFactory | None = None,
        ask_every: float = ASK_EVERY,
    ) -> None:
        self.interface = effective_interface(interface)
        self.on_change = on_change
        self.ask_every = ask_every
        self._factory = zeroconf_factory or default_zeroconf
        self._zc: Any = None
        self._browser: Any = None
        self._found: dict[str, dict[tuple[str, int], FoundTable]] = {}
        """Instance name -> its tables by address (two responders can share one name)."""
        self._seen: dict[str, dict[tuple[str, int], float]] = {}
        """Instance name -> when each of its addresses was last seen (loop time)."""
        self._generation: dict[str, int] = {}
        self._counter = itertools.count()
        self._tasks: set[asyncio.Task[None]] = set()
        self._waiters: set[asyncio.Future[None]] = set()
        self.rejected: dict[str, str] = {}
        """Adverts skipped as malformed: instance name -> why (for a message in the finder)."""
        self._closed = False

    @property
    def tables(self) -> list[FoundTable]:
        found = [table for by_address in self._found.values() for table in by_address.values()]
        return sorted(found, key=lambda t: (t.name.casefold(), t.table_id, t.host, t.port))

    async def start(self) -> None:
        """Open the zeroconf sockets and browse `_pitchnet._tcp.local.`.

        An OSError here (no usable interface, port 5353 unavailable) is raised for the caller to
        show ("type host:port instead"); nothing is left open behind it.
        """
        from zeroconf import DNSQuestionType
        from zeroconf.asyncio import AsyncServiceBrowser

        try:
            self._zc = self._factory(self.interface)
            self._browser = AsyncServiceBrowser(
                self._zc.zeroconf,
                SERVICE_TYPE,
                handlers=[self._on_service],
                question_type=DNSQuestionType.QM,
            )
        except BaseException:
            await self.close()
            raise
        asking = asyncio.get_running_loop().create_task(self._keep_asking())
        self._tasks.add(asking)
        asking.add_done_callback(self._tasks.discard)

    async def _keep_asking(self) -> None:
        """Ask for tables every `ask_every` seconds for as long as this browser runs."""
        from zeroconf import current_time_millis

        while not self._closed:
            await asyncio.sleep(self.ask_every)
            try:
                self._browser.query_scheduler.async_send_ready_queries(
                    False, current_time_millis(), {SERVICE_TYPE}
                )
            except Exception as exc:  # a socket gone with the network: ask again later
                log.debug("zeroconf question not sent: %r", exc)

    async def close(self) -> None:
        """Stop browsing and close the sockets; idempotent and never raises."""
        if self._closed:
            return
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        try:
            if self._browser is not None:
                await self._browser.async_cancel()
        except Exception as exc:
            log.warning("zeroconf browser cancel: %r", exc)
        try:
            if self._zc is not None:
                await asyncio.wait_for(self._zc.async_close(), 3.0)
        except Exception as exc:
            log.warning("zeroconf close: %r", exc)
        self._wake()

    async def __aenter__(self) -> TableBrowser:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def wait_until(
        self, predicate: Callable[[list[FoundTable]], bool], timeout: float
    ) -> bool:
        """Wait until predicate(tables) holds, woken by every change; False at the deadline."""
        return await self.wait_for(lambda: predicate(self.tables), timeout)

    async def wait_for(self, condition: Callable[[], bool], timeout: float) -> bool:
        """Wait until condition() holds, rechecked on every change or rejection."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not condition():
            remaining = deadline - loop.time()
            if remaining <= 0 or self._closed:
                return False
            waiter = loop.create_future()
            self._waiters.add(waiter)
            try:
                await asyncio.wait_for(waiter, remaining)
            except TimeoutError:
                pass
            finally:
                self._waiters.discard(waiter)
        return True

    def _on_service(self, zeroconf: Any, service_type: str, name: str, state_change: Any) -> None:
        """zeroconf's handler (called in the event loop): resolve adds/updates, drop removals."""
        from zeroconf import ServiceStateChange

        if self._closed:
            return
        if state_change is ServiceStateChange.Removed:
            self._generation.pop(name, None)  # a resolve still running for it is now stale
            self._seen.pop(name, None)
            if self._found.pop(name, None) is not None:
                self._notify()
            return
        held = sum(len(by_address) for by_address in self._found.values())
        full = held >= MAX_TABLES and name not in self._found
        if full or len(self._tasks) >= MAX_RESOLVING:
            log.debug("too many adverts; not resolving %r", name[:100])
            return
        gen = self._generation[name] = next(self._counter)
        task = asyncio.get_running_loop().create_task(self._resolve(name, gen))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _resolve(self, name: str, gen: int) -> None:
        from zeroconf import DNSQuestionType
        from zeroconf.asyncio import AsyncServiceInfo

        try:
            info = AsyncServiceInfo(SERVICE_TYPE, name)
            ok = await info.async_request(self._zc.zeroconf, RESOLVE_MS, DNSQuestionType.QM)
            if self._generation.get(name) != gen or self._closed:
                return  # a newer event for this name owns the outcome
            if not ok:
                log.debug("could not resolve %r in time", name)
                return
            claims = [(info.port, info.parsed_addresses()), *self._other_claims(name)]
            tables = tables_from_advert(name, info.properties, claims, self.interface)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # BadAdvert, or anything else hostile data provokes
            self._reject(name, exc)
            return
        self.rejected.pop(name, None)
        by_address = self._held(name, {(t.host, t.port): t for t in tables})
        if self._found.get(name) != by_address:
            self._found[name] = by_address
            self._notify()

    def _held(
        self, name: str, now_seen: dict[tuple[str, int], FoundTable]
    ) -> dict[tuple[str, int], FoundTable]:
        """The rows of `name`: those just seen, and those seen within CLAIM_HOLD. A second
        responder's cache-flush announcement makes zeroconf drop the first one's records
        for a moment; holding them keeps the real table in the finder beside an impostor
        that copies its exact name (a table that says goodbye goes at once)."""
        now = asyncio.get_running_loop().time()
        seen = self._seen.setdefault(name, {})
        for key in now_seen:
            seen[key] = now
        old = self._found.get(name, {})
        kept = {k: t for k, t in old.items() if k not in now_seen and now - seen[k] < CLAIM_HOLD}
        for key in [k for k in seen if k not in now_seen and k not in kept]:
            del seen[key]
        return {**kept, **now_seen}

    def _other_claims(self, name: str) -> list[tuple[int, list[str]]]:
        """Every SRV record zeroconf holds for `name` (a resolve reports just one): its
        port and its target's addresses, so a second responder claiming the same exact
        name shows as a row of its own instead of replacing the first."""
        from zeroconf import current_time_millis
        from zeroconf.const import _CLASS_IN, _TYPE_A, _TYPE_AAAA, _TYPE_SRV

        cache, now = self._zc.zeroconf.cache, current_time_millis()
        claims = []
        for srv in cache.async_all_by_details(name, _TYPE_SRV, _CLASS_IN)[:MAX_CLAIMS]:
            if srv.is_expired(now):
                continue
            addresses = []
            for kind in (_TYPE_A, _TYPE_AAAA):
                for record in cache.async_all_by_details(srv.server, kind, _CLASS_IN):
                    if not record.is_expired(now) and len(record.address) in (4, 16):
                        addresses.append(str(ipaddress.ip_address(record.address)))
            claims.append((srv.port, addresses))
        return claims

    def _reject(self, name: str, exc: Exception) -> None:
        """Skip a malformed advert, logging each distinct problem once (a flood stays quiet)."""
        reason = str(exc)[:200]
        level = logging.DEBUG if self.rejected.get(name) == reason else logging.WARNING
        if len(self.rejected) >= MAX_TABLES:
            self.rejected.clear()
        self.rejected[name] = reason
        log.log(level, "ignoring malformed pitchnet advert %r: %s", name[:100], reason)
        self._seen.pop(name, None)
        if self._found.pop(name, None) is not None:
            self._notify()
        else:
            self._wake()

    def _notify(self) -> None:
        self._wake()
        if self.on_change is None:
            return
        try:
            self.on_change(self.tables)
        except Exception:
            log.exception("table list listener failed")

    def _wake(self) -> None:
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)


async def find_table(
    interface: str | None,
    table_id: str,
    timeout: float,
    *,
    zeroconf_factory: ZeroconfFactory | None = None,
    avoid: Collection[tuple[str, int]] = (),
) -> FoundTable | None:
    """The table with this id, as soon as it is seen (at an address not in `avoid`: ones
    that could not prove they are it), or None at the timeout."""
    async with TableBrowser(interface, zeroconf_factory=zeroconf_factory) as browser:

        def candidates(tables: list[FoundTable]) -> list[FoundTable]:
            return [t for t in tables if t.table_id == table_id and (t.host, t.port) not in avoid]

        if await browser.wait_until(lambda tables: bool(candidates(tables)), timeout):
            return candidates(browser.tables)[0]
        return None


def _decode_txt(properties: Mapping[bytes, bytes | None]) -> dict[str, str]:
    """Lower-case ASCII keys, UTF-8 values with bad bytes replaced; odd keys are dropped."""
    txt: dict[str, str] = {}
    for key, value in properties.items():
        if not isinstance(key, bytes) or len(key) > 9 or not key.isascii():
            continue
        if isinstance(value, bytes):
            txt.setdefault(key.decode().lower(), value.decode("utf-8", "replace"))
    return txt


def _short_int(txt: dict[str, str], key: str) -> int:
    """A decimal of at most four digits; anything longer or non-numeric is a bad advert."""
    if not _SHORT_INT.fullmatch(txt[key]):
        raise BadAdvert(f"{key} {txt[key][:20]!r} is not a small number")
    return int(txt[key])


@functools.lru_cache(maxsize=16)
def _interface_network(
    interface: str,
) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """The subnet of the interface address (from the OS), else a /24 (IPv4) or /64 guess."""
    try:
        import ifaddr  # zeroconf's own dependency for the same job

        for adapter in ifaddr.get_adapters():
            for ip in adapter.ips:
                if ip.is_IPv4 and ip.ip == interface:
                    return ipaddress.ip_network(f"{interface}/{ip.network_prefix}", strict=False)
    except (ImportError, OSError, ValueError):
        pass
    try:
        prefix = 64 if ":" in interface else 24
        return ipaddress.ip_network(f"{interface}/{prefix}", strict=False)
    except ValueError:
        return None


async def locate(
    interface: str | None,
    table_id: str,
    timeout: float = 1.5,
    *,
    avoid: Collection[tuple[str, int]] = (),
) -> tuple[str, int] | None:
    """Where the table with this id is now (a host resumed elsewhere has a new address),
    never one of `avoid` (addresses that took our proof and could not prove our seat)."""
    found = await find_table(interface, table_id, timeout, avoid=avoid)
    return (found.host, found.port) if found is not None else None
