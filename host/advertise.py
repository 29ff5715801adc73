"""zeroconf advertisement of one table, so players on the LAN find it without typing an address.

The host registers `<table name>._pitchnet._tcp.local.` with a TXT record saying what a finder
needs before connecting (protocol version, table id, seats taken/total, lobby/playing/over,
password or not) and refreshes it as the table changes. Advertising is a convenience, never a
requirement: players can always type host:port, so a zeroconf failure is logged and the host
keeps running. The zeroconf instance is made by a factory so tests can inject a fake, and it is
bound to the host's interface so nothing is announced on networks the host does not serve.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from pitchnet import network
from pitchnet.network import ZeroconfFactory, effective_interface
from pitchnet.protocol import MAX_NAME, PROTOCOL_VERSION, SERVICE_TYPE
from pitchnet.text import printable

log = logging.getLogger(__name__)

INSTANCE_LABEL_BYTES = 56
"""A DNS label holds 63 bytes; keep room for the "-NN" zeroconf appends on a name clash."""
CLOSE_TIMEOUT = 3.0
"""Longest wait for the goodbye packets and socket teardown at shutdown."""


@dataclass(frozen=True)
class Advert:
    """What the TXT record says about a table; equal adverts mean an identical TXT record."""

    table_id: str
    name: str
    taken: int
    seats: int
    state: str  # lobby / playing / over
    password: bool = False
    version: int = PROTOCOL_VERSION
    open: int = 0
    """Seats a newcomer can take: empty ones in the lobby, bot-played ones in a match."""
    born: int = 0
    """When the table was opened (Unix milliseconds): of two tables opened at the same
    moment, the younger one's creator moves to the older one (`pitchnet play`)."""
    target: int = 7
    rules: str = ""
    """The house rules that differ from the defaults, short (`HouseRules.short()`)."""
    bots: str = ""
    """How well the table's bots play (`easy`, `normal`, `hard`)."""
    timer: int = 0
    """The turn timer in seconds (0: none)."""

    def txt(self) -> dict[str, str]:
        """The TXT keys documented in PROTOCOL.md; every entry stays far below 255 bytes
        (the longest `rules`, every option changed, is under 110)."""
        return {
            "v": str(self.version),
            "id": self.table_id[:64],
            "name": printable(self.name, MAX_NAME),
            "taken": str(self.taken),
            "seats": str(self.seats),
            "state": self.state,
            "pw": "1" if self.password else "0",
            "open": str(self.open),
            "born": str(self.born),
            "target": str(self.target),
            "rules": self.rules,
            "bots": self.bots,
            "timer": str(self.timer),
        }


def instance_label(name: str) -> str:
    """The table name as a DNS-SD instance label: printable, no dots, at most 56 UTF-8 bytes."""
    label = " ".join(printable(name[:INSTANCE_LABEL_BYTES]).replace(".", " ").split())
    while len(label.encode()) > INSTANCE_LABEL_BYTES:
        label = label[:-1]
    return label.strip() or "pitchnet table"


def server_name(table_id: str) -> str:
    """The A-record host name, derived from the table id so two tables on one machine differ."""
    slug = re.sub(r"[^a-z0-9-]+", "-", table_id.lower()).strip("-")[:40] or "table"
    return f"pitchnet-{slug}.local."


def host_addresses(interface: str | None) -> list[str]:
    """Addresses to put in the A records: the bound interface, else every non-loopback IPv4."""
    if interface:
        return [interface]
    from zeroconf import get_all_addresses  # type: ignore[attr-defined]  # public, not in __all__

    found = sorted(get_all_addresses())
    outside = [a for a in found if not ipaddress.ip_address(a).is_loopback]
    return outside or found


class Advertiser:
    """Registers, refreshes and withdraws one table's zeroconf service.

    Calls are serialised by a lock, and update() always publishes the latest advert asked for,
    so a burst of changes spawned as separate tasks ends with the newest TXT on the wire.
    """

    def __init__(
        self, interface: str | None, port: int, zeroconf_factory: ZeroconfFactory | None = None
    ) -> None:
        self.interface = effective_interface(interface)
        self.port = port
        self._factory = zeroconf_factory or network.default_zeroconf
        self._lock = asyncio.Lock()
        self._zc: Any = None
        self._info: Any = None
        self._published: Advert | None = None
        self._wanted: Advert | None = None
        self._broadcasts: set[asyncio.Future[Any]] = set()
        self._closed = False

    @property
    def instance_name(self) -> str | None:
        """The registered service name (zeroconf may have appended "-2" on a clash)."""
        return self._info.name if self._info is not None else None

    async def start(self, advert: Advert) -> None:
        """Register the service; on failure log why and carry on (host:port still works)."""
        self._wanted = advert
        async with self._lock:
            if self._closed or self._zc is not None:
                return
            try:
                self._zc = self._factory(self.interface)
                info = self._service_info(f"{instance_label(advert.name)}.{SERVICE_TYPE}", advert)
                self._track(await self._zc.async_register_service(info, allow_name_change=True))
                self._info, self._published = info, advert
                log.info("advertising %s on %s", info.name, self.interface or "all interfaces")
            except Exception as exc:
                log.warning("zeroconf advertising failed (%r); players can type host:port", exc)
                await self._shutdown()
                return
        await self._publish_latest()

    async def update(self, advert: Advert) -> None:
        """Re-announce the TXT record, only when it differs from what is on the wire."""
        self._wanted = advert
        await self._publish_latest()

    async def _publish_latest(self) -> None:
        async with self._lock:
            advert = self._wanted
            if self._info is None or advert is None or advert.txt() == _txt(self._published):
                return
            info = self._service_info(self._info.name, advert)
            try:
                self._track(await self._zc.async_update_service(info))
                self._info, self._published = info, advert
            except Exception as exc:
                log.warning("zeroconf update of %s failed: %r", self._info.name, exc)

    async def close(self) -> None:
        """Send goodbyes and close the sockets; idempotent and never raises."""
        self._closed = True
        try:
            async with self._lock:
                await self._shutdown()
        except Exception as exc:  # shutdown must go on whatever zeroconf does
            log.warning("zeroconf shutdown: %r", exc)

    async def _shutdown(self) -> None:
        zc, info, self._zc, self._info = self._zc, self._info, None, None
        for fut in list(self._broadcasts):
            fut.cancel()
        self._broadcasts.clear()
        if zc is None:
            return
        if info is not None:
            try:
                goodbye = await asyncio.wait_for(zc.async_unregister_service(info), CLOSE_TIMEOUT)
                await asyncio.wait_for(goodbye, CLOSE_TIMEOUT)
            except Exception as exc:
                log.warning("zeroconf could not withdraw %s: %r", info.name, exc)
        try:
            await asyncio.wait_for(zc.async_close(), CLOSE_TIMEOUT)
        except Exception as exc:
            log.warning("zeroconf close: %r", exc)

    def _service_info(self, name: str, advert: Advert) -> Any:
        from zeroconf.asyncio import AsyncServiceInfo

        return AsyncServiceInfo(
            SERVICE_TYPE,
            name,
            port=self.port,
            properties=advert.txt(),
            server=server_name(advert.table_id),
            parsed_addresses=host_addresses(self.interface),
        )

    def _track(self, broadcast: Awaitable[Any] | None) -> None:
        """Keep the announcement task (it repeats for ~0.5 s) so close() can cancel it."""
        if isinstance(broadcast, asyncio.Future):
            self._broadcasts.add(broadcast)
            broadcast.add_done_callback(self._broadcasts.discard)


def _txt(advert: Advert | None) -> dict[str, str] | None:
    return advert.txt() if advert is not None else None
