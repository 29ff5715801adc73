"""A browser session's client process, started before the browser asks for it.

Most of the time from a phone's tap on "Join" (or its coming back from sleep) to the
table on its screen was a new Python process importing Textual and pitchnet. So the
web server keeps one spare process that has done its imports and waits, with no
identity, on stdin (`python -m client.web_session --spare`); the next session takes
it and writes it its environment (name, seat file, table password, terminal size) as
one line of JSON, through the pipe, never on a command line. A new spare is started a
moment later, when the session that took the last one has had the CPU to itself.

A spare is started with the environment every session shares (Textual's web driver
settings), since Textual reads some of it as it is imported. Without a spare (the
first has not finished importing, or it died) a session starts its own process as
before.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from asyncio.subprocess import Process

log = logging.getLogger("pitchnet.web")

SPARE_DELAY = 1.0
"""Seconds after a spare is taken before the next is started, leaving the CPU to the
session that took it."""


class SpareClient:
    """At most one idle client process, imports done, for the next browser session."""

    def __init__(self, command: str, environment: dict[str, str]) -> None:
        self.command = command
        self.environment = environment
        self._process: Process | None = None
        self._starting: asyncio.Task[None] | None = None
        self._closed = False

    def start_soon(self, delay: float = 0.0) -> None:
        """Start a spare (after `delay` seconds) unless one is there or coming."""
        if self._closed or self._process is not None:
            return
        if self._starting is not None and not self._starting.done():
            return
        self._starting = asyncio.create_task(self._start(delay))

    async def _start(self, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        if self._closed:
            return
        try:
            self._process = await asyncio.create_subprocess_shell(
                self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=self.environment,
            )
        except OSError as exc:  # out of processes or memory: sessions start their own
            log.warning("could not start a spare web client: %s", exc)

    async def take(self, environment: dict[str, str]) -> Process | None:
        """The spare, given this session's environment; None if there is none alive."""
        process, self._process = self._process, None
        self.start_soon(SPARE_DELAY)
        if process is None or process.returncode is not None or process.stdin is None:
            return None
        try:
            process.stdin.write(json.dumps(environment).encode() + b"\n")
            await process.stdin.drain()
        except (ConnectionError, RuntimeError):
            return None
        return process

    async def close(self) -> None:
        """Stop the spare, and any start under way."""
        self._closed = True
        if self._starting is not None:
            self._starting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._starting
        process, self._process = self._process, None
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
