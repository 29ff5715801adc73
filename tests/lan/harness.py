"""A private LAN of Linux network namespaces, so fault tests can run real pitchnet processes
as separate "laptops" and break their links without touching this machine's own network.

Layout per `Lan`: a switch namespace holding a bridge (``br0``, multicast snooping off, like a
cheap home switch), a ``host`` namespace and ``p1``..``pN`` player namespaces, each joined to the
bridge by a veth pair (``eth0`` in the node, ``b-<node>`` on the switch). Addresses live in
10.199.X.0/24, which exists only inside these namespaces; there is no default route, so nothing
can leave them. The root namespace's interfaces, routes and nftables are never touched: veth
pairs are created inside the switch namespace and their peer is placed straight into the node.

Namespace names are ``pnt<pid>x<n>-<node>`` so that a later session can tell which ones were
left behind by a run that died (its pid is gone) and sweep them, without disturbing a run that
is still going.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Literal, TypeVar

PREFIX = "pnt"
NODE_IF = "eth0"
SWITCH_NODE = "sw"
HOST_NODE = "host"
MULTICAST_NET = "224.0.0.0/4"
DROP_TABLE = "pnt_drop"
_NAME = re.compile(rf"^{PREFIX}(\d+)x(\d+)-")
_counter = itertools.count(1)

T = TypeVar("T")


class WaitTimeout(TimeoutError):
    """A polled condition did not come true before its deadline."""


class LanError(RuntimeError):
    """An `ip` or `nft` command failed; carries the command and its stderr."""


def _cmd(argv: Sequence[str], *, input_text: str | None = None, check: bool = True) -> str:
    done = subprocess.run(argv, input=input_text, capture_output=True, text=True, timeout=20)
    if check and done.returncode != 0:
        raise LanError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def _ipn(ns: str, command: str) -> str:
    """`ip -n NS <command>`; the harness's names never contain spaces."""
    return _cmd(["ip", "-n", ns, *command.split()])


def _ns_list() -> list[str]:
    return [line.split()[0] for line in _cmd(["ip", "netns", "list"]).splitlines() if line]


def _ns_pids(ns: str) -> list[int]:
    return [int(p) for p in _cmd(["ip", "netns", "pids", ns], check=False).split()]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _delete_ns(ns: str) -> None:
    """Kill whatever still runs in `ns` (only harness-started processes live there), then
    delete it; a namespace with live processes would otherwise linger, nameless."""
    for pid in _ns_pids(ns):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _cmd(["ip", "netns", "del", ns], check=False)


def unavailable_reason() -> str | None:
    """Why this machine cannot run the harness, or None if it can."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    for tool in ("ip", "nft"):
        if shutil.which(tool) is None:
            return f"`{tool}` not found (install iproute2 and nftables)"
    probe = f"{PREFIX}{os.getpid()}x0-probe"
    try:
        _cmd(["ip", "netns", "add", probe])
        _cmd(["ip", "netns", "exec", probe, "nft", "list", "tables"])
    except (LanError, OSError, subprocess.TimeoutExpired) as exc:
        return f"`ip netns` unusable here: {exc}"
    finally:
        _cmd(["ip", "netns", "del", probe], check=False)
    return None


def sweep_stale() -> list[str]:
    """Delete harness namespaces whose creating process is gone; return their names."""
    stale = []
    for ns in _ns_list():
        found = _NAME.match(ns)
        if found and not _pid_alive(int(found.group(1))):
            _delete_ns(ns)
            stale.append(ns)
    return stale


def wait_for(
    predicate: Callable[[], T | Literal[False, ""] | None],
    timeout: float,
    *,
    interval: float = 0.05,
    what: str = "",
) -> T:
    """Poll `predicate` until it returns something truthy, and return that; raise WaitTimeout
    at the deadline. The way to wait on another process: never a bare sleep."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() >= deadline:
            raise WaitTimeout(f"timed out after {timeout}s waiting for {what or predicate!r}")
        time.sleep(interval)


class LanProcess:
    """A process running inside one node's namespace, its stdout+stderr going to `log_path`."""

    def __init__(
        self, node: str, argv: Sequence[str], popen: subprocess.Popen[bytes], log_path: Path
    ) -> None:
        self.node = node
        self.argv = list(argv)
        self.popen = popen
        self.log_path = log_path

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    @property
    def stdin(self) -> IO[bytes] | None:
        return self.popen.stdin

    def alive(self) -> bool:
        return self.popen.poll() is None

    def wait(self, timeout: float) -> int:
        """Wait for exit; raises subprocess.TimeoutExpired past the deadline."""
        return self.popen.wait(timeout)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def mark(self) -> int:
        """The log's current length: pass as `since` to wait for a *new* line."""
        return len(self.log())

    def wait_for_line(
        self, pattern: str | re.Pattern[str], timeout: float, *, since: int = 0
    ) -> re.Match[str]:
        """The first log line after offset `since` that `pattern` matches (re.search).
        Fails early, with the log, if the process exits without printing it."""
        regex = re.compile(pattern)

        def find() -> re.Match[str] | None:
            for line in self.log()[since:].splitlines():
                if found := regex.search(line):
                    return found
            return None

        def found_or_exited() -> re.Match[str] | bool | None:
            return find() or (not self.alive() and find() is None)

        try:
            result = wait_for(found_or_exited, timeout, what=f"/{regex.pattern}/")
        except WaitTimeout as exc:
            raise WaitTimeout(f"{exc} in {self}; log tail:\n{self.tail()}") from None
        if isinstance(result, re.Match):
            return result
        raise AssertionError(
            f"{self} exited ({self.returncode}) before printing "
            f"/{regex.pattern}/; log tail:\n{self.tail()}"
        )

    async def await_line(
        self, pattern: str | re.Pattern[str], timeout: float, *, since: int = 0
    ) -> re.Match[str]:
        """`wait_for_line` for asyncio tests (runs in a worker thread)."""
        return await asyncio.to_thread(self.wait_for_line, pattern, timeout, since=since)

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.log().splitlines()[-lines:])

    def __repr__(self) -> str:
        return f"<{self.node} pid {self.pid} {' '.join(self.argv)[:80]!r}>"


class Lan:
    """One test's LAN. Use as a context manager (or through the `lan` fixture); `down()`
    always runs, killing every process started here and deleting every namespace."""

    def __init__(self, workdir: Path, players: int = 2) -> None:
        if not 1 <= players <= 9:
            raise ValueError("players must be 1 to 9")
        self.workdir = Path(workdir)
        self.tag = f"{PREFIX}{os.getpid()}x{next(_counter)}"
        self.octet = (os.getpid() + int(self.tag.rsplit("x", 1)[1])) % 250 + 1
        self.subnet = f"10.199.{self.octet}.0/24"
        self.players = tuple(f"p{i}" for i in range(1, players + 1))
        self.nodes = (HOST_NODE, *self.players)
        self.processes: list[LanProcess] = []
        self._dropped: dict[str, str] = {}
        self._created: list[str] = []

    # -- names and addresses ------------------------------------------------------------
    def ns(self, node: str) -> str:
        """The namespace name of `node` ("host", "p1".., or "sw" for the switch)."""
        if node != SWITCH_NODE and node not in self.nodes:
            raise KeyError(f"no node {node!r} on this LAN (nodes: {', '.join(self.nodes)})")
        return f"{self.tag}-{node}"

    def ip(self, node: str) -> str:
        """The node's address: host is .1, player pK is .(10+K)."""
        self.ns(node)
        last = 1 if node == HOST_NODE else 10 + int(node[1:])
        return f"10.199.{self.octet}.{last}"

    def home(self, node: str) -> Path:
        """The node's own HOME/XDG tree, so each "laptop" keeps its own state (seat tokens,
        journals) as it would on a separate machine."""
        self.ns(node)
        return self.workdir / "homes" / node

    def namespaces(self) -> list[str]:
        """This LAN's namespaces that currently exist."""
        mine = {self.ns(SWITCH_NODE), *(self.ns(n) for n in self.nodes)}
        return [ns for ns in _ns_list() if ns in mine]

    # -- lifecycle ----------------------------------------------------------------------
    def up(self) -> Lan:
        try:
            self.workdir.mkdir(parents=True, exist_ok=True)
            sw = self._add_ns(SWITCH_NODE)
            _ipn(sw, "link add br0 type bridge mcast_snooping 0 forward_delay 0")
            _ipn(sw, "link set br0 up")
            for node in self.nodes:
                self._attach(node)
        except BaseException:
            self.down()
            raise
        return self

    def _add_ns(self, node: str) -> str:
        ns = self.ns(node)
        _cmd(["ip", "netns", "add", ns])
        self._created.append(ns)
        _ipn(ns, "link set lo up")
        return ns

    def _attach(self, node: str) -> None:
        ns, sw, port = self._add_ns(node), self.ns(SWITCH_NODE), f"b-{node}"
        _ipn(sw, f"link add {port} type veth peer name {NODE_IF} netns {ns}")
        _ipn(sw, f"link set {port} master br0 up")
        _ipn(ns, f"addr add {self.ip(node)}/24 dev {NODE_IF}")
        _ipn(ns, f"link set {NODE_IF} up")
        _ipn(ns, f"route replace {MULTICAST_NET} dev {NODE_IF}")

    def down(self) -> None:
        for proc in self.processes:
            if proc.alive():
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.popen.wait(5)
        for ns in reversed(self._created):
            _delete_ns(ns)
        self._created.clear()

    def __enter__(self) -> Lan:
        return self.up()

    def __exit__(self, *exc: object) -> None:
        self.down()

    # -- processes ----------------------------------------------------------------------
    def env(self, node: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment a process on `node` gets: ours, with PITCHNET_INTERFACE set to
        the node's address, its own HOME/XDG dirs, unbuffered Python, then `extra`."""
        home = self.home(node)
        env = dict(os.environ)
        env.update(PITCHNET_INTERFACE=self.ip(node), PYTHONUNBUFFERED="1", HOME=str(home))
        for var, sub in (
            ("XDG_STATE_HOME", "state"),
            ("XDG_DATA_HOME", "data"),
            ("XDG_CONFIG_HOME", "config"),
            ("XDG_CACHE_HOME", "cache"),
        ):
            (home / sub).mkdir(parents=True, exist_ok=True)
            env[var] = str(home / sub)
        env.update(extra or {})
        return env

    def spawn(
        self,
        node: str,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        name: str | None = None,
        stdin: int | None = subprocess.DEVNULL,
    ) -> LanProcess:
        """Start `argv` in `node`'s namespace (`ip netns exec NS ...`, which execs, so the
        pid is the program's own). Output goes to <workdir>/logs/<name>.log."""
        logs = self.workdir / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        label = name or f"{node}-{len(self.processes)}-{Path(argv[0]).name}"
        log_path = logs / f"{label}.log"
        with log_path.open("wb") as log:
            popen = subprocess.Popen(
                ["ip", "netns", "exec", self.ns(node), *argv],
                env=self.env(node, env),
                stdin=stdin,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                cwd=self.workdir,
            )
        proc = LanProcess(node, argv, popen, log_path)
        self.processes.append(proc)
        return proc

    def run(
        self,
        node: str,
        argv: Sequence[str],
        *,
        timeout: float = 10,
        env: Mapping[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run a short command in `node`'s namespace to completion, capturing its output."""
        return subprocess.run(
            ["ip", "netns", "exec", self.ns(node), *argv],
            env=self.env(node, env),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=self.workdir,
        )

    def kill(self, proc: LanProcess, sig: int = signal.SIGKILL, timeout: float = 5) -> int | None:
        """Send `sig` to the process alone (a crash, not a shutdown); after SIGKILL, reap it
        and return its exit status."""
        with contextlib.suppress(ProcessLookupError):
            proc.popen.send_signal(sig)
        return proc.wait(timeout) if sig == signal.SIGKILL else proc.returncode

    def logs(self, lines: int = 40) -> str:
        """The tail of every process's log, for failure messages."""
        parts = [f"LAN {self.tag} subnet {self.subnet} workdir {self.workdir}"]
        for proc in self.processes:
            parts.append(f"--- {proc!r} exit={proc.returncode} log={proc.log_path}")
            parts.append(proc.tail(lines))
        return "\n".join(parts)

    # -- faults -------------------------------------------------------------------------
    def cut(self, node: str) -> None:
        """Take the node's link down: like a cable pulled or Wi-Fi switched off; the node's
        own sends fail at once (network unreachable), its peers hear nothing."""
        _ipn(self.ns(node), f"link set {NODE_IF} down")

    def heal(self, node: str, timeout: float = 5) -> None:
        """Bring the link back up, re-add the multicast route (the kernel drops it with the
        link), and wait until the link carries traffic."""
        ns = self.ns(node)
        _ipn(ns, f"link set {NODE_IF} up")
        _ipn(ns, f"route replace {MULTICAST_NET} dev {NODE_IF}")
        up = f"link show {NODE_IF}"
        wait_for(lambda: "LOWER_UP" in _ipn(ns, up), timeout, what=f"{node} link up")

    def drop(self, node: str, at: Literal["node", "switch"] | None = None) -> str:
        """Silently drop every packet to and from the node: nothing arrives, no RST, and the
        node's own sends still "succeed", as when Wi-Fi goes out of range. By default an
        nftables netdev table in the node's namespace (ingress and egress on eth0; the inet
        output hook would make sends fail with EPERM, which is not silent); where the kernel
        lacks the egress hook, a bridge table on the switch port instead. Returns where."""
        if node in self._dropped:
            raise RuntimeError(f"{node} is already dropped")
        if at in (None, "node"):
            try:
                self._nft(
                    self.ns(node),
                    f"table netdev {DROP_TABLE} {{\n"
                    f'  chain i {{ type filter hook ingress device "{NODE_IF}" '
                    f"priority 0; policy drop; }}\n"
                    f'  chain o {{ type filter hook egress device "{NODE_IF}" '
                    f"priority 0; policy drop; }}\n}}\n",
                )
                self._dropped[node] = "node"
                return "node"
            except LanError:
                if at == "node":
                    raise
        port = f"b-{node}"
        self._nft(
            self.ns(SWITCH_NODE),
            f"table bridge {DROP_TABLE}_{node} {{\n"
            f"  chain f {{ type filter hook forward priority 0;\n"
            f'    iifname "{port}" drop\n    oifname "{port}" drop\n  }}\n}}\n',
        )
        self._dropped[node] = "switch"
        return "switch"

    def undrop(self, node: str) -> None:
        """Stop dropping the node's packets."""
        at = self._dropped.pop(node)
        if at == "node":
            self._nft(self.ns(node), f"delete table netdev {DROP_TABLE}\n")
        else:
            self._nft(self.ns(SWITCH_NODE), f"delete table bridge {DROP_TABLE}_{node}\n")

    def _nft(self, ns: str, script: str) -> None:
        _cmd(["ip", "netns", "exec", ns, "nft", "-f", "-"], input_text=script)
