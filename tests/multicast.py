"""Is multicast on loopback usable here? The zeroconf socket tests need it.

`multicast_problem()` sends one datagram to the mDNS group through 127.0.0.1 on a
private port (no real mDNS stack sees it) and says why it did not come back, or None.
The `multicast` fixture (tests/conftest.py) skips a test with that reason, or fails it
when PITCHNET_REQUIRE_LAN=1 (CI sets it where mDNS must work).
"""

from __future__ import annotations

import socket
import struct

LOOPBACK = "127.0.0.1"
MDNS_GROUP = "224.0.0.251"


def multicast_problem() -> str | None:
    """None if a datagram sent to the mDNS group via 127.0.0.1 comes back; else the reason."""
    with (
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx,
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx,
    ):
        try:
            rx.bind(("", 0))  # a private port: no real mDNS stack sees the probe
            mreq = socket.inet_aton(MDNS_GROUP) + socket.inet_aton(LOOPBACK)
            rx.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
            tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(LOOPBACK))
            tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, struct.pack("B", 1))
            rx.settimeout(2.0)  # a receive deadline, not a sleep
            tx.sendto(b"pitchnet-probe", (MDNS_GROUP, rx.getsockname()[1]))
            data = rx.recv(64)
        except OSError as exc:
            return f"multicast on {LOOPBACK} failed: {exc}"
        return None if data == b"pitchnet-probe" else "multicast probe came back altered"
