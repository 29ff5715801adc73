"""`pitchnet join` and `pitchnet play`: choose the name and the first screen, run the app.

The app runs inside our own `asyncio.run` so that a table hosted here (by `play`, or
"host a table here") lives on the same event loop and is closed cleanly after the
app exits, whatever way it exits.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import TYPE_CHECKING

from client.connection import parse_address
from client.settings import choose_name
from pitchnet.i18n import _

if TYPE_CHECKING:
    from client.app import ClientOptions


ASCII_TERMINALS = ("linux", "vt100", "vt102", "vt220", "dumb")
"""TERM values whose terminals cannot draw box or suit glyphs: ASCII mode by itself."""


def wants_ascii(term: str | None) -> bool:
    """True for a terminal (by its TERM) that cannot draw box-drawing and suit glyphs,
    such as the Linux console or a vt100."""
    name = (term or "").lower()
    return any(name == t or name.startswith(t + "-") for t in ASCII_TERMINALS)


def options_from_args(args: argparse.Namespace) -> ClientOptions:
    """The app's options from `pitchnet join`/`play` arguments (ValueError on a bad address)."""
    from client.app import ClientOptions

    address = None
    if getattr(args, "address", None):
        address = parse_address(args.address)
    mode = "play" if args.command == "play" else ("join" if address else "find")
    if args.command == "watch":
        mode = "watch"
    level = getattr(args, "bot_level", None)
    return ClientOptions(
        name=choose_name(getattr(args, "name", None)),
        ascii_only=bool(getattr(args, "ascii", False)) or wants_ascii(os.environ.get("TERM")),
        interface=getattr(args, "interface", None),
        mode=mode,
        address=address,
        password=getattr(args, "password", None) or None,
        bot_level=level or None,
        reactions=not getattr(args, "no_reactions", False),
    )


async def _run(options: ClientOptions) -> None:
    from client.app import PitchApp

    app = PitchApp(options)
    try:
        await app.run_async()
    finally:
        await app.close_network()


def main(args: argparse.Namespace) -> int:
    try:
        options = options_from_args(args)
    except ValueError as exc:
        print(_("pitchnet: {reason}", reason=str(exc)), file=sys.stderr)
        return 2
    try:
        asyncio.run(_run(options))
    except KeyboardInterrupt:
        return 130
    return 0
