"""Seat tokens kept on disk, so a client that was killed and started again sits back
down in its own seat.

One small JSON file in the user's state directory (platformdirs), keyed by table id
and player name: two people on one laptop under different names keep different seats,
and the same name on the same table comes back to the same seat. A token is only a
key to a seat at one table.

A refusal of a token proves nothing (an impostor copying the table's advert can send
`bad_token` as well as the table can), so no refusal ever removes one: a player who
then sits down at "that table" as a newcomer keeps the old tokens too (`kept`), and
the table that knows one still gives the seat back. Tokens go when their seat is given
up (the player leaves, or the match ends), and beyond MAX_KEPT older ones (then the
first and the newest stay).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

from pitchnet.dirs import state_dir

MAX_SEATS = 64
"""Old entries beyond this many are dropped, oldest first."""
MAX_KEPT = 3
"""Older tokens kept for one table id beside the newest: the first one ever kept (from
the first host that seated us under this id, the likeliest to be the table's own: an
impostor copies a table that exists) and the newest others (a table that lost a seat,
say a lobby's after a drop, seats us anew: its latest token is the live one)."""


@dataclass(frozen=True)
class SavedSeat:
    table_id: str
    name: str
    host: str
    port: int
    token: str
    """The newest token a host welcomed under this table id (tried first); "" once that
    seat was given up (the `kept` ones stay, for the table that may know one)."""
    kept: tuple[str, ...] = ()
    """Older tokens for this table id, newest first, tried after `token`: a host refused
    each without proving anything (it may have been an impostor), so each may still be
    the real table's."""
    left: bool = False
    """This name left that table on purpose (its seat went to a bot): `play` may then say
    the seat a bot plays there may be theirs, though no token to it is kept."""

    def __post_init__(self) -> None:
        given = (self.kept,) if isinstance(self.kept, str) else self.kept  # a damaged file
        kept = [t for t in dict.fromkeys(given) if isinstance(t, str) and t and t != self.token]
        if len(kept) > MAX_KEPT:
            kept = [*kept[: MAX_KEPT - 1], kept[-1]]  # the newest, and the first
        object.__setattr__(self, "kept", tuple(kept))

    @property
    def tokens(self) -> tuple[str, ...]:
        """The tokens to try, in order."""
        return tuple(t for t in (self.token, *self.kept) if t)


class TokenStore:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or state_dir() / "seats.json"

    def _load(self) -> list[SavedSeat]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            known = {f.name for f in fields(SavedSeat)}
            return [
                SavedSeat(**{k: v for k, v in entry.items() if k in known})
                for entry in data
                if isinstance(entry, dict)
            ]
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
        self,
        name: str,
        *,
        table_id: str | None = None,
        address: tuple[str, int] | None = None,
        given_up: bool = False,
    ) -> SavedSeat | None:
        """The seat this name holds at that table (by id), or at that address; with
        `given_up`, also one given up there whose older tokens are kept (to join with)."""
        for seat in reversed(self._load()):
            if seat.name != name or not (seat.token or given_up) or not seat.tokens:
                continue
            if table_id is not None and seat.table_id == table_id:
                return seat
            if table_id is None and address is not None and (seat.host, seat.port) == address:
                return seat
        return None

    def remember(self, seat: SavedSeat) -> None:
        kept = [s for s in self._load() if (s.table_id, s.name) != (seat.table_id, seat.name)]
        self._save([*kept, seat])

    def left(self, name: str, table_id: str) -> bool:
        """Whether this name left that table on purpose (`forget(..., left=True)`)."""
        return any(s.left and (s.table_id, s.name) == (table_id, name) for s in self._load())

    def forget(
        self, table_id: str, name: str, token: str | None = None, *, left: bool = False
    ) -> None:
        """Give up the seat this name holds at that table; with `token`, only that token:
        a seat given up at one host claiming the table id is not one at another, so the
        older `kept` tokens stay (the entry then holds no seat, `token` ""). With `left`
        (the player left on purpose), the entry stays, marked, even with no token."""
        seats = self._load()
        kept: list[SavedSeat] = []
        for seat in seats:
            if (seat.table_id, seat.name) != (table_id, name):
                kept.append(seat)
            elif token is not None or left:
                given_up = replace(
                    seat,
                    token="" if token is None or seat.token == token else seat.token,
                    kept=() if token is None else tuple(t for t in seat.kept if t != token),
                    left=seat.left or left,
                )
                if given_up.tokens or given_up.left:
                    kept.append(given_up)
        if kept != seats:
            self._save(kept)
