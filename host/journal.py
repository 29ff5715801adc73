"""The host's write-ahead journal: every accepted change of a table, in SQLite (WAL).

An entry is written (and committed) before its effect is sent to anyone, so a
host that crashes and restarts with `--resume` rebuilds exactly the table its
players last saw. Entries are `host.entries` classes, stored as small JSON maps
(`{"op": "bid", "seat": 1, ...}`); `host.table.Table.replay` gives them meaning. The
file holds the deck orders and the seat tokens, so it stays on the host: it is
created readable by its owner only.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from host.entries import Entry, EntryError, entry_from_json
from pitchnet.dirs import state_dir

SCHEMA_VERSION = 1
_ENCODE = json.JSONEncoder(separators=(",", ":")).encode


class JournalError(Exception):
    """A journal that cannot be used: missing, corrupt, or written by a newer pitchnet."""


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


class SqliteJournal:
    """Append-only log of one table. `record` commits before it returns."""

    def __init__(self, path: Path, *, create: bool = False, lock: bool = True) -> None:
        self.path = path
        if not create and not path.exists():
            raise JournalError(f"no journal at {path}")
        self._lock = _hold_lock(path) if lock else None
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
            os.close(fd)
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
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{path} is not a pitchnet journal ({exc})") from None

    def _create(self) -> None:
        self.db.executescript(
            """
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS entries (
                seq INTEGER PRIMARY KEY,  -- rising: entries are only ever appended
                at REAL NOT NULL,
                entry TEXT NOT NULL
            );
            """
        )
        self.db.execute(
            "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
        )

    def _check(self) -> None:
        if self.db.execute("PRAGMA quick_check").fetchone() != ("ok",):
            raise JournalError(f"{self.path} is damaged (integrity check failed)")
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

    # ---- writing -----------------------------------------------------------------------------

    def record(self, entry: Entry) -> None:
        """Append one entry, committed when this returns (it runs before every broadcast,
        so it is kept to one statement on one small page)."""
        self.db.execute(
            "INSERT INTO entries (at, entry) VALUES (?, ?)",
            (time.time(), _ENCODE(entry.to_json())),
        )

    def set_meta(self, **values: Any) -> None:
        for key, value in values.items():
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

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
        for seq, text in self.db.execute("SELECT seq, entry FROM entries ORDER BY seq"):
            try:
                result.append(entry_from_json(json.loads(text)))
            except ValueError as exc:  # EntryError, or JSON that does not parse
                reason = exc if isinstance(exc, EntryError) else "not readable"
                raise JournalError(
                    f"{self.path} cannot be replayed: entry {seq}: {reason}"
                ) from None
        return result

    def close(self) -> None:
        self.db.close()
        if self._lock is not None:
            self._lock.close()  # closing the file releases the lock
            self._lock = None


def _hold_lock(path: Path) -> IO[bytes] | None:
    """One host per journal: a second `--resume` of a table that is still being hosted
    would write a second history into the same file. The lock lasts while it is open."""
    try:
        import fcntl
    except ImportError:  # not on this platform: no guard, as before
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path.with_name(path.name + ".lock"), "ab")  # noqa: SIM115 - held open
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise JournalError(
            f"table {path.stem} is being hosted already (its journal is in use)"
        ) from None
    return handle


def list_tables(base: Path | None = None) -> list[TableRecord]:
    """Journals on disk, most recently changed first; unreadable ones are left out."""
    records = []
    for path in sorted(tables_dir(base).glob("*.sqlite")):
        try:
            journal = SqliteJournal(path)
        except JournalError:
            continue
        try:
            records.append(
                TableRecord(
                    table_id=path.stem,
                    name=str(journal.meta("name", path.stem)),
                    path=path,
                    finished=bool(journal.meta("finished", False)),
                    updated=path.stat().st_mtime,
                )
            )
        finally:
            journal.close()
    return sorted(records, key=lambda r: r.updated, reverse=True)


def unfinished_tables(base: Path | None = None) -> Iterator[TableRecord]:
    return (record for record in list_tables(base) if not record.finished)
