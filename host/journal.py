"""The host's write-ahead journal: every accepted change of a table, in SQLite (WAL).

An entry is written (and committed) before its effect is sent to anyone, so a
host that crashes and restarts with `--resume` rebuilds exactly the table its
players last saw. Entries are `host.entries` classes, stored as small JSON maps
(`{"op": "bid", "seat": 1, ...}`); `host.table.Table.replay` gives them meaning. The
file holds the deck orders and the seat tokens, so it stays on the host: it is
created readable by its owner only.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import math
import os
import re
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from host.entries import Entry, EntryError, HandDealt, entry_from_json
from pitchnet.dirs import state_dir

SCHEMA_VERSION = 1


def _json_encoder() -> Callable[[Any], str]:
    """An entry's JSON text, as `JSONEncoder(separators=(",", ":")).encode` writes it.
    On CPython, by the C encoder that `encode` would otherwise make afresh for every
    entry (this runs before every broadcast)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return json.JSONEncoder(separators=(",", ":")).encode
    ascii_text = json.encoder.encode_basestring_ascii
    encode = make(None, None, ascii_text, None, ":", ",", False, False, True)
    return lambda value: "".join(encode(value, 0))


_ENCODE = _json_encoder()
_INSERT = "INSERT INTO entries (seq, at, entry, chain) VALUES (?, ?, ?, ?)"


class JournalError(Exception):
    """A journal that cannot be used: missing, corrupt, or written by a newer pitchnet."""


class JournalInUse(JournalError):
    """Another host holds the journal's lock: its table is being hosted right now."""

    def __init__(self, table_id: str) -> None:
        super().__init__(f"table {table_id} is being hosted already (its journal is in use)")


class JournalDamaged(JournalError):
    """The journal's file is damaged (SQLite cannot read it whole)."""


class JournalWriteError(JournalError):
    """A write failed (a full disk, a file gone read-only): nothing of it was written."""


def unwritable(folder: Path, exc: OSError | sqlite3.Error) -> JournalError:
    """A journal that cannot be kept in `folder`, as a sentence that names the folder
    and why (a read-only folder is not a network failure)."""
    code = getattr(exc, "errno", None)
    fix = "set PITCHNET_STATE_DIR to a folder you can write, or free it."
    if code == errno.EROFS or "readonly" in str(exc):
        why = f"The state folder {folder} is read-only (its disk is mounted read-only)"
    elif code in (errno.EACCES, errno.EPERM):
        why = f"The state folder {folder} is read-only for you (you may not write there)"
    elif code in (errno.ENOSPC, errno.EDQUOT):
        why = f"The disk holding the state folder {folder} is full"
    else:
        reason = (getattr(exc, "strerror", None) or str(exc) or "unknown").rstrip(".")
        why = f"The state folder {folder} cannot be written ({reason[:1].lower()}{reason[1:]})"
    return JournalError(f"{why}, so the table's journal cannot be kept; {fix}")


CHECKPOINT_EVERY = 1000
"""Commits between WAL checkpoints (one is also made at deals, see `CHECKPOINT_SECONDS`,
and on close), so the main file holds the game and the `-wal` file only its last changes."""

CHECKPOINT_SECONDS = 5.0
"""A deal checkpoints the WAL when the last checkpoint is at least this old. With
`synchronous=NORMAL` a checkpoint is when the game reaches the disk (it syncs the WAL
and the main file), so what a power cut or a damaged `-wal` file can lose is what came
after the last one. At the pace of people every deal checkpoints (a hand takes minutes):
the loss is at most the hand in progress. A table of bots dealing several hands a second
checkpoints every few seconds instead of at each deal: at every deal, their two syncs
came to about 15 µs of CPU a move at bot speed (benchmarks/host_cost.py)."""


def chain_link(previous: str, text: str) -> str:
    """The checksum chain: each entry's link covers its text and every entry before it,
    so a changed, dropped or reordered entry breaks every link from there on."""
    return hashlib.sha256(f"{previous}\n{text}".encode()).hexdigest()[:32]


def tables_dir(base: Path | None = None) -> Path:
    return (base or state_dir()) / "tables"


def journal_path(table_id: str, base: Path | None = None) -> Path:
    if not table_id or not all(ch.isalnum() or ch in "-_" for ch in table_id):
        raise JournalError(f"{table_id!r} is not a table id")
    return tables_dir(base) / f"{table_id}.sqlite"


@dataclass(frozen=True)
class TableRecord:
    """What `pitchnet play` and `--resume` need to know about a journal on disk."""

    table_id: str
    name: str
    path: Path
    finished: bool
    updated: float
    live: bool = False
    """Being hosted right now (another process holds its journal): not to resume."""


class SqliteJournal:
    """Append-only log of one table. `record` commits before it returns."""

    def __init__(
        self,
        path: Path,
        *,
        create: bool = False,
        lock: bool = True,
        repair: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`repair`: a damaged main file is salvaged (host/salvage.py: the damaged file
        kept beside it, the intact entries written to a fresh one) rather than refused."""
        self.path = path
        if not create and not path.exists():
            raise JournalError(f"no journal at {path}")
        try:
            self._lock = _hold_lock(path) if lock else []
            if create:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
                os.close(fd)
        except OSError as exc:
            raise unwritable(path.parent, exc) from None
        self.damage: str | None = None
        """Set on opening if entries were found lost or damaged: a sentence for the
        operator (`entries` then returns only what is intact)."""
        self._chain = ""
        self._last_seq = 0
        self._intact_until: int | None = None
        self._commits = 0
        self._clock = clock
        self._checkpointed_at = -math.inf
        self._mark = path.with_name(path.name + ".mark")
        self._mark_fd: int | None = None
        self._meta_written: dict[str, str] = {}
        """What `set_meta` has written, key by key, as stored."""
        try:
            self._open(create)
        except JournalDamaged:
            if not repair:
                raise
            self._close_db()
            from host.salvage import salvage

            saved = salvage(path, path)
            if saved is None:
                raise
            self._open(False)
            self.damage = (
                f"the journal's file was damaged (a copy is kept as {saved.kept.name}); "
                f"the table resumes from the {saved.entries} entries before the damage"
            )

    def _open(self, create: bool) -> None:
        path = self.path
        try:
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            if create:
                # Small pages: each entry commits alone, and a commit writes whole pages.
                self.db.execute("PRAGMA page_size=1024")
            self.db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode survives a crash of the process (what --resume is for);
            # only a power cut can lose the last entries, never corrupt the file.
            self.db.execute("PRAGMA synchronous=NORMAL")
            if create:
                self._create()
            self._check()
            self._verify()
        except sqlite3.OperationalError as exc:
            if "readonly" in str(exc) or "unable to open" in str(exc):
                raise unwritable(path.parent, exc) from None
            raise JournalDamaged(f"{path} is not a pitchnet journal ({exc})") from None
        except sqlite3.DatabaseError as exc:
            raise JournalDamaged(f"{path} is not a pitchnet journal ({exc})") from None

    def _close_db(self) -> None:
        db = getattr(self, "db", None)
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                db.close()

    def _create(self) -> None:
        self.db.executescript(
            """
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS entries (
                seq INTEGER PRIMARY KEY,  -- rising: entries are only ever appended
                at REAL NOT NULL,
                entry TEXT NOT NULL,
                chain TEXT  -- chain_link(previous entry's link, entry)
            );
            """
        )
        self.db.execute(
            "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
        )

    def _check(self) -> None:
        if self.db.execute("PRAGMA quick_check").fetchone() != ("ok",):
            raise JournalDamaged(f"{self.path} is damaged (integrity check failed)")
        names = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master")}
        if not {"meta", "entries"} <= names:
            raise JournalError(f"{self.path} is not a pitchnet journal")
        row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        version = int(row[0]) if row and row[0].isdigit() else None
        if version is None:
            raise JournalError(f"{self.path} has no schema version")
        if version > SCHEMA_VERSION:
            raise JournalError(
                f"{self.path} was written by a newer pitchnet (journal version {version}, "
                f"this one reads up to {SCHEMA_VERSION}); upgrade pitchnet to resume it"
            )

    def _verify(self) -> None:
        """Follow the checksum chain and compare its end with the mark file (written
        beside the journal after every commit). A broken link means damaged entries: what
        is before it is intact. A mark further on than the journal means the journal
        lost its last entries (a damaged or cut `-wal` file makes SQLite roll back to
        the last commit it can read, silently)."""
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(entries)")}
        if "chain" not in columns:  # written before the chain existed
            self.db.execute("ALTER TABLE entries ADD COLUMN chain TEXT")
        link, last = "", 0
        rows = self.db.execute("SELECT seq, entry, chain FROM entries ORDER BY seq")
        for seq, text, stored in rows:
            expected = chain_link(link, text)
            if stored is not None and stored != expected:
                self._intact_until = seq
                self.damage = (
                    f"the journal's entry {seq} and those after it are damaged; the table "
                    f"resumes from the {last} entries before it"
                )
                break
            link, last = expected, seq
        self._chain, self._last_seq = link, last
        mark = self._read_mark()
        if mark is not None and self.damage is None:
            mark_seq, mark_link = mark
            if mark_seq > last:
                self.damage = (
                    f"the journal lost its last {mark_seq - last} entries (it ends at entry "
                    f"{last}, its mark says {mark_seq} were written); the table resumes "
                    "from what is left"
                )
            elif mark_seq == last and mark_link != link:
                self.damage = "the journal's last entries differ from what was written"

    def _read_mark(self) -> tuple[int, str] | None:
        try:
            words = self._mark.read_text("ascii").split()
            return int(words[0]), words[1]
        except (OSError, ValueError, IndexError):
            return None

    def cut_damage(self) -> None:
        """Resume from what is intact: keep a copy of the journal as it is, then drop the
        entries from the first damaged one on, so new entries chain on from the intact
        ones (the next resume would otherwise stop at the same damage)."""
        if self._intact_until is not None:
            copy = self.path.with_name(f"{self.path.stem}.damaged-{int(time.time())}.sqlite")
            self.db.execute("VACUUM INTO ?", (str(copy),))
            os.chmod(copy, 0o600)
            self.db.execute("DELETE FROM entries WHERE seq >= ?", (self._intact_until,))
            self._intact_until = None
        self._write_mark()

    # ---- writing -----------------------------------------------------------------------------

    def record(self, entry: Entry) -> None:
        self.record_all([entry])

    def record_all(self, entries: list[Entry]) -> None:
        """Append one change's entries as ONE transaction, committed when this returns:
        all of them or, if the write fails, none (JournalWriteError). Most changes are a
        single entry: that is one INSERT, which SQLite commits atomically on its own, so
        it skips the two extra statements of an explicit transaction (this runs before
        every broadcast)."""
        now, link, seq = time.time(), self._chain, self._last_seq
        rows, dealt = [], False
        for entry in entries:
            text = _ENCODE(entry.to_json())
            link = chain_link(link, text)
            seq += 1
            rows.append((seq, now, text, link))
            dealt = dealt or type(entry) is HandDealt
        db = self.db
        try:
            if len(rows) == 1:
                db.execute(_INSERT, rows[0])
            else:
                db.execute("BEGIN IMMEDIATE")
                try:
                    db.executemany(_INSERT, rows)
                    db.execute("COMMIT")
                except BaseException:
                    if db.in_transaction:  # SQLite rolls back by itself on a full disk
                        db.execute("ROLLBACK")
                    raise
        except sqlite3.Error as exc:
            raise JournalWriteError(f"cannot write {self.path.name}: {exc}") from None
        self._chain, self._last_seq = link, seq
        self._commits += 1
        self._write_mark()
        if self._commits % CHECKPOINT_EVERY == 0 or (
            dealt and self._clock() - self._checkpointed_at >= CHECKPOINT_SECONDS
        ):
            self.checkpoint()

    def _write_mark(self) -> None:
        """The mark: how far the journal got, in a file of its own (not fsynced: it is
        as durable as the journal's own commits with synchronous=NORMAL). Its file stays
        open for the journal's life: one `pwrite` per change, not an open and a close."""
        text = f"{self._last_seq} {self._chain}\n".encode()
        try:
            if self._mark_fd is None:
                self._mark_fd = os.open(self._mark, os.O_WRONLY | os.O_CREAT, 0o600)
            os.pwrite(self._mark_fd, text.ljust(64), 0)
        except OSError:
            pass  # without a mark, loss is found by the chain and the clients only

    def checkpoint(self) -> None:
        """Move what the WAL holds into the main file (PASSIVE: never waits)."""
        try:
            self.db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error:
            return  # tried again at the next deal, and on close
        self._checkpointed_at = self._clock()

    def set_meta(self, **values: Any) -> None:
        """Store these facts about the table. A value this journal has already written is
        not written again: the referee says whether the table is finished at every deal,
        and it changes only at a match's end."""
        try:
            for key, value in values.items():
                text = json.dumps(value)
                if self._meta_written.get(key) != text:
                    self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, text))
                    self._meta_written[key] = text
        except sqlite3.Error as exc:
            raise JournalWriteError(f"cannot write {self.path.name}: {exc}") from None

    # ---- reading -----------------------------------------------------------------------------

    def meta(self, key: str, default: Any = None) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        if row is None:
            return default
        try:
            return json.loads(row[0])
        except ValueError:
            return row[0]

    def entries(self) -> list[Entry]:
        """Every entry in order. Raises JournalError if any entry is unreadable, so a
        damaged journal is refused whole rather than half-loaded."""
        result = []
        query = "SELECT seq, entry FROM entries WHERE seq < ? ORDER BY seq"
        until = self._intact_until if self._intact_until is not None else 2**62
        for seq, text in self.db.execute(query, (until,)):
            try:
                result.append(entry_from_json(json.loads(text)))
            except ValueError as exc:  # EntryError, or JSON that does not parse
                reason = exc if isinstance(exc, EntryError) else "not readable"
                raise JournalError(
                    f"{self.path} cannot be replayed: entry {seq}: {reason}"
                ) from None
        return result

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.close()
        if self._mark_fd is not None:
            os.close(self._mark_fd)
            self._mark_fd = None
        for handle in self._lock:
            handle.close()  # closing the file releases the lock
        self._lock = []


def _hold_lock(path: Path) -> list[IO[bytes]]:
    """One host per journal: a second `--resume` of a table that is still being hosted
    would write a second history into the same file. And one host per table id on this
    laptop: a copy of the journal in another state folder (PITCHNET_STATE_DIR) would run
    the same table twice, so the id is locked too, in the temporary folder every state
    folder shares. The locks last while their files are open."""
    try:
        import fcntl
    except ImportError:  # not on this platform: no guard, as before
        return []
    path.parent.mkdir(parents=True, exist_ok=True)
    files = [path.with_name(path.name + ".lock")]
    if re.fullmatch(r"[0-9a-f]{12}", path.stem):  # an id pitchnet made, not a test's name
        shared = Path(tempfile.gettempdir()) / f"pitchnet-{os.getuid()}-tables"
        shared.mkdir(mode=0o700, exist_ok=True)
        files.append(shared / f"{path.stem}.lock")
    handles: list[IO[bytes]] = []
    for lock_file in files:
        handle = open(lock_file, "ab")  # noqa: SIM115 - held open
        handles.append(handle)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            for held in handles:
                held.close()
            raise JournalInUse(path.stem) from None
    return handles


def list_tables(base: Path | None = None, skipped: list[str] | None = None) -> list[TableRecord]:
    """Journals on disk, most recently changed first, those being hosted right now too
    (read without their lock, marked `live`); unreadable ones are left out (and, given
    `skipped`, each one's reason is added to it)."""
    records = []
    for path in sorted(tables_dir(base).glob("*.sqlite")):
        if ".damaged-" in path.name:
            continue  # a copy kept when a resume found damage
        live = False
        try:
            try:
                journal = SqliteJournal(path)
            except JournalInUse:
                live, journal = True, SqliteJournal(path, lock=False)  # reading only
        except JournalError as exc:
            if skipped is not None:
                skipped.append(str(exc))
            continue
        try:
            records.append(
                TableRecord(
                    table_id=path.stem,
                    name=str(journal.meta("name", path.stem)),
                    path=path,
                    finished=bool(journal.meta("finished", False)),
                    updated=path.stat().st_mtime,
                    live=live,
                )
            )
        finally:
            journal.close()
    return sorted(records, key=lambda r: r.updated, reverse=True)


def unfinished_tables(
    base: Path | None = None, skipped: list[str] | None = None
) -> Iterator[TableRecord]:
    """The journals a host could resume: not finished, and not being hosted now."""
    records = []
    for record in list_tables(base, skipped):
        if record.live and skipped is not None:
            skipped.append(str(JournalInUse(record.table_id)))
        if not record.finished and not record.live:
            records.append(record)
    return iter(records)
