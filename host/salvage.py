"""What is intact of a journal whose main file is damaged (bytes flipped, the file cut
short): SQLite refuses such a file whole, but most of its pages still hold entries.

The damaged file is kept as it is (`<id>.damaged-<time>.sqlite`, beside it); a copy is
read with its header's page count set to the pages it really has (a file cut short
otherwise reads as malformed from its first page), each entry looked up by its number
from the first on until one cannot be read or breaks the checksum chain, and those
entries and the table's settings are written to a fresh journal. So a resume goes on
from the last intact entry and `pitchnet history` prints up to the damage.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

META_KEYS = (
    "schema_version", "table_id", "name", "options", "seed", "finished", "port", "password",
)  # fmt: skip
"""The keys read one by one when the meta table cannot be read whole."""


@dataclass(frozen=True)
class Salvaged:
    kept: Path
    """The damaged file, as it was."""
    entries: int
    """Intact entries carried into the fresh journal."""


Row = tuple[int, float, str, str | None]
"""An entry as stored: its number, time, JSON text and chain link."""


def salvage(path: Path, into: Path, *, keep: bool = True) -> Salvaged | None:
    """Write what is intact of the damaged journal `path` as a fresh journal at `into`
    (which may be `path` itself: it is replaced). With `keep`, the damaged file is first
    kept beside it. None when nothing can be saved (no table id readable)."""
    kept = path.with_name(f"{path.stem}.damaged-{int(time.time())}.sqlite")
    with tempfile.TemporaryDirectory(prefix="pitchnet-salvage-") as folder:
        work = Path(folder) / "damaged.sqlite"
        shutil.copyfile(path, work)
        if not _fit_header(work):
            return None
        db = sqlite3.connect(f"file:{work}?mode=ro", uri=True)
        try:
            meta = _meta(db)
            rows = _intact_rows(db) if "table_id" in meta else []
        finally:
            db.close()
        if "table_id" not in meta:
            return None
        fresh = Path(folder) / "fresh.sqlite"
        _write(fresh, meta, rows)
        if keep:
            shutil.copyfile(path, kept)
            os.chmod(kept, 0o600)
        for stale in ("-wal", "-shm"):  # the damaged file's; not the fresh one's
            with contextlib.suppress(FileNotFoundError):
                os.unlink(into.with_name(into.name + stale))
        shutil.copyfile(fresh, into)
        os.chmod(into, 0o600)
    return Salvaged(kept, len(rows))


def _fit_header(work: Path) -> bool:
    """Make the header's page count the pages the file holds (whole pages only)."""
    data = bytearray(work.read_bytes())
    if len(data) < 100 or not data.startswith(b"SQLite format 3\0"):
        return False
    size = int.from_bytes(data[16:18], "big")
    size = 65536 if size == 1 else size
    if size < 512 or size & (size - 1):
        return False
    pages = len(data) // size
    del data[pages * size :]
    data[28:32] = pages.to_bytes(4, "big")
    work.write_bytes(bytes(data))
    return pages > 0


def _meta(db: sqlite3.Connection) -> dict[str, str]:
    try:
        return dict(db.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.DatabaseError:
        pass
    meta = {}
    for key in META_KEYS:
        with contextlib.suppress(sqlite3.DatabaseError):
            row = db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
            if row is not None:
                meta[key] = row[0]
    return meta


def _intact_rows(db: sqlite3.Connection) -> list[Row]:
    """Entries from the first on, up to the first that cannot be read, is missing or
    breaks the checksum chain."""
    from host.journal import chain_link

    rows: list[Row] = []
    link, seq = "", 1
    query = "SELECT seq, at, entry, chain FROM entries WHERE seq=?"
    while True:
        try:
            row = db.execute(query, (seq,)).fetchone()
        except sqlite3.DatabaseError:
            break
        if row is None or not isinstance(row[2], str):
            break
        expected = chain_link(link, row[2])
        if row[3] is not None and row[3] != expected:
            break
        rows.append((row[0], row[1], row[2], expected))
        link, seq = expected, seq + 1
    return rows


def _write(
    fresh: Path, meta: dict[str, str], rows: list[tuple[int, float, str, str | None]]
) -> None:
    from host.journal import SqliteJournal

    journal = SqliteJournal(fresh, create=True, lock=False)
    try:
        db = journal.db
        db.execute("BEGIN")
        db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", meta.items())
        db.executemany("INSERT INTO entries (seq, at, entry, chain) VALUES (?, ?, ?, ?)", rows)
        db.execute("COMMIT")
    finally:
        journal.close()
    for leftover in (".mark", ".lock"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(fresh.with_name(fresh.name + leftover))
