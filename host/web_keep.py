"""The web join's identities kept beside the table's journal, so that a browser comes
back to its own seat after the host restarts (`pitchnet host --resume`, or a table
kept running in the background when the window that hosted it quits).

Nothing here lets a reader of the folder take a seat from a browser: the cookie's
secret is never written, only its SHA-256 (the identity's key, what the server files
identities by anyway); the table's password neither, only a keyed hash of it (proof
that this browser gave the right one, checked against the resumed table's password).
The seat tokens are in each identity's seat file, as a terminal client keeps its own
(client/tokens.py), and the folder is private to this user (0700, files 0600).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
from pathlib import Path
from typing import Any

from pitchnet.protocol import MAX_NAME
from pitchnet.text import printable

FILE = "identities.json"
MAX_KEPT = 256
MAX_BYTES = 256 * 1024
"""A larger file is not ours (or damaged): it is ignored, and the browsers sign in again."""


def keep_folder(journal: Path) -> Path:
    """The folder beside a table's journal (tables/ID.sqlite -> tables/ID.web/)."""
    return journal.with_suffix(".web")


def password_proof(key: str, password: str) -> str:
    """What is kept of the password a browser gave: keyed by its identity, so the same
    password gives a different proof for every browser."""
    return hmac.new(key.encode(), password.encode(), hashlib.sha256).hexdigest()


def _is_key(value: Any) -> bool:
    return (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    )


def read_identities(folder: Path) -> list[tuple[str, str, str | None]]:
    """(key, name, password proof or None) of every identity kept; [] if there is no
    file or it cannot be read. Entries that are not what this module writes are skipped."""
    path = folder / FILE
    try:
        if path.stat().st_size > MAX_BYTES:
            return []
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    out = []
    for record in records if isinstance(records, list) else []:
        if not isinstance(record, dict) or not _is_key(record.get("key")):
            continue
        name = printable(str(record.get("name", "")), MAX_NAME).strip()
        proof = record.get("password")
        if name:
            out.append((record["key"], name, proof if isinstance(proof, str) else None))
    return out[-MAX_KEPT:]


def write_identities(folder: Path, records: list[tuple[str, str, str | None]]) -> None:
    """Replace the kept identities (atomically: a crash leaves the old file or the new)."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    text = json.dumps([{"key": k, "name": n, "password": p} for k, n, p in records[-MAX_KEPT:]])
    temporary = folder / (FILE + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    temporary.replace(folder / FILE)


def forget_if_done(journal: Path, resumable: bool) -> None:
    """Remove the kept identities of a table that cannot be resumed (its match is over,
    or nobody played and its journal went): there is no seat left to come back to."""
    if not resumable or not journal.exists():
        shutil.rmtree(keep_folder(journal), ignore_errors=True)
