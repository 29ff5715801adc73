"""Two lone lobbies opened at once (two people pressing `play` a moment apart, each
seeing no table yet): the younger one yields, its people moving to the older one.

While the lobby hosted in a window from `play` has not started, `OlderTableWatch`
browses the network. An older open lobby with a seat for everyone at ours is offered
(named, with its address: any laptop can advertise an "older open table") and, on the
creator's key press, the window closes its lobby, telling everyone in it to join that
one. A lobby beside ours with other settings is named once, with how it differs; both
stay. The window's table is known only by its facts (`HostedFacts`, client/hosting.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from pitchnet.i18n import _
from pitchnet.protocol import MAX_NAME, TableState, can_join
from pitchnet.text import printable

if TYPE_CHECKING:
    from client.app import PitchApp
    from client.discovery import FoundTable
    from client.hosting import HostedFacts

log = logging.getLogger(__name__)

LOOK_AGAIN_SECONDS = 0.5
"""How often the watch looks at our own table again without news from the network
(someone may have sat down or started the match, which ends the watch)."""


def older_open_table(ours: HostedFacts, tables: list[FoundTable]) -> FoundTable | None:
    """An older open lobby on the network with a seat for everyone at ours (the
    oldest): our lobby moves there. Only the younger of two tables ever moves, so
    two tables never swap their people."""
    from client.discovery import claimed_twice

    disputed = claimed_twice(tables)  # never move people to a table an impostor copies
    age = (ours.born, ours.table_id)
    older = [
        t
        for t in tables
        if t.table_id != ours.table_id
        and t.state == TableState.LOBBY
        and t.open > 0
        and t.born > 0
        and not t.password
        and can_join(t.version)
        and t.table_id not in disputed
        and t.open >= max(1, ours.people)
        and (t.born, t.table_id) < age
    ]
    return min(older, key=lambda t: (t.born, t.table_id), default=None)


def differences(ours: HostedFacts, found: FoundTable) -> list[str]:
    """How an open lobby beside ours differs in its settings, in words (empty: it
    does not, or it is not an open lobby without a password)."""
    from client.hosting import TableSetup
    from client.screens.finder import settings_differ

    if found.table_id == ours.table_id or found.state != TableState.LOBBY or found.password:
        return []
    chosen = TableSetup(
        players=ours.players, target=ours.target, rules=ours.rules, bot_level=ours.bot_level
    )
    return settings_differ(found, chosen)


class OlderTableWatch:
    """Watches the network for an older open lobby while the one hosted in `app` has
    not started (`run`, in a worker); `close` stops its browsing."""

    def __init__(self, app: PitchApp) -> None:
        self.app = app
        self._changed = asyncio.Event()
        self._browser: Any = None

    def _facts(self) -> HostedFacts | None:
        hosted = self.app.hosted
        return hosted.facts() if hosted is not None else None

    def _alone_here(self) -> bool:
        """Our table (from `play`) is still a lobby nobody has started, and may move."""
        facts = self._facts()
        return self.app.may_move and facts is not None and facts.lobby_unstarted

    def _say_tables_beside(self, tables: list[FoundTable], told: set[str]) -> None:
        """Another lobby opened beside ours with other settings: both stay (nobody moves
        between them), so say there are two tables and why, once per table."""
        ours = self._facts()
        if ours is None:
            return
        for found in tables:
            if found.table_id in told:
                continue
            differ = differences(ours, found)
            if differ:
                told.add(found.table_id)
                self.app.notify(
                    _(
                        "{table} is open too, with {differences}: two tables now, each with "
                        "its own settings.",
                        table=printable(found.name, MAX_NAME),
                        differences=", ".join(differ),
                    ),
                    markup=False,
                )

    async def run(self) -> None:
        """While the lobby hosted here has not started: offer an older open lobby (and
        move there on the creator's key press), name a lobby beside ours."""
        app = self.app
        browser = app.browser_factory(app.options.interface, lambda _: self._changed.set())
        self._browser = browser
        try:
            await browser.start()
            declined: set[tuple[str, str, int]] = set()
            told: set[str] = set()
            while (facts := self._facts()) is not None and facts.lobby_unstarted:
                self._say_tables_beside(browser.tables, told)
                seen = [t for t in browser.tables if (t.table_id, t.host, t.port) not in declined]
                target = older_open_table(facts, seen) if self._alone_here() else None
                if target is not None and app.current_mode == "lobby":
                    # Asked on the lobby's own screen (a question pushed while the
                    # window still dials its table would stay behind the lobby).
                    # Never without the creator's key press: any laptop can advertise an
                    # "older open table", so the screen names it and its address first.
                    from client.screens.prompts import MoveOffer

                    offer = MoveOffer(target.name, f"{target.host}:{target.port}")
                    if await app.push_screen_wait(offer) and self._alone_here():
                        await app.move_lobby_to(target)
                        return
                    declined.add((target.table_id, target.host, target.port))
                    continue
                self._changed.clear()
                # Woken by the network, or after a while to look at our own table again.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), LOOK_AGAIN_SECONDS)
        except Exception as exc:  # browsing is a nicety here; hosting goes on without it
            log.warning("cannot look for older tables: %s", exc)
        finally:
            await self.close()

    async def close(self) -> None:
        """Stop browsing (once; the watch's loop ends with it)."""
        browser, self._browser = self._browser, None
        if browser is not None:
            await browser.close()
