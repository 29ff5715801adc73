"""Damaged journals read back with a sentence, never a traceback (issue 11, item 9)."""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path

import pytest

from host.history import main as history_main
from host.journal import JournalError, SqliteJournal, journal_path
from host.table import TableOptions
from host.tables import find_resumable, new_table


def a_journal(state_dir: Path) -> Path:
    table, journal = new_table(TableOptions(players=2, bots=1), "Test", 3, state_dir)
    assert journal is not None
    from pitchnet.protocol import PROTOCOL_VERSION, Hello

    table.join(Hello(version=PROTOCOL_VERSION, name="Ann"))
    path = journal.path
    journal.close()
    return path


@pytest.mark.parametrize(
    "entry",
    [
        {"op": "bid", "seat": 99, "value": 1},
        {"op": "bid"},
        {"op": "play", "seat": 0, "value": "ZZ"},
        {"op": "deal", "deck": ["AS"]},
        {"op": "join", "seat": "x", "name": 3},
        {"op": "match"},
    ],
)
def test_history_of_a_tampered_journal_is_a_sentence_not_a_traceback(
    entry: dict[str, object],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PITCHNET_STATE_DIR", str(tmp_path / "state"))
    from pitchnet.dirs import state_dir

    path = a_journal(state_dir())
    db = sqlite3.connect(path)
    db.execute("INSERT INTO entries (at, entry) VALUES (0, ?)", (json.dumps(entry),))
    db.commit()
    db.close()
    code = history_main(argparse.Namespace(table_id=path.stem))
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("pitchnet history: ")
    assert "Traceback" not in err


def test_resume_with_no_id_says_why_a_damaged_journal_was_skipped(tmp_path: Path) -> None:
    path = a_journal(tmp_path)
    SqliteJournal(path).close()
    path.write_bytes(b"not a database at all" * 100)
    with pytest.raises(JournalError, match=r"skipped as unreadable: .*not a pitchnet journal"):
        find_resumable("", tmp_path)
    assert journal_path(path.stem, tmp_path) == path
