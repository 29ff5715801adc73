"""The footer of every screen: Textual's, showing only the keys that fit, each whole.

Textual's footer lays its keys side by side and cuts the row at the screen's edge, so
on a phone (40 columns) the last key read "esc L" or "esc I" (Leave, in Lithuanian),
and the palette's key, docked at the right, covered another. Here the keys are chosen
before they are drawn: the palette's key always stays (a phone reaches the coach,
reactions and every command only through it, by a tap), then keys go from the right
end, the first (the move of the moment: play, confirm a bid, which have buttons of
their own) only when nothing else is left, and Leave last of all: a phone, with no Esc
key, can only tap it (or find it in the palette). Every key still works from the
keyboard, and the keys screen (?) lists them all.

Leave stands at the right end, beside the palette's key, whatever keys come and go
before it: the move keys appear on a player's own turn and go after it, and a key that
moved under a phone user's finger as they tapped it was tapped in vain (the footer
test's taps missed it twice in CI)."""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.events import Resize
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # not re-exported by textual.widgets

KEPT_ACTIONS = frozenset({"leave"})
"""Keys shown while any room is left, whatever their place in the row."""


def key_width(key: FooterKey) -> int:
    """The cells a key takes in the footer (Textual's style: the key with a cell each
    side, its description and a cell after it)."""
    return cell_len(key.key_display) + 2 + cell_len(key.description) + 1


def keys_that_fit(keys: list[FooterKey], width: int) -> list[FooterKey]:
    """`keys` less those that do not fit in `width` cells: from the right end, keeping
    the first and the kept ones while another can go; then the first (its move has its
    own buttons on screen), then the kept ones, from the end."""
    shown = list(keys)
    first = keys[0] if keys else None
    while shown and sum(map(key_width, shown)) > width:
        others = [k for k in shown if k is not first and k.action not in KEPT_ACTIONS]
        plain = [k for k in shown if k.action not in KEPT_ACTIONS]
        shown.remove((others or plain or shown)[-1])
    return shown


class _Gap(HorizontalGroup):
    """The room between the keys that come and go and the pinned ones (Leave)."""

    DEFAULT_CSS = "_Gap { width: 1fr; height: 1; }"


class PitchFooter(Footer):
    def compose(self) -> ComposeResult:
        width = self.app.size.width
        parts: list[Widget] = list(super().compose())
        keys = [
            p for p in parts if isinstance(p, FooterKey) and "-command-palette" not in p.classes
        ]
        palette = [p for p in parts if "-command-palette" in p.classes]
        room = width - sum(key_width(p) + 1 for p in palette if isinstance(p, FooterKey))
        shown = set(map(id, keys_that_fit(keys, room)))
        kept = [p for p in parts if id(p) in shown or p not in keys]
        pinned = [p for p in kept if isinstance(p, FooterKey) and p.action in KEPT_ACTIONS]
        yield from (p for p in kept if p not in pinned)
        if pinned:
            yield _Gap()
            yield from pinned

    def on_resize(self, event: Resize) -> None:
        self.call_after_refresh(self.recompose)
