"""A client in another language plays whole matches from PROTOCOL.md alone.

tests/node_client/pitch.mjs is a Node client written from the protocol document, sharing
no code with the Python client: if the wire changes in a way a non-Python client would
see (a field renamed or retyped, a frame the document does not allow), it stops, and
these tests fail. Skipped without `node`, unless CI is set: then they fail (.ci/run
installs nodejs)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from host.server import HostServer
from pitchnet.house_rules import PRESETS
from tests.netclient import running_host, until_true

pytestmark = pytest.mark.serial  # real processes on wall-clock deadlines

CLIENT = Path(__file__).parent / "node_client" / "pitch.mjs"
PROTOCOL = Path(__file__).parent.parent / "PROTOCOL.md"
CLIENT_DEADLINE = 120
"""Seconds a Node client may take for a whole match before it gives up (exit 4)."""


def node_or_skip() -> str:
    path = shutil.which("node")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("node is not installed, and CI must run the Node client's tests")
        pytest.skip("node is not installed (apt-get install nodejs)")
    return path


class NodeClient:
    """One `node pitch.mjs` process against a host on 127.0.0.1."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(cls, server: HostServer, *args: str) -> NodeClient:
        process = await asyncio.create_subprocess_exec(
            node_or_skip(),
            str(CLIENT),
            f"127.0.0.1:{server.port}",
            "--deadline",
            str(CLIENT_DEADLINE),
            *args,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        return cls(process)

    async def summary(self) -> dict[str, Any]:
        """The client's one-line JSON summary, once it has exited 0."""
        try:
            out, err = await asyncio.wait_for(self.process.communicate(), CLIENT_DEADLINE + 15)
        finally:
            if self.process.returncode is None:
                self.process.kill()
                await self.process.wait()
        assert self.process.returncode == 0, (self.process.returncode, out, err)
        lines = out.decode().splitlines()
        assert len(lines) == 1, out
        result: dict[str, Any] = json.loads(lines[0])
        assert result["problems"] == [], result
        return result


def documented_bytes(after: str) -> bytes:
    """The hex of the first code block after the sentence starting `after` in PROTOCOL.md,
    section 16: each line is a frame's header then its body, in spaced groups."""
    text = PROTOCOL.read_text(encoding="utf-8")
    start = text.index(after)
    block = text[text.index("```", start) + 3 :]
    block = block[: block.index("```")]
    return bytes.fromhex("".join(block.split()))


def test_the_codec_and_proof_match_protocol_md() -> None:
    """Section 16's bytes: two host frames decoded from one read, and the documented
    `hello` packed byte for byte; the proof of section 7 as the formula there says."""
    host_bytes = documented_bytes("The first frame the host sends, in bytes")
    secret, nonce, table_id = "B6-ojJF2Xb5TGTTfkpjbq9jwWkqTXFSZ", "3f9c" * 8, "7f164d40ad28"
    done = subprocess.run(
        [node_or_skip(), str(CLIENT), "--selftest"],
        input=json.dumps(
            {"host_bytes": host_bytes.hex(), "secret": secret, "nonce": nonce, "table_id": table_id}
        ),
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    result = json.loads(done.stdout)
    challenge, ping = result["frames"]
    assert challenge == {
        "type": "challenge",
        "version": 3,
        "nonce": "3f9c0e6b1d2a4c8e9f7b5a6d4c3b2a19",
        "table_id": "7f164d40ad28",
    }
    assert ping["type"] == "ping"
    assert result["floats"] == [[], ["t"]]  # echoed as a float64, exactly as sent
    assert bytes.fromhex(result["hello"]) == documented_bytes("The client's `hello`, in bytes")
    message = f"{nonce}\0{table_id}\0seat".encode()
    assert result["proof"] == hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def agrees_with_host(server: HostServer, result: dict[str, Any]) -> None:
    """The client's last view of the match is the host's own record of it."""
    match = server.table.match
    assert match is not None
    assert result["outcome"] == "match_over"
    assert result["phase"] == "match_over"
    assert result["scores"] == match.scores
    assert result["winner"] == match.winner is not None
    assert result["hands"] == match.hand_number
    assert result["events"]["match"] == 1


async def play_to_the_end(server: HostServer, *players: tuple[str, int]) -> list[dict[str, Any]]:
    """One Node client per (name, seed) at `server`, each played to the match's end; what
    each said, checked against the host's record and free of errors."""
    clients = [
        await NodeClient.start(server, "--name", name, "--seed", str(seed))
        for name, seed in players
    ]
    results = [await client.summary() for client in clients]
    for result in results:
        agrees_with_host(server, result)
        assert result["errors"] == []
    return results


async def test_two_node_clients_and_two_bots_play_a_whole_match() -> None:
    node_or_skip()
    async with running_host(players=4, bots=2) as server:
        results = await play_to_the_end(server, ("Ada", 1), ("Bo", 2))
        for result in results:
            assert result["reconnects"] == 0
        assert sorted(r["seats"][0] for r in results) == [2, 3]
        assert {r["name"] for r in results} == {"Ada", "Bo"}
        assert all(r["hands"] >= 2 for r in results)  # it said ready between hands
        assert server.table.match is not None and server.table.match.winner is not None


async def test_a_three_player_joker_match() -> None:
    node_or_skip()
    joker = PRESETS["joker"]
    assert joker.target is not None
    async with running_host(players=3, bots=1, rules=joker.rules, target=joker.target) as server:
        results = await play_to_the_end(server, ("Cy", 3), ("Di", 4))
        for result in results:
            assert result["rules"]["joker"] == "on"
            assert len(result["scores"]) == 3
        # Seat 1 bids first in the first hand (seat 0 deals): every bid up to 5 is open.
        first = next(r for r in results if r["seats"][0] == 1)
        assert first["top_legal_bid"] == 5


async def test_a_partnership_match_under_the_strict_preset() -> None:
    """Two teams (scores per side, seats 0+2 against 1+3), must-follow, no bids of 1 and
    a redeal when all pass."""
    node_or_skip()
    strict = PRESETS["strict"]
    async with running_host(players=4, partnership=True, bots=2, rules=strict.rules) as server:
        results = await play_to_the_end(server, ("Hal", 7), ("Ivy", 8))
        for result in results:
            assert len(result["scores"]) == 2
            assert result["rules"]["min_bid"] == 2
            assert result["low_legal_bid"] is not None
            assert result["low_legal_bid"] >= 2  # never offered a bid of 1
        # Seats 2 and 3: one team each.
        assert sorted(r["seats"][0] for r in results) == [2, 3]


async def test_a_reconnect_mid_hand_keeps_the_seat_and_finishes() -> None:
    node_or_skip()
    async with running_host(players=4, bots=3) as server:
        client = await NodeClient.start(
            server, "--name", "Eve", "--seed", "5", "--reconnect-after", "3"
        )
        result = await client.summary()
        agrees_with_host(server, result)
        assert result["reconnects"] == 1
        assert result["dropped_at"]["phase"] in ("bidding", "playing")
        assert result["dropped_at"]["hand"] == 1
        # The action on its way when the link died was applied once: resent under its
        # id after the reconnect, it was acked as a duplicate.
        dropped = result["dropped_at"]["id"]
        assert result["resent"] == {"id": dropped, "last_id": dropped, "duplicate": True}
        assert result["seats"] == [3, 3]  # welcomed back to the same seat
        assert result["events"].get("connected", 0) >= 1
        assert result["errors"] == []
        seat = server.table.seats[3]
        assert seat.name == "Eve"


async def test_a_node_spectator_watches_a_match_to_its_end() -> None:
    node_or_skip()
    async with running_host(players=2, bots=1) as server:
        watcher = await NodeClient.start(server, "--spectator", "--name", "Fay")
        await until_true(lambda: server.table.spectators == 1, "the spectator to be welcomed")
        player = await NodeClient.start(server, "--name", "Gus", "--seed", "6")
        watched, played = await watcher.summary(), await player.summary()
        agrees_with_host(server, watched)
        agrees_with_host(server, played)
        assert watched["role"] == "spectator"
        assert watched["errors"] == []
        assert watched["actions"] == 0
        assert watched["events"]["deal"] >= 1
