"""Seat tokens kept on disk, so a client that was killed and started again sits back
down in its own seat.

One small JSON file in the user's state directory (platformdirs), keyed by table id
and player name: two people on one laptop under different names keep different seats,
and the same name on the same table comes back to the same seat. A token is only a
key to a seat at one table; a stale one is refused by the host and forgotten here.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from pitchnet.dirs import state_dir

MAX_SEATS = 64
"""Old entries beyond this many are dropped, oldest first."""


@dataclass(frozen=True)
class SavedSeat:
    table_id: str
    name: str
    host: str
    port: int
    token: str


class TokenStore:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or state_dir() / "seats.json"

    def _load(self) -> list[SavedSeat]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return [SavedSeat(**entry) for entry in data if isinstance(entry, dict)]
        except (OSError, ValueError, TypeError):
            return []  # missing or damaged: we simply join afresh

    def _save(self, seats: list[SavedSeat]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(".tmp")
            # A token is a key to a seat: the file is the owner's alone from the start.
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(json.dumps([asdict(s) for s in seats[-MAX_SEATS:]]))
            temporary.replace(self.path)
        except OSError:
            pass

    def find(
        self, name: str, *, table_id: str | None = None, address: tuple[str, int] | None = None
    ) -> SavedSeat | None:
        """The seat this name held at that table (by id), or at that address."""
        for seat in reversed(self._load()):
            if seat.name != name:
                continue
            if table_id is not None and seat.table_id == table_id:
                return seat
            if table_id is None and address is not None and (seat.host, seat.port) == address:
                return seat
        return None

    def remember(self, seat: SavedSeat) -> None:
        kept = [s for s in self._load() if (s.table_id, s.name) != (seat.table_id, seat.name)]
        self._save([*kept, seat])

    def forget(self, table_id: str, name: str) -> None:
        seats = self._load()
        kept = [s for s in seats if (s.table_id, s.name) != (table_id, name)]
        if len(kept) != len(seats):
            self._save(kept)
