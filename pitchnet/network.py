"""Where host and client meet the machine's network settings: which interface to use and
how a zeroconf instance is made. Both the advert (host/advertise.py) and the finder
(client/discovery.py) use these, so they live here, above both.

Importing this module opens nothing and loads no zeroconf: `default_zeroconf` imports it
when it is called. The rest of `pitchnet/` stays free of sockets.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

INTERFACE_ENV = "PITCHNET_INTERFACE"
"""Every networked command binds and advertises on this address when set (the tests set
127.0.0.1, so nothing they start is heard beyond this machine)."""

ZeroconfFactory = Callable[[str | None], Any]
"""Makes an AsyncZeroconf-like object for an interface address (None = every interface)."""


def effective_interface(interface: str | None = None) -> str | None:
    """The interface to use: the one given, else $PITCHNET_INTERFACE, else None (all)."""
    return interface or os.environ.get(INTERFACE_ENV) or None


def default_zeroconf(interface: str | None) -> Any:
    """A real AsyncZeroconf on one address, or on every IPv4 interface when none is given."""
    from zeroconf import InterfaceChoice, IPVersion
    from zeroconf.asyncio import AsyncZeroconf

    if interface:
        zc = AsyncZeroconf(interfaces=[interface])
        confine_listener(zc, interface)
        return zc
    return AsyncZeroconf(interfaces=InterfaceChoice.All, ip_version=IPVersion.V4Only)


IP_MULTICAST_ALL = getattr(socket, "IP_MULTICAST_ALL", 49)
"""Linux: 0 makes a socket receive only the multicast groups it joined itself, on the
interfaces it joined them on (by default it gets every group any socket on the machine
joined, on any interface)."""


def device_of(address: str) -> str | None:
    """The name of the network device that holds `address` ("lo" for 127.0.0.1)."""
    import ifaddr  # zeroconf's own dependency for the same job

    try:
        for adapter in ifaddr.get_adapters():
            for ip in adapter.ips:
                held = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
                if held == address:
                    return str(adapter.name)
    except OSError:
        return None
    return None


def confine_listener(zc: Any, interface: str) -> list[str]:
    """Make zeroconf's shared listener hear only the chosen interface.

    python-zeroconf (0.154) always binds its listener to 0.0.0.0:5353 and joins the
    multicast group on the chosen interface only; that socket would still take unicast
    queries sent to this machine's other addresses (and multicast that another program
    joined elsewhere) and answer them from there. So it is tied to the interface's device
    (SO_BINDTODEVICE) and to its own groups (IP_MULTICAST_ALL off). Returns what could
    not be done, as sentences (empty when both held); never raises."""
    listener = getattr(getattr(zc.zeroconf, "engine", None), "_listen_socket", None)
    if listener is None:  # nothing wildcard to confine (an instance with no listener)
        return []
    problems = []
    if sys.platform.startswith("linux"):
        try:
            listener.setsockopt(socket.IPPROTO_IP, IP_MULTICAST_ALL, 0)
        except OSError as exc:
            problems.append(f"cannot keep the listener to its own groups: {exc.strerror}")
    device = device_of(interface)
    if device is None or not hasattr(socket, "SO_BINDTODEVICE"):
        problems.append(f"cannot tie the listener to the device of {interface}")
    else:
        try:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, device.encode())
        except OSError as exc:
            problems.append(f"cannot tie the listener to {device}: {exc.strerror}")
    for problem in problems:
        log.warning("zeroconf on %s: %s", interface, problem)
    return problems
