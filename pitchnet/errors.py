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
    where = host or "that address"
    at = f"{host}:{port}" if host and port is not None else where
    if isinstance(exc, socket.gaierror):
        if exc.errno in _GAI_NO_NAME:
            return (
                f"No computer called {where} can be found on the network; check the name, "
                "or give its address (like 192.168.1.20)."
            )
        return f"The name {where} cannot be looked up right now."
    if isinstance(exc, TimeoutError):
        return f"{at} did not answer in time."
    if isinstance(exc, ConnectionRefusedError):
        return f"Nobody is hosting a table at {at}."
    code = getattr(exc, "errno", None)
    number = port if port is not None else "?"
    the_port = f"port {number}" if option == "--port" else f"the {option} port {number}"
    if code == errno.EADDRNOTAVAIL:
        return (
            f"{where} is not an address of this computer, so nothing can listen there; "
            "choose one this computer has with --interface (see `ip addr`)."
        )
    if code == errno.EADDRINUSE:
        free = "leave --port out" if option == "--port" else f"give {option} 0"
        return (
            f"{the_port[:1].upper()}{the_port[1:]} is already in use on this computer "
            f"(another table or program has it); choose another with {option}, or {free} "
            "to take a free one."
        )
    if code == errno.EACCES:
        return f"This computer does not let you use {the_port}; choose one above 1023."
    if code in (errno.ENETUNREACH, errno.EHOSTUNREACH):
        return f"{at} cannot be reached from this computer's network."
    if code == errno.ECONNRESET:
        return f"{at} dropped the connection."
    if code == errno.ETIMEDOUT:
        return f"{at} did not answer in time."
    reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    reason = reason.strip().rstrip(".")
    return f"The network failed ({reason[:1].lower()}{reason[1:]})."
