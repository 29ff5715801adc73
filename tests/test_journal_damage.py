"""Damaged journals read back with a sentence, never a traceback (issue 11, item 9)."""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path

import pytest

from host import dispatch
from host.history import main as history_main
from host.journal import JournalError, SqliteJournal, journal_path
from host.table import TableOptions
from host.tables import find_resumable, new_table


def a_journal(state_dir: Path) -> Path:
    table, journal = new_table(TableOptions(players=2, bots=1), "Test", 3, state_dir)
    assert journal is not None
    from pitchnet.protocol import PROTOCOL_VERSION, Hello

    dispatch.join(table, Hello(version=PROTOCOL_VERSION, name="Ann"))
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


def journal_of_hands(state_dir: Path, hands: int = 20) -> tuple[Path, int]:
    """A table's journal with `hands` hands played (Ann and a bot, to 21): its path and
    how many entries it holds."""
    from pitchnet.protocol import PROTOCOL_VERSION, BidMsg, Hello, PlayMsg, Ready
    from pitchnet.rules import Phase
    from pitchnet.views import seat_view

    table, journal = new_table(TableOptions(players=2, bots=1, target=21), "Test", 3, state_dir)
    assert journal is not None
    dispatch.join(table, Hello(version=PROTOCOL_VERSION, name="Ann"))
    while (match := table.match) is not None and match.hand_number <= hands:
        assert match.phase is not Phase.MATCH_OVER
        if table.bot_to_act() is not None:
            table.act_for_bot()
            continue
        if match.phase is Phase.HAND_OVER:
            dispatch.act(table, 1, Ready(id=table.seats[1].last_id + 1))
            continue
        assert match.turn == 1
        view, next_id = seat_view(match, 1), table.seats[1].last_id + 1
        if view.legal_bids:
            dispatch.act(table, 1, BidMsg(id=next_id, bid=view.legal_bids[-1]))
        else:
            dispatch.act(table, 1, PlayMsg(id=next_id, card=str(view.legal_plays[0])))
    entries = len(journal.entries())
    journal.close()
    return journal.path, entries


def damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    if how == "cut":
        del data[middle:]
    else:  # 64 bytes flipped mid-file
        data[middle : middle + 64] = bytes(b ^ 0xFF for b in data[middle : middle + 64])
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["cut", "flipped"])
def test_a_damaged_main_file_resumes_from_what_is_intact_and_is_kept(
    how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 27 item 6: the main file cut in half, or 64 bytes of it flipped: it was
    refused whole (0 of 20 hands); now the table resumes from the intact entries, the
    damaged file is kept beside it, and `history` prints up to the damage."""
    from host.entries import HandDealt
    from host.tables import resume_table

    monkeypatch.setenv("PITCHNET_STATE_DIR", str(tmp_path))
    path, written = journal_of_hands(tmp_path)
    damage(path, how)
    code = history_main(argparse.Namespace(table_id=path.stem))
    printed = capsys.readouterr().out
    assert code == 0 and "damaged" in printed and printed.count("Hand ") >= 5
    table, journal, _ = resume_table(path.stem, tmp_path)
    try:
        kept = journal.entries()
        hands = sum(isinstance(e, HandDealt) for e in kept)
        assert 0 < len(kept) < written and hands >= 5
        assert journal.damage is not None and "damaged" in journal.damage
        assert table.loss is not None  # every player is told
        assert list(path.parent.glob(f"{path.stem}.damaged-*.sqlite"))
    finally:
        journal.close()


def test_a_journal_whose_table_id_is_not_its_files_is_refused_with_a_sentence(
    tmp_path: Path,
) -> None:
    """Issue 27 item 6: another table's journal under this file's name is refused, so
    two hosts never run one table id."""
    from host.tables import resume_table

    path = a_journal(tmp_path)
    other = path.with_name("0123456789ab.sqlite")
    path.rename(other)
    with pytest.raises(JournalError, match=f"holds table {path.stem}, not 0123456789ab"):
        resume_table("0123456789ab", tmp_path)


def test_two_state_folders_cannot_host_one_table_id_at_once(tmp_path: Path) -> None:
    """Issue 27 item 6: a copy of a hosted table's journal in another state folder is
    refused while the table is hosted (the id is locked for the whole laptop), and taken
    once it is not."""
    from host.journal import JournalInUse

    table, journal = new_table(TableOptions(players=2, bots=1), "Test", 3, tmp_path / "a")
    assert journal is not None
    copy = journal_path(table.id, tmp_path / "b")
    copy.parent.mkdir(parents=True)
    journal.db.execute("VACUUM INTO ?", (str(copy),))  # the whole table, WAL included
    with pytest.raises(JournalInUse, match=table.id):
        SqliteJournal(copy)
    journal.close()
    SqliteJournal(copy).close()
