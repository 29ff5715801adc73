"""Network and system errors as sentences a player can act on.

Python's own texts ("[Errno 99] Cannot assign requested address", "Name or service not
known") name the failing system call, not what the person should do. Every place that
shows an OSError to a person (the host's start-up, the client's connection and table
finder) goes through `describe_os_error`, so the same failure reads the same everywhere.
Pure functions: no sockets are touched here.
"""

from __future__ import annotations

import errno
import socket

from pitchnet.i18n import _

_GAI_NO_NAME = {
    getattr(socket, name)
    for name in ("EAI_NONAME", "EAI_AGAIN", "EAI_FAIL", "EAI_NODATA", "EAI_ADDRFAMILY")
    if hasattr(socket, name)
}


def describe_os_error(
    exc: BaseException, *, host: str | None = None, port: int | None = None, option: str = "--port"
) -> str:
    """One sentence (ending in a full stop) for `exc`; `host`/`port` say where it happened,
    `option` which command-line option chose that port (`--web` for the browsers' page)."""
    where = host or _("that address")
    at = f"{host}:{port}" if host and port is not None else where
    if isinstance(exc, socket.gaierror):
        if exc.errno in _GAI_NO_NAME:
            return _(
                "No computer called {where} can be found on the network; check the name, "
                "or give its address (like 192.168.1.20).",
                where=where,
            )
        return _("The name {where} cannot be looked up right now.", where=where)
    if isinstance(exc, TimeoutError):
        return _("{at} did not answer in time.", at=at)
    if isinstance(exc, ConnectionRefusedError):
        return _("Nobody is hosting a table at {at}.", at=at)
    code = getattr(exc, "errno", None)
    number = str(port) if port is not None else "?"
    if code == errno.EADDRNOTAVAIL:
        return _(
            "{where} is not an address of this computer, so nothing can listen there; "
            "choose one this computer has with --interface (see `ip addr`).",
            where=where,
        )
    if code == errno.EADDRINUSE:
        if option == "--port":
            return _(
                "Port {port} is already in use on this computer (another table or program "
                "has it); choose another with --port, or leave --port out to take a free one.",
                port=number,
            )
        return _(
            "The {option} port {port} is already in use on this computer (another table or "
            "program has it); choose another with {option}, or give {option} 0 to take a "
            "free one.",
            option=option,
            port=number,
        )
    if code == errno.EACCES:
        if option == "--port":
            return _(
                "This computer does not let you use port {port}; choose one above 1023.",
                port=number,
            )
        return _(
            "This computer does not let you use the {option} port {port}; choose one above 1023.",
            option=option,
            port=number,
        )
    if code in (errno.ENETUNREACH, errno.EHOSTUNREACH):
        return _("{at} cannot be reached from this computer's network.", at=at)
    if code == errno.ECONNRESET:
        return _("{at} dropped the connection.", at=at)
    if code == errno.ETIMEDOUT:
        return _("{at} did not answer in time.", at=at)
    reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    reason = reason.strip().rstrip(".")
    reason = reason[:1].lower() + reason[1:]
    return _("The network failed ({reason}).", reason=reason)
