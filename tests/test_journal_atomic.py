"""One change, one journal transaction; write failures; loss detection (issue 11, items
3, 4 and 5).

A seeded table is driven the way players and the referee drive it (humans bid and play
their first legal choice, say ready after every hand; the first human starts early with
bots) and every journal entry it writes is kept. Then the same run is made again with a
journal told to fail before its Nth entry, for every N: the failing change must leave
the table exactly as before it, and a host "killed" there and resumed from what its
journal holds must, once the players resend, end exactly as the run without the kill.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from host import dispatch
from host.entries import BotSeated, Entry, HandDealt
from host.journal import (
    CHECKPOINT_EVERY,
    CHECKPOINT_SECONDS,
    JournalError,
    JournalWriteError,
    SqliteJournal,
)
from host.table import Table, TableOptions
from host.tables import resume_table
from pitchnet.cards import shuffled_deck
from pitchnet.protocol import PROTOCOL_VERSION, BidMsg, Hello, PlayMsg, Ready, Start
from pitchnet.rules import Phase
from tests.table_doubles import hello_at


class FailingJournal:
    """In memory; fails (writing nothing of that change) before its `fail_before`-th
    entry, once, as a full disk or a killed host would."""

    def __init__(self, fail_before: int | None = None) -> None:
        self.written: list[Entry] = []
        self.fail_before = fail_before
        self.count = 0

    def record_all(self, entries: list[Entry]) -> None:
        if self.fail_before is not None and self.count + len(entries) >= self.fail_before:
            self.fail_before = None
            raise JournalWriteError("disk full (test)")
        self.count += len(entries)
        self.written.extend(entries)

    def entries(self) -> list[Entry]:
        return list(self.written)


def deck(key: str) -> list[Any]:
    return shuffled_deck(random.Random(f"atomic:{key}"))


OPTIONS = {"start": TableOptions(players=3), "full": TableOptions(players=2)}
HANDS = 3


def make_table(kind: str, journal: Any) -> Table:
    return Table("t1", "Test", OPTIONS[kind], deal_deck=deck, journal=journal)


def next_op(table: Table, kind: str, names: list[str]) -> Any:
    """The next thing a player or the referee does, decided from the table alone (so a
    resumed table is driven on the same way), or None when the run is over."""
    humans = [i for i, s in enumerate(table.seats) if s.kind == "human"]
    if table.state == "lobby":
        if len(humans) < 2:
            return ("join", names[len(humans)])
        return ("handle", humans[0], Start(id=table.seats[humans[0]].last_id + 1))
    match = table.match
    assert match is not None
    if match.hand_number > HANDS or match.phase is Phase.MATCH_OVER:
        return None
    if table.bot_to_act() is not None:
        return ("bot",)
    if match.phase in (Phase.HAND_OVER,):
        seat = next(i for i in humans if not table.seats[i].ready)
        return ("handle", seat, Ready(id=table.seats[seat].last_id + 1))
    turn = match.turn
    assert turn is not None
    from pitchnet.views import seat_view

    view = seat_view(match, turn)
    action_id = table.seats[turn].last_id + 1
    if view.legal_bids:
        return ("handle", turn, BidMsg(id=action_id, bid=view.legal_bids[-1]))
    return ("handle", turn, PlayMsg(id=action_id, card=str(view.legal_plays[0])))


def apply(table: Table, op: Any) -> None:
    if op[0] == "join":
        dispatch.join(table, Hello(version=PROTOCOL_VERSION, name=op[1]))
    elif op[0] == "bot":
        table.act_for_bot()
    else:
        dispatch.act(table, op[1], op[2])


def drive(table: Table, kind: str) -> None:
    names = ["Ann", "Ben", "Cat"]
    while (op := next_op(table, kind, names)) is not None:
        apply(table, op)


def facts(table: Table, written: list[Entry]) -> tuple[Any, ...]:
    """What must come out the same: every entry (tokens aside: they are random) and the
    table's public state."""
    entries = [{k: v for k, v in e.to_json().items() if k != "token"} for e in written]
    match = table.match
    assert match is not None
    return (
        entries,
        table.state,
        match.hand_number,
        match.phase,
        list(match.scores),
        [(s.name, s.kind, s.ready, s.last_id) for s in table.seats],
    )


def resumed(kind: str, journal: FailingJournal) -> Table:
    """A host killed now and started again with --resume: the table rebuilt from what
    its journal holds, the checks re-run, and every human back with their token."""
    table = Table("t1", "Test", OPTIONS[kind], deal_deck=deck, journal=journal, seat_bots=False)
    table.replay(journal.entries())
    table.settle()
    for seat in table.seats:
        if seat.kind == "human":
            dispatch.join(table, hello_at(table, "x", token=seat.token))
    return table


def snapshot(table: Table) -> Any:
    match = table.match
    hand = (
        None if match is None else (match.hand_number, match.phase, match.turn, list(match.scores))
    )
    return (
        table.state,
        hand,
        [(s.name, s.kind, s.connected, s.ready, s.last_id, s.token) for s in table.seats],
        len(table.events),
    )


@pytest.mark.parametrize("kind", ["start", "full"])
def test_every_kill_point_ends_exactly_as_the_run_without_the_kill(kind: str) -> None:
    clean = FailingJournal()
    table = make_table(kind, clean)
    drive(table, kind)
    want = facts(table, clean.written)
    total = len(clean.written)
    assert total > 40
    multi = 0
    for n in range(1, total + 1):
        journal = FailingJournal(fail_before=n)
        table = make_table(kind, journal)
        names = ["Ann", "Ben", "Cat"]
        while (op := next_op(table, kind, names)) is not None:
            before = snapshot(table)
            try:
                apply(table, op)
            except JournalError:
                assert snapshot(table) == before, f"kill point {n}: half applied"
                multi += journal.count + 1 < n  # the failing entry was not a change's first
                table = resumed(kind, journal)
        assert facts(table, journal.written) == want, f"kill point {n}"
    assert multi > 0  # some kill points fell between the entries of one change


@pytest.mark.parametrize("cut", ["start", "last join", "ready"])
def test_a_journal_cut_inside_a_change_resumes_and_finishes_it(cut: str) -> None:
    """Journals written before changes were one transaction can end inside one; the
    resume re-runs what its last entries would have triggered."""
    kind = "full" if cut == "last join" else "start"
    clean = FailingJournal()
    table = make_table(kind, clean)
    drive(table, kind)
    want = facts(table, clean.written)
    ops = [e.OP for e in clean.written]
    if cut == "start":
        at = ops.index("start") + 1
    elif cut == "last join":
        at = ops.index("match")
    else:
        at = ops.index("ready", ops.index("ready") + 1) + 1  # the hand's last ready
        assert ops[at] == "deal"
    journal = FailingJournal()
    journal.written = clean.written[:at]
    journal.count = at
    table = resumed(kind, journal)
    assert table.state == "playing" and table.match is not None
    assert table.match.phase is Phase.BIDDING  # dealt, not stuck in the lobby or "Dealing..."
    drive(table, kind)
    assert facts(table, journal.written) == want


# ---- a real journal on a full disk ------------------------------------------------------------


def full_disk(journal: SqliteJournal, full: bool) -> None:
    """SQLite's own limit on the file's pages: a write past it fails as a full disk does
    (sqlite3.OperationalError: database or disk is full)."""
    journal.checkpoint()
    pages = journal.db.execute("PRAGMA page_count").fetchone()[0]
    journal.db.execute(f"PRAGMA max_page_count={pages if full else 1_000_000}")


def test_a_full_disk_refuses_the_move_changes_nothing_and_the_table_goes_on_after(
    tmp_path: Path,
) -> None:
    clean = FailingJournal()
    table = make_table("start", clean)
    drive(table, "start")
    want = facts(table, clean.written)

    journal = SqliteJournal(tmp_path / "t1.sqlite", create=True)
    table = make_table("start", journal)
    names = ["Ann", "Ben", "Cat"]
    for _ in range(6):
        apply(table, next_op(table, "start", names))
    journal.db.execute("CREATE TABLE pad (x TEXT)")
    full_disk(journal, True)
    for size in (4000, 400, 40, 4):  # fill every page the file may have
        with pytest.raises(sqlite3.OperationalError, match="full"):
            for _ in range(100_000):
                journal.db.execute("INSERT INTO pad VALUES (?)", ("x" * size,))
    refused = 0
    while (op := next_op(table, "start", names)) is not None:
        before, written = snapshot(table), len(journal.entries())
        try:
            apply(table, op)
        except JournalWriteError as exc:
            assert "full" in str(exc)
            assert snapshot(table) == before  # nothing half-applied
            assert len(journal.entries()) == written
            refused += 1
            if refused == 3:  # the same move, refused three times; then the disk frees up
                full_disk(journal, False)
    assert refused == 3
    assert facts(table, journal.entries()) == want
    journal.close()


def test_set_meta_on_a_full_disk_is_a_journal_error_not_a_sqlite_one(tmp_path: Path) -> None:
    journal = SqliteJournal(tmp_path / "t2.sqlite", create=True)
    journal.db.close()
    journal.db = sqlite3.connect(":memory:")  # no meta table: every write fails
    with pytest.raises(JournalWriteError):
        journal.set_meta(port=1)
    with pytest.raises(JournalWriteError):
        journal.record_all([BotSeated(0, "Bot 1")])


# ---- loss: the checksum chain and the mark ------------------------------------------------------


def hosted_journal(state_dir: Path) -> str:
    """A journal of a table that played 3 hands; returns its table id."""
    from host.tables import new_table

    table, journal = new_table(TableOptions(players=3), "Test", 5, state_dir)
    assert journal is not None
    drive(table, "start")
    table_id = table.id
    journal.close()
    return table_id


class SteppingClock:
    """A journal's clock that moves on `step` seconds at every reading."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def played_with_a_real_journal(
    path: Path, step: float
) -> tuple[SqliteJournal, list[int], list[int]]:
    """A three-seat table played through (`drive`) on a real journal whose clock moves
    `step` seconds at each reading. Returns the journal (still open), how many entries
    it held at each checkpoint, and the entry number of each deal."""
    journal = SqliteJournal(path, create=True, clock=SteppingClock(step))
    checkpoints: list[int] = []
    checkpoint = journal.checkpoint

    def counted() -> None:
        checkpoints.append(len(journal.entries()))
        checkpoint()

    journal.checkpoint = counted  # type: ignore[method-assign]
    drive(make_table("start", journal), "start")
    deals = [n for n, e in enumerate(journal.entries(), 1) if isinstance(e, HandDealt)]
    return journal, checkpoints, deals


def test_at_the_pace_of_people_every_deal_puts_the_game_into_the_main_file(
    tmp_path: Path,
) -> None:
    journal, checkpoints, deals = played_with_a_real_journal(tmp_path / "t.sqlite", step=60.0)
    assert len(deals) >= 3
    # Between one deal and the next the WAL was checkpointed: a power cut or a damaged
    # -wal file loses at most the hand in progress.
    for dealt, next_dealt in zip(deals, [*deals[1:], 10**9], strict=True):
        assert any(dealt <= at < next_dealt for at in checkpoints), (dealt, checkpoints)
    # While the table is open the game is in the main file, not all in the -wal file
    # with a 1 KiB main file.
    path = journal.path
    assert path.stat().st_size >= 8 * 1024
    journal.close()
    wal = path.with_name(path.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_a_table_dealing_many_hands_a_second_checkpoints_every_few_seconds_not_every_deal(
    tmp_path: Path,
) -> None:
    journal, checkpoints, deals = played_with_a_real_journal(tmp_path / "t.sqlite", step=0.001)
    # The first deal checkpoints; the next ones come within CHECKPOINT_SECONDS of it, so
    # only every CHECKPOINT_EVERY-th commit does.
    assert 0.001 * 4 * len(deals) < CHECKPOINT_SECONDS
    assert checkpoints[0] == deals[0]
    assert len(checkpoints) == 1 + journal._commits // CHECKPOINT_EVERY < len(deals)
    journal.close()


def test_lost_last_entries_are_found_and_told_and_the_table_resumes_from_what_is_left(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    table_id = hosted_journal(tmp_path)
    path = tmp_path / "tables" / f"{table_id}.sqlite"
    db = sqlite3.connect(path)  # what a cut -wal file does: the last commits vanish
    total = db.execute("SELECT count(*) FROM entries").fetchone()[0]
    db.execute("DELETE FROM entries WHERE seq > ?", (total - 7,))
    db.commit()
    db.close()
    with caplog.at_level("WARNING", logger="pitchnet.host"):
        table, journal, _ = resume_table(table_id, tmp_path)
    assert any("lost its last 7 entries" in r.getMessage() for r in caplog.records)
    assert table.loss is not None and "lost part of this game's record" in table.loss
    journal.close()
    again, journal, _ = resume_table(table_id, tmp_path)  # the mark now says what is there
    assert again.loss is None
    journal.close()


def test_a_damaged_entry_breaks_the_chain_and_the_table_resumes_from_before_it(
    tmp_path: Path,
) -> None:
    table_id = hosted_journal(tmp_path)
    path = tmp_path / "tables" / f"{table_id}.sqlite"
    db = sqlite3.connect(path)
    total = db.execute("SELECT count(*) FROM entries").fetchone()[0]
    seq, text = db.execute(
        'SELECT seq, entry FROM entries WHERE entry LIKE \'%"op":"bid"%\' ORDER BY seq DESC'
    ).fetchone()
    db.execute("UPDATE entries SET entry = ? WHERE seq = ?", (text.replace("bid", "bid "), seq))
    db.commit()
    db.close()
    table, journal, _ = resume_table(table_id, tmp_path)
    assert table.loss is not None
    assert len(journal.entries()) == seq - 1 < total
    assert list(tmp_path.glob("tables/*.damaged-*.sqlite"))  # the damaged journal is kept
    journal.close()
