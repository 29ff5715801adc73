"""The event loop a standalone host runs on: uvloop where it is installed.

Most of the host's work per action is the event loop's: waking for a readable socket,
reading it, calling the protocol, and four sends. uvloop does those in C (libuv) rather
than in asyncio's Python, which cut the host's CPU per action by about a fifth
(BENCHMARKS.md, "The host on uvloop"). Only `pitchnet host` runs on it: a table hosted
inside a player's window shares Textual's loop, which stays asyncio's own. Where uvloop
is not installed (it has no Windows build), or `PITCHNET_EVENT_LOOP=asyncio` is set, the
host runs on asyncio's loop as before: the host's code is the same on both.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

LOOP_VARIABLE = "PITCHNET_EVENT_LOOP"
"""Set to "asyncio" to run the host on asyncio's own loop even where uvloop is installed."""


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop factory, or None for asyncio's own loop."""
    if os.environ.get(LOOP_VARIABLE, "").strip().lower() == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def loop_name() -> str:
    """Which loop `run` uses, for a benchmark's report and the host's log."""
    return "asyncio" if loop_factory() is None else "uvloop"


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)`, on the host's loop."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)
