"""Keep a table hosted in this window running after the window closes: a detached
`pitchnet host --resume` of the same table on the same port.

The window's own host closes first (releasing the journal and the port), then the
detached host reopens the table from its journal; the clients see a short break and
reconnect to their seats by themselves. The detached host writes its log beside the
table's journal, and stops like any `pitchnet host` (Ctrl+C in a terminal, or SIGTERM).
"""

from __future__ import annotations

import subprocess
import sys

from host.journal import tables_dir


def resume_command(
    table_id: str, port: int, interface: str | None, web_port: int | None = None
) -> list[str]:
    """The `pitchnet host` arguments that bring this table back on the same port (and
    its web join on the same web port, for a window that served browsers)."""
    command = ["pitchnet", "host", "--resume", table_id, "--port", str(port)]
    if web_port is not None:
        command += ["--web", str(web_port)]
    return command + (["--interface", interface] if interface else [])


def resume_in_background(
    table_id: str, port: int, interface: str | None, *, web_port: int | None = None
) -> tuple[str, int]:
    """Start the detached host; returns the command (as a person would type it) with
    where its log goes, and its process id. Raises OSError if it cannot be started."""
    command = resume_command(table_id, port, interface, web_port)
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
    return f"{' '.join(command)}, log in {log_path}", process.pid
