"""A phone's on-screen keyboard opens only when the game asks for text: the browser
session's app says when its screen holds a text field, and the web server passes that
one meta message on to the page (and still drops what a page must not be sent)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from client.app import ClientOptions, PitchApp
from client.hosting import KEYBOARD_META
from client.screens.prompts import ConfirmLeave, PasswordPrompt
from client.web_session import text_field, web_app_class
from host.web import Identity, WebSession


class FakeSocket:
    """What WebSession writes to its browser."""

    def __init__(self) -> None:
        self.closed = False
        self.sent: list[Any] = []

    async def send_json(self, data: Any) -> None:
        self.sent.append(data)

    async def send_bytes(self, data: bytes) -> None:
        self.sent.append(data)

    async def send_str(self, data: str) -> None:
        self.sent.append(json.loads(data))


def session(socket: FakeSocket, tmp_path: Path) -> WebSession:
    return WebSession(
        "true",
        identity=Identity("k", tmp_path / "seats.json"),
        address="127.0.0.1",
        websocket=socket,  # type: ignore[arg-type]  # what WebSession uses of it
        environment={},
        download_manager=None,  # type: ignore[arg-type]  # no download here
    )


async def test_the_keyboard_meta_reaches_the_page_and_an_open_url_does_not(
    tmp_path: Path,
) -> None:
    socket = FakeSocket()
    web = session(socket, tmp_path)
    await web.on_meta(json.dumps({"type": KEYBOARD_META, "wanted": True}).encode())
    await web.on_meta(json.dumps({"type": KEYBOARD_META, "wanted": "yes"}).encode())
    await web.on_meta(json.dumps({"type": "open_url", "url": "http://x/", "new_tab": 1}).encode())
    await web.on_meta(b"not json")
    assert socket.sent == [[KEYBOARD_META, True], [KEYBOARD_META, False]]


async def test_a_password_prompt_asks_for_text_and_a_yes_no_question_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(PitchApp, "first_mode", lambda self, options: "_default")  # no screen
    app = web_app_class()(ClientOptions(name="Ann"))
    async with app.run_test(size=(40, 20)) as pilot:
        assert text_field(app.screen) is None
        app.push_screen(PasswordPrompt("Attic"))
        await pilot.pause()
        field = text_field(app.screen)
        assert field is not None and field.id == "password"
        app.pop_screen()
        app.push_screen(ConfirmLeave())
        await pilot.pause()
        assert text_field(app.screen) is None
