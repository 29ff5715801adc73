"""Where host and client meet the machine's network settings: which interface to use and
how a zeroconf instance is made. Both the advert (host/advertise.py) and the finder
(client/discovery.py) use these, so they live here, above both.

Importing this module opens nothing and loads no zeroconf: `default_zeroconf` imports it
when it is called. The rest of `pitchnet/` stays free of sockets.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

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
        return AsyncZeroconf(interfaces=[interface])
    return AsyncZeroconf(interfaces=InterfaceChoice.All, ip_version=IPVersion.V4Only)
