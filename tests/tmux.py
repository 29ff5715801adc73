"""The real `pitchnet` client in a tmux window on this machine (loopback only), driven as
a person would: keys in with send-keys, the screen out with capture-pane, at any size.

The LAN harness (tests/lan/tui.py) does the same inside network namespaces; this one
needs neither root nor namespaces, for tests of what a screen of a given size says."""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

PITCHNET = str(Path(sys.executable).with_name("pitchnet"))
FRAMES = str.maketrans(dict.fromkeys("│┃╭╮╰╯┏┓┗┛─━", " "))
"""A dialog's frame, read as spaces: a sentence wrapped inside it reads on as one line."""


class LoopbackTui:
    """One `pitchnet` client in its own tmux server, `width` x `height`."""

    def __init__(self, args: Sequence[str], size: tuple[int, int], home: Path) -> None:
        self.socket = f"pitchnet-test-{secrets.token_hex(4)}"
        self.size = size
        self.home = home
        self.argv = [PITCHNET, *args]

    def _tmux(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )

    def start(self) -> None:
        env = dict(os.environ)  # PITCHNET_INTERFACE=127.0.0.1 and the test's own dirs
        env.update(TERM="xterm-256color", HOME=str(self.home))
        command = " ".join("'" + a.replace("'", "'\\''") + "'" for a in self.argv)
        width, height = self.size
        done = subprocess.run(
            [
                *("tmux", "-L", self.socket, "-f", "/dev/null", "new-session", "-d"),
                *("-x", str(width), "-y", str(height), "-s", "main", command),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"tmux could not start the client: {done.stderr.strip()}")

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "main").stdout

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "main", *keys)

    async def wait_for(self, *phrases: str, timeout: float = 30) -> str:
        """Poll the screen (lines joined, frames and spaces collapsed: a sentence may wrap) until it
        shows every phrase; returns the screen, or fails with what it showed."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            screen = self.screen()
            flat = " ".join(screen.translate(FRAMES).split())
            if all(phrase in flat for phrase in phrases):
                return screen
            if loop.time() > deadline:
                raise AssertionError(f"timed out waiting for {phrases!r}; it shows:\n{screen}")
            await asyncio.sleep(0.1)  # polling the pane with a deadline, not a guess

    def close(self) -> None:
        self._tmux("kill-server")
