"""The base of every screen here: Textual's own, with `self.app` typed as `PitchApp`.

Screens call the app's methods (`send_play`, `leave_table`...) and read its state
(`game`, `options`); without this the type checker sees only Textual's `App`. The
declaration exists for the checker alone (Textual's own `getters.app` pattern), so at
run time `self.app` is Textual's property and nothing is imported in a circle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual.screen import ModalScreen, Screen

if TYPE_CHECKING:
    from textual import getters

    from client.app import PitchApp

ResultType = TypeVar("ResultType")


class PitchScreen(Screen[ResultType]):
    if TYPE_CHECKING:
        app = getters.app(PitchApp)


class PitchModal(ModalScreen[ResultType]):
    if TYPE_CHECKING:
        app = getters.app(PitchApp)
