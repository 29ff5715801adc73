"""Every error a person can meet on the command line is a sentence: no raw errno text,
no argparse function names, no tracebacks (issue 12, item 5). These run the real
`pitchnet` command in a subprocess and read what it prints."""

from __future__ import annotations

import dataclasses
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from host import dispatch
from host.history import table_lines, table_state
from host.journal import SqliteJournal, TableRecord, journal_path, list_tables
from pitchnet.errors import describe_os_error

RAW = (
    "Errno",
    "Traceback",
    "invalid _",
    "Temporary failure in name resolution",
    "Name or service not known",
    "BrokenPipe",
)


def pitchnet(*args: str, timeout: float = 20) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pitchnet", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=os.environ.copy(),
    )


def assert_sentence(text: str) -> None:
    text = text.strip()
    assert text, "nothing was printed"
    for raw in RAW:
        assert raw not in text, f"{raw!r} in {text!r}"
    last = text.splitlines()[-1]
    assert last.endswith((".", ")")), f"not a sentence: {last!r}"


@pytest.mark.parametrize(
    "args",
    [
        ["host", "--port", "abc"],
        ["host", "--players", "x"],
        ["host", "--players", "9"],
        ["host", "--target", "8"],
        ["host", "--ready", "soon"],
        ["host", "--players", "2", "--bots", "2"],  # nobody could ever sit: refused
        ["bot", "127.0.0.1", "--count", "many"],
        ["bot", "127.0.0.1:99999"],
        ["join", "127.0.0.1:abc"],
        ["watch", ":7373"],
        ["--bogus"],
        ["vectors"],
        ["bot"],
        ["history", "a", "b"],
        ["simulate", "--games", "x"],
        ["host", "--bot-level", "x"],
    ],
)
def test_bad_arguments_are_sentences(args: list[str]) -> None:
    done = pitchnet(*args)
    assert done.returncode == 2
    assert_sentence(done.stderr)
    # Issue 25: one line, never argparse's usage block before it.
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "usage:" not in done.stderr


def test_one_player_is_said_in_the_singular() -> None:
    done = pitchnet("host", "--players", "1")
    assert done.returncode == 2 and "1 player cannot sit at a table" in done.stderr


@pytest.mark.parametrize("table_id", ["nosuch", "a/b"])
def test_history_of_an_unknown_table_is_one_sentence(table_id: str) -> None:
    done = pitchnet("history", table_id)
    assert done.returncode == 1
    assert_sentence(done.stderr)
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    # The command it names may carry the project's folder (`uv run --project DIR`): the
    # rest names no internal path.
    from pitchnet.invocation import shown_command

    said = done.stderr.replace(shown_command(["pitchnet", "history"]), "pitchnet history")
    assert ".sqlite" not in said and "/" not in said.replace("a/b", ""), said


def test_an_address_not_on_this_computer_is_a_sentence() -> None:
    done = pitchnet("host", "--interface", "10.255.255.254", "--port", "0")
    assert done.returncode == 1
    assert_sentence(done.stderr)
    assert "not an address of this computer" in done.stderr


def test_an_explicit_port_in_use_is_refused_with_a_sentence() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = pitchnet("host", "--interface", "127.0.0.1", "--port", str(port))
    assert done.returncode == 1
    assert_sentence(done.stderr)
    assert f"Port {port} is already in use" in done.stderr


def test_a_web_port_in_use_is_named_as_the_web_port() -> None:
    """`--web` on a port in use: one sentence about that port and `--web`, never the
    table's port (which opened fine) nor `--port`."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = pitchnet("host", "--interface", "127.0.0.1", "--port", "0", "--web", str(port))
    assert done.returncode == 1
    assert_sentence(done.stderr)
    said = done.stderr.strip().splitlines()[-1]
    assert said == (
        f"pitchnet host: The --web port {port} is already in use on this computer (another "
        "table or program has it); choose another with --web, or give --web 0 to take a "
        "free one."
    )


@pytest.mark.parametrize(
    "error",
    [
        socket.gaierror(socket.EAI_NONAME, "Name or service not known"),
        socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution"),
        OSError(99, "Cannot assign requested address"),
        OSError(98, "Address already in use"),
        ConnectionRefusedError(111, "Connection refused"),
        OSError(113, "No route to host"),
        OSError(5, "Input/output error"),
    ],
)
def test_network_errors_read_as_sentences(error: OSError) -> None:
    text = describe_os_error(error, host="kitchen", port=7373)
    assert_sentence(text)


def test_ctrl_c_during_start_up_prints_no_traceback() -> None:
    """SIGINT at several moments of start-up (imports, binding, advertising)."""
    for delay in (0.3, 0.5, 0.8, 1.2):
        proc = subprocess.Popen(
            [sys.executable, "-m", "pitchnet", "host", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(delay)  # the moment of the interrupt, not synchronisation
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
        assert "Traceback" not in err, err
        assert "KeyboardInterrupt" not in err, err


def _journal_with_a_cut_off_hand(tmp: Path) -> str:
    from host.table import Table, TableOptions
    from pitchnet.cards import shuffled_deck
    from pitchnet.protocol import PROTOCOL_VERSION, Hello, Start

    table_id = "abc123def456"
    store = SqliteJournal(journal_path(table_id), create=True)
    store.set_meta(name="Den", options={"players": 3}, finished=False)
    table = Table(
        table_id, "Den", TableOptions(players=3), lambda key: shuffled_deck(), journal=store
    )
    dispatch.join(table, Hello(PROTOCOL_VERSION, "Ann"))
    dispatch.act(table, 0, Start(id=1))
    for _ in range(5):  # a few bids or plays, then the host "crashes"
        if not table.act_for_bot():
            break
    store.close()
    return table_id


def test_history_lists_the_tables_and_marks_a_cut_off_hand(tmp_path: Path) -> None:
    table_id = _journal_with_a_cut_off_hand(tmp_path)
    records = list_tables()
    assert [r.table_id for r in records] == [table_id]
    (line,) = list(table_lines(records))
    assert "'Den'" in line and "Ann" in line and "3 seats" in line
    assert "hand 1 was cut off" in line
    done = pitchnet("history")
    assert done.returncode == 0
    assert table_id in done.stdout and "unfinished" in done.stdout


def test_history_of_nothing_says_so() -> None:
    assert list(table_lines([])) == ["No tables have been hosted on this computer yet."]
    assert table_state([], {}, finished=True) == "finished"
    record = TableRecord("x", "x", Path("/nonexistent"), False, 0.0)
    assert record.finished is False


def test_history_into_a_closed_pipe_is_quiet(tmp_path: Path) -> None:
    table_id = _journal_with_a_cut_off_hand(tmp_path)
    history = subprocess.Popen(
        [sys.executable, "-m", "pitchnet", "history", table_id],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert history.stdout is not None
    history.stdout.close()  # `| head`: the reader is gone before the first line is written
    _, err = history.communicate(timeout=20)
    assert b"Traceback" not in err and b"BrokenPipe" not in err, err


def test_ctrl_c_on_a_host_mid_match_prints_the_resume_command() -> None:
    args = ["host", "--port", "0", "--players", "2", "--bots", "1", "--bot-delay", "5"]
    host = subprocess.Popen(
        [sys.executable, "-m", "pitchnet", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    bot = None
    try:
        assert host.stdout is not None
        lines = [host.stdout.readline(), host.stdout.readline()]
        table_id = lines[0].split("id ")[-1].strip()
        port = lines[1].rsplit(":", 1)[-1].strip()
        bot = subprocess.Popen(
            [sys.executable, "-m", "pitchnet", "bot", f"127.0.0.1:{port}", "--think", "30"],
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 20
        journal = journal_path(table_id)
        while time.monotonic() < deadline:  # polling the journal for the first deal
            store = SqliteJournal(journal, lock=False)
            try:
                if any(e.OP == "deal" for e in store.entries()):
                    break
            finally:
                store.close()
            time.sleep(0.1)
        host.send_signal(signal.SIGINT)
        out, err = host.communicate(timeout=20)
    finally:
        for proc in (host, bot):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
    assert "Traceback" not in err
    assert f"pitchnet host --resume {table_id} --port {port} --interface 127.0.0.1" in out
    if bot is not None:
        _, bot_err = bot.communicate(timeout=20)
        assert "Traceback" not in bot_err


def test_a_read_only_state_folder_is_named_as_such_not_as_the_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 27 item 7: the state folder on a read-only disk. Tests run as root here,
    whom file modes do not stop, so the disk's answer (EROFS) is made by hand at the
    first file the journal opens."""
    import builtins
    import errno

    import host.journal
    from pitchnet.cli import main

    monkeypatch.setenv("PITCHNET_STATE_DIR", str(tmp_path))
    (tmp_path / "tables").mkdir()

    def read_only(file: Any, *args: Any, **kwargs: Any) -> Any:
        if str(file).startswith(str(tmp_path)):
            raise OSError(errno.EROFS, "Read-only file system", str(file))
        return builtins.open(file, *args, **kwargs)

    monkeypatch.setattr(host.journal, "open", read_only, raising=False)
    assert main(["host", "--port", "0", "--interface", "127.0.0.1"]) == 1
    said = capsys.readouterr().err
    assert "read-only" in said and str(tmp_path / "tables") in said
    assert "network" not in said
    assert_sentence(said)


async def resumable_table(state_dir: Path) -> tuple[str, int]:
    """A table whose match started and whose host closed: its id and its port."""
    from host.server import HostConfig, HostServer
    from tests.netclient import RawClient, until_true

    config = HostConfig(
        port=0, interface="127.0.0.1", advertise=False, players=2, bots=1, state_dir=state_dir
    )
    first = HostServer(config)
    await first.start()
    try:
        player = await RawClient.connect(first)
        await player.hello("Ann")
        await until_true(lambda: first.table.matches_started == 1, "the match to start")
        await player.close()
    finally:
        await first.close()
    return first.table_id, first.port


def test_resume_honours_the_port_given_and_names_it_when_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 27 item 8: `--resume ID --port P` listens on P (not the journal's port), and
    when P is taken says "Port P is already in use" (it said "Port 0")."""
    import asyncio

    from host.main import config_from_args
    from host.server import HostServer
    from pitchnet.cli import build_parser, main

    monkeypatch.setenv("PITCHNET_STATE_DIR", str(tmp_path))
    table_id, old_port = asyncio.run(resumable_table(tmp_path))

    def resume_on(port: int) -> list[str]:
        return ["host", "--resume", table_id, "--port", str(port), "--interface", "127.0.0.1"]

    with socket.socket() as probe:  # a free port, other than the journal's
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert port != old_port
    config = config_from_args(build_parser().parse_args(resume_on(port)))
    config = dataclasses.replace(config, advertise=False)

    async def listening_port() -> int:
        server = HostServer(config)
        await server.start()
        try:
            return server.port
        finally:
            await server.close()

    assert asyncio.run(listening_port()) == port
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(resume_on(port)) == 1
        said = capsys.readouterr().err
        assert f"Port {port} is already in use" in said, said
        assert_sentence(said)
