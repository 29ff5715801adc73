"""Web identities kept beside the journal (host/web_keep.py): a browser is known again,
with its seat file, after the host restarts; neither its secret nor the password is
written; a changed password is asked for again; a finished table's are removed."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp

from client.tokens import SavedSeat, TokenStore
from host.web import COOKIE, WebConfig, WebServer, identity_key
from host.web_keep import FILE, forget_if_done, keep_folder, read_identities

TABLE_ID = "t0ab12"


@contextlib.asynccontextmanager
async def web_join(keep: Path, password: str | None = None) -> AsyncIterator[WebServer]:
    """The web join alone (the pages need no table; no browser session starts here)."""
    config = WebConfig(
        port=0,
        table_port=1,
        table_id=TABLE_ID,
        interface="127.0.0.1",
        password=password,
        keep_dir=keep,
    )
    web = WebServer(config)
    await web.start()
    try:
        yield web
    finally:
        await web.close()


def client() -> aiohttp.ClientSession:
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


def address(web: WebServer) -> str:
    return f"http://127.0.0.1:{web.port}/"


async def sign_in(web: WebServer, name: str, password: str | None = None) -> str:
    """A browser's first visit and its name (and password): returns its cookie's secret."""
    async with client() as browser:
        async with browser.get(address(web)) as answer:
            secret = answer.cookies[COOKIE].value
        form = {"name": name, **({"password": password} if password else {})}
        async with browser.post(address(web) + "join", data=form) as answer:
            assert 'id="terminal"' in await answer.text()  # on to the game page
    return secret


async def page_for(web: WebServer, secret: str) -> str:
    async with client() as browser:
        browser.cookie_jar.update_cookies({COOKIE: secret})
        async with browser.get(address(web)) as answer:
            return await answer.text()


async def test_a_browser_is_known_again_with_its_seat_after_the_host_restarts(
    tmp_path: Path,
) -> None:
    keep = tmp_path / "t0ab12.web"
    async with web_join(keep) as web:
        secret = await sign_in(web, "Ann")
        identity = web.identities[identity_key(secret)]
        seat = SavedSeat(TABLE_ID, "Ann", "127.0.0.1", 1, "the-seat-token")
        TokenStore(identity.seats_file).remember(seat)  # as the session's client does
        seats_file = identity.seats_file
    assert seats_file.parent == keep and seats_file.exists()
    async with web_join(keep) as again:  # a new server: nothing in memory
        assert 'id="terminal"' in await page_for(again, secret)  # no name asked
        known = again.identities[identity_key(secret)]
        assert known.name == "Ann" and known.seats_file == seats_file
        found = TokenStore(known.seats_file).find("Ann", table_id=TABLE_ID)
        assert found is not None and found.token == "the-seat-token"
        # A cookie this host never issued is still nobody.
        assert 'id="name"' in await page_for(again, "x" * 43)
    for path in keep.iterdir():
        assert secret not in path.read_text(encoding="utf-8"), path


async def test_the_password_is_kept_as_a_proof_and_a_changed_one_is_asked_again(
    tmp_path: Path,
) -> None:
    keep = tmp_path / "t0ab12.web"
    async with web_join(keep, password="swordfish") as web:
        secret = await sign_in(web, "Ann", "swordfish")
    text = (keep / FILE).read_text(encoding="utf-8")
    assert "swordfish" not in text and read_identities(keep)[0][2]  # a proof, not the word
    async with web_join(keep, password="swordfish") as again:
        assert 'id="terminal"' in await page_for(again, secret)
        assert again.identities[identity_key(secret)].password == "swordfish"
    async with web_join(keep, password="marlin") as changed:
        page = await page_for(changed, secret)
        assert 'name="password"' in page and 'value="Ann"' in page  # the name is kept


async def test_a_damaged_file_means_signing_in_again(tmp_path: Path) -> None:
    keep = tmp_path / "t0ab12.web"
    keep.mkdir()
    (keep / FILE).write_text('[{"key": "../../etc", "name": "x"}, 7, "junk"', encoding="utf-8")
    async with web_join(keep) as web:
        assert web.identities == {}
        assert 'id="name"' in await page_for(web, "y" * 43)
    (keep / FILE).write_text('[{"key": "../../etc", "name": "x"}, 7]', encoding="utf-8")
    assert read_identities(keep) == []


def test_a_finished_table_forgets_its_browsers(tmp_path: Path) -> None:
    journal = tmp_path / f"{TABLE_ID}.sqlite"
    journal.write_bytes(b"")
    keep_folder(journal).mkdir()
    forget_if_done(journal, resumable=True)
    assert keep_folder(journal).exists()  # it can be resumed: the browsers come back
    forget_if_done(journal, resumable=False)
    assert not keep_folder(journal).exists()
