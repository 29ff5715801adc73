"""zeroconf's listener with `--interface` (issue 11 item 9).

python-zeroconf binds its listener to the unspecified address, port 5353, whatever
interface it is given, so a host advertising on 127.0.0.1 would still answer a question
sent to another of its addresses, from another machine. The host ties that socket to
the interface's device (pitchnet.network.confine_listener). Here a player namespace asks,
from its own address, the host namespace's LAN address. The library's own default
answers (the control: the question is a fair one); pitchnet's listener answers nothing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .harness import Lan

pytestmark = pytest.mark.lan(players=1)

PROBE = str(Path(__file__).with_name("mdns_probe.py"))
ROOT = {"PYTHONPATH": str(Path(__file__).resolve().parents[2])}


def answers_from_another_machine(lan: Lan, kind: str) -> int:
    advertiser = lan.spawn("host", [sys.executable, PROBE, "advertise", kind], env=ROOT)
    try:
        advertiser.wait_for_line(r"^ready", timeout=15)
        question = [sys.executable, PROBE, "ask", lan.ip("p1"), lan.ip("host"), "3"]
        asked = lan.run("p1", question, env=ROOT, timeout=20)
        assert asked.returncode == 0, asked.stderr
        return int(asked.stdout.strip())
    finally:
        lan.kill(advertiser)


def test_a_host_on_loopback_answers_no_mdns_question_from_another_machine(lan: Lan) -> None:
    assert answers_from_another_machine(lan, "raw") >= 1  # the library's wildcard listener
    assert answers_from_another_machine(lan, "confined") == 0
