"""Keep a table hosted in this window running after the window closes: a detached
`pitchnet host --resume` of the same table on the same port.

The window's own host closes first (releasing the journal and the port), then the
detached host reopens the table from its journal; the clients see a short break and
reconnect to their seats by themselves. The detached host writes its log beside the
table's journal, and stops like any `pitchnet host` (Ctrl+C in a terminal, or SIGTERM);
SIGHUP closes it "back in a moment", so that a window can take the table back.

A note beside the journal (`ID.background.json`) says which process runs the table, so
that a later `pitchnet play` on this laptop can show it and end it or take it back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from client.hosting import tables_dir
from pitchnet.invocation import shown_command

NOTE_SUFFIX = ".background.json"


@dataclass(frozen=True)
class BackgroundTable:
    """A table this laptop runs in a detached host (what its note says)."""

    table_id: str
    name: str
    pid: int
    port: int
    web_port: int | None = None


def resume_command(
    table_id: str,
    port: int,
    interface: str | None,
    web_port: int | None = None,
    stand_in: int | None = None,
) -> list[str]:
    """The `pitchnet host` arguments that bring this table back on the same port (and
    its web join on the same web port, for a window that served browsers); `stand_in`:
    the window's own seat, which a bot plays at once (its player went on purpose)."""
    command = ["pitchnet", "host", "--resume", table_id, "--port", str(port)]
    if web_port is not None:
        command += ["--web", str(web_port)]
    if stand_in is not None:
        command += ["--stand-in", str(stand_in + 1)]
    return command + (["--interface", interface] if interface else [])


def _note_path(table_id: str, folder: Path | None = None) -> Path:
    return (folder or tables_dir()) / f"{table_id}{NOTE_SUFFIX}"


def resume_in_background(
    table_id: str,
    port: int,
    interface: str | None,
    *,
    web_port: int | None = None,
    name: str = "",
    stand_in: int | None = None,
) -> tuple[str, int]:
    """Start the detached host; returns the command (as a person would type it) with
    where its log goes, and its process id. Raises OSError if it cannot be started."""
    command = resume_command(table_id, port, interface, web_port, stand_in)
    folder = tables_dir()
    folder.mkdir(parents=True, exist_ok=True)
    log_path = folder / f"{table_id}.log"
    with open(log_path, "ab") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "pitchnet", *command[1:]],
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=log_file,
            start_new_session=True,  # not ended with this window's terminal
        )
    note = BackgroundTable(table_id, name or table_id, process.pid, port, web_port)
    with contextlib.suppress(OSError):  # the table runs either way; only `play` reads it
        _note_path(table_id, folder).write_text(json.dumps(asdict(note)), encoding="utf-8")
    return f"{shown_command(command)}, log in {log_path}", process.pid


def _alive(pid: int, table_id: str) -> bool:
    """The process still runs, and is that table's host (a process id can be reused)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False  # someone else's process now
    cmdline = Path(f"/proc/{pid}/cmdline")
    try:
        return table_id.encode() in cmdline.read_bytes()
    except FileNotFoundError:  # no /proc (not Linux): the signal's answer is all we have
        return not Path("/proc/self").exists()
    except OSError:
        return False


def _reaped(pid: int) -> None:
    """A detached host this process started is reaped once it ends (else it stays a
    zombie, and looks alive)."""
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)


def running_here(folder: Path | None = None) -> list[BackgroundTable]:
    """The tables this laptop runs in the background now; stale notes are removed."""
    folder = folder or tables_dir()
    found: list[BackgroundTable] = []
    try:
        paths = sorted(folder.glob(f"*{NOTE_SUFFIX}"))
    except OSError:
        return []
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            table = BackgroundTable(
                table_id=str(data["table_id"]),
                name=str(data["name"]),
                pid=int(data["pid"]),
                port=int(data["port"]),
                web_port=None if data.get("web_port") is None else int(data["web_port"]),
            )
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not ours to judge: left as it is
        _reaped(table.pid)
        if _alive(table.pid, table.table_id):
            found.append(table)
        else:
            with contextlib.suppress(OSError):
                path.unlink()
    return found


async def stop(table: BackgroundTable, *, hand_back: bool, timeout: float = 15.0) -> bool:
    """Stop the detached host: `hand_back` closes it "back in a moment" (SIGHUP: the
    clients keep their seats and retry, for this window to resume the table), else it
    ends the table for everyone (SIGTERM, as Ctrl+C would). True once it has gone."""
    sig = signal.SIGHUP if hand_back else signal.SIGTERM
    with contextlib.suppress(ProcessLookupError):
        os.kill(table.pid, sig)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        _reaped(table.pid)
        if not _alive(table.pid, table.table_id):
            break
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.05)  # polling the process with a deadline
    with contextlib.suppress(OSError):
        _note_path(table.table_id).unlink()
    return True
