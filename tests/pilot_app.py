"""The app as tests drive it: `PitchApp` with the hooks a player has no option for.

Production's `ClientOptions` are what a person can choose; what only a test needs (a
window that shows nothing first, a seeded table without bot delays, a shorter look for
tables, every notification kept to read back) is added here, by overriding the app's
own methods, so none of it is an option of the real client.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import client.app
from client.app import BrowserFactory, ClientOptions, PitchApp
from client.hosting import HostingConfig, TableSetup


class PilotApp(PitchApp):
    """`PitchApp` for tests. `idle`: no first screen (a test shows one: `apply_state`);
    `host`: `HostConfig` fields for a table hosted here, over the app's own (seed,
    bot_delay, port 0, no advert); `browse_seconds`: how long `play` looks for tables."""

    CSS_PATH = str(Path(client.app.__file__).with_name(str(PitchApp.CSS_PATH)))
    """The app's own style sheet (a relative path is read beside the subclass's module)."""

    def __init__(
        self,
        options: ClientOptions,
        *,
        browser_factory: BrowserFactory | None = None,
        idle: bool = False,
        host: dict[str, Any] | None = None,
        browse_seconds: float | None = None,
    ) -> None:
        self.idle = idle
        self.host_overrides = dict(host or {})
        self.notices: list[str] = []
        """Every notification shown, newest last."""
        super().__init__(options, browser_factory=browser_factory)
        if browse_seconds is not None:
            self.play_browse_seconds = browse_seconds

    def first_mode(self, options: ClientOptions) -> str:
        return "_default" if self.idle else super().first_mode(options)

    def host_config(self, setup: TableSetup | None, resume: str | None) -> HostingConfig:
        return dataclasses.replace(super().host_config(setup, resume), **self.host_overrides)

    def notify(self, message: str, **kwargs: Any) -> None:
        self.notices.append(message)
        super().notify(message, **kwargs)
