"""The base of every screen here: Textual's own, with `self.app` typed as `PitchApp`.

Screens call the app's methods (`send_play`, `leave_table`...) and read its state
(`game`, `options`); without this the type checker sees only Textual's `App`. The
declaration exists for the checker alone (Textual's own `getters.app` pattern), so at
run time `self.app` is Textual's property and nothing is imported in a circle.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from textual.dom import DOMNode
from textual.message import Message
from textual.screen import ModalScreen, Screen

from pitchnet.i18n import _

if TYPE_CHECKING:
    from textual import getters

    from client.app import PitchApp
    from client.model import GameState

ResultType = TypeVar("ResultType")


def translate_bindings(node: DOMNode) -> None:
    """Word `node`'s key bindings (marked with `N_` in BINDINGS) in the language in use.
    Textual copies a class's bindings into each instance as it is made: translated here,
    a screen made after the player changed language shows its keys in the new one. The
    English of each is kept on the node, so translating again (`PitchApp.set_language`)
    starts from it; bindings Textual adds itself (the palette's) are left as they are."""
    english: dict[tuple[str, str], str] = node.__dict__.setdefault("_english_bindings", {})
    keys = node._bindings.key_to_bindings
    for key, bindings in list(keys.items()):
        # "Key {n}", "Sit in seat {n}": one binding per number key, each its number.
        numbered = {"n": int(key)} if key.isdigit() else {}
        worded = []
        for binding in bindings:
            if binding.description:
                source = english.setdefault((key, binding.action), binding.description)
                binding = dataclasses.replace(binding, description=_(source, **numbered))
            worded.append(binding)
        keys[key] = worded  # a list of the node's own: Textual's copy shares the class's


class PitchScreen(Screen[ResultType]):
    if TYPE_CHECKING:
        app = getters.app(PitchApp)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        translate_bindings(self)


class PitchModal(ModalScreen[ResultType]):
    if TYPE_CHECKING:
        app = getters.app(PitchApp)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        translate_bindings(self)

    _close_when_back = False
    """The table has moved on past this screen while a prompt the player has not
    answered (quit, leave, keys) covers it: it goes as soon as it is on top again."""

    def dismiss_when_on_top(self) -> None:
        """Close this screen now if it is on top; under a prompt, once that prompt is
        answered. Popping down to it would take the prompt with it: a player who pressed
        Ctrl+Q over the hand summary lost the question when the next hand was dealt."""
        if self.is_active:
            self.dismiss()
        else:
            self._close_when_back = True

    def on_screen_resume(self) -> None:
        if self._close_when_back and self.is_active:
            self.dismiss()


class GameChanged(Message):
    """The game state changed (a snapshot, a reaction, a setting): a screen that shows
    the game draws it again. The app posts one to each screen of its stack
    (`PitchApp.redraw`), so it knows no screen's drawing methods; it stays with the
    screen it was posted to."""

    bubble = False

    def __init__(self, game: GameState) -> None:
        super().__init__()
        self.game = game


class _Shows(Protocol):
    """What `FirstShow` needs of the screen it is mixed into."""

    _shown: bool
    display: bool

    @property
    def app(self) -> PitchApp: ...

    def call_after_refresh(self, callback: Callable[[], object]) -> bool: ...

    def show(self, game: GameState) -> None: ...

    def first_show(self) -> None: ...


class FirstShow:
    """The first-show guard, written once: a screen's nested containers finish mounting
    after its own Mount, so it draws for the first time after a refresh (`first_show`,
    by default `show(app.game)`), and its `show` draws nothing until then (`_shown`).
    Mix it in before the Textual base: `class LobbyScreen(FirstShow, PitchScreen[None])`."""

    _shown = False
    """Set once composed: show() before that has nothing to draw on."""

    def on_mount(self) -> None:
        cast(_Shows, self).call_after_refresh(self._first_show)

    def _first_show(self) -> None:
        screen = cast(_Shows, self)
        if not screen.display:
            # Taken down before its first draw (a mode removed on the way back to the
            # finder): Textual's `display` is False while a node is being removed, and
            # its parts may already be gone.
            return
        self._shown = True
        screen.first_show()

    def first_show(self) -> None:
        screen = cast(_Shows, self)
        screen.show(screen.app.game)

    def on_game_changed(self, message: GameChanged) -> None:
        """Draw the game as it is now (nothing before the first show: `show`)."""
        cast(_Shows, self).show(message.game)
