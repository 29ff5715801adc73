"""The real `pitchnet` client (Textual) on a namespace "laptop", driven through tmux as
a person would: keys in with send-keys, the screen out with capture-pane.

Each client gets its own tmux server (socket named after the LAN's tag and the node), started
inside the node's namespace, so the client's sockets live there. `Lan.down()` kills every
process left in its namespaces, tmux servers included; `close()` ends one earlier.
"""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from .harness import Lan, WaitTimeout, wait_for
from .pitchnet_lan import PITCHNET, node_env, state_dir

WIDTH, HEIGHT = 100, 32


class Tui:
    """One `pitchnet` client in a tmux window on `node`."""

    def __init__(self, lan: Lan, node: str, args: Sequence[str], name: str | None = None) -> None:
        self.lan, self.node = lan, node
        self.socket = f"{lan.tag}-{name or node}"
        self.started_at = 0.0
        self._argv = [PITCHNET, *args]

    def _tmux(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def start(self) -> Tui:
        """Start the client (its tmux server forks inside the node's namespace); returns
        at once: `started()` waits for tmux to have it running."""
        # Textual draws on stderr, so the client's output stays in the pane (its screen).
        command = " ".join(_quote(a) for a in self._argv)
        env = self.lan.env(self.node, node_env(self.lan, self.node))
        env["TERM"] = "xterm-256color"
        self.started_at = time.monotonic()
        self._starting = subprocess.Popen(
            [
                "ip",
                "netns",
                "exec",
                self.lan.ns(self.node),
                "tmux",
                "-L",
                self.socket,
                "-f",
                "/dev/null",
                # The pane stays after the client exits, so its last words can be read.
                "start-server",
                ";",
                "set-option",
                "-g",
                "remain-on-exit",
                "on",
                ";",
                "new-session",
                "-d",
                "-x",
                str(WIDTH),
                "-y",
                str(HEIGHT),
                "-s",
                "main",
                command,
            ],
            env=env,
            cwd=self.lan.workdir,
        )
        return self

    def started(self, timeout: float = 10) -> None:
        if self._starting.wait(timeout) != 0:
            raise RuntimeError(f"tmux could not start the client on {self.node}")

    def screen(self) -> str:
        """What the terminal shows now; once the client has exited, with the lines that
        scrolled off the top too (its last words may be longer than the screen is tall,
        and where they start depends on what was printed before the app started)."""
        dead = self._tmux("display-message", "-p", "-t", "main", "#{pane_dead}", check=False)
        history = ["-S", "-"] if dead.strip() == "1" else []
        return self._tmux("capture-pane", "-p", "-t", "main", *history, check=False)

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "main", *keys)

    def wait_for_text(self, text: str, timeout: float = 30) -> str:
        """Poll the screen until it shows `text`; returns the screen. At the deadline the
        WaitTimeout carries the last screen, so a failure says what was shown instead."""
        try:
            return wait_for(
                lambda: (screen := self.screen()) and text in screen and screen,
                timeout,
                interval=0.1,
                what=f"{text!r} on {self.node}'s screen",
            )
        except WaitTimeout as exc:
            raise WaitTimeout(f"{exc}; it shows:\n{self.screen()}") from None

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._tmux("kill-server", check=False)

    def journals(self) -> list[Path]:
        """The journals of tables hosted by this client's laptop."""
        return sorted((state_dir(self.lan, self.node) / "tables").glob("*.sqlite"))


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
