"""The LAN harness itself, proved with plain Python peers (no pitchnet code), so that when a
reconnect test fails we know the fault lies in pitchnet, not in the simulated network."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .harness import Lan, WaitTimeout, sweep_stale, wait_for

PORT = 7000
CLOSED_PORT = 7001

ECHO_SERVER = """
import os, socket, sys, threading
def serve(conn):
    with conn:
        while data := conn.recv(1024):
            conn.sendall(data)
srv = socket.create_server((os.environ["PITCHNET_INTERFACE"], int(sys.argv[1])))
print("listening", *srv.getsockname(), flush=True)
while True:
    conn, peer = srv.accept()
    print("accepted", peer[0], flush=True)
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
"""

# One connection attempt; prints exactly one word saying how it went.
TCP_PROBE = """
import errno, socket, sys
host, port, timeout = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
try:
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(b"ping\\n")
        print("ok" if s.recv(64) == b"ping\\n" else "bad-reply")
except TimeoutError:
    print("timeout")
except ConnectionRefusedError:
    print("refused")
except OSError as exc:
    print(errno.errorcode.get(exc.errno, str(exc.errno)))
"""

# Holds one connection; each stdin line is sent, then awaited as an echo for argv[3] seconds.
HELD_CLIENT = """
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
print("connected", flush=True)
buf, got = b"", set()
for line in sys.stdin:
    word = line.strip()
    s.sendall(word.encode() + b"\\n")
    s.settimeout(float(sys.argv[3]))
    try:
        while word not in got:
            chunk = s.recv(1024)
            if not chunk:
                print("closed", flush=True)
                sys.exit(1)
            buf += chunk
            *lines, buf = buf.split(b"\\n")
            for done in lines:
                got.add(done.decode())
                print("got", done.decode(), flush=True)
    except TimeoutError:
        print("timeout", word, flush=True)
"""

UDP_SEND = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
print("sent", s.sendto(sys.argv[3].encode(), (sys.argv[1], int(sys.argv[2]))))
"""

UDP_RECV = """
import os, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((os.environ["PITCHNET_INTERFACE"], int(sys.argv[1])))
print("bound", flush=True)
while True:
    data, src = s.recvfrom(1024)
    print("udp", data.decode(), "from", src[0], flush=True)
"""
UDP_PORT = "7002"

MCAST_RECV = """
import os, socket, sys
group, port, me = sys.argv[1], int(sys.argv[2]), os.environ["PITCHNET_INTERFACE"]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((group, port))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
             socket.inet_aton(group) + socket.inet_aton(me))
print("joined", flush=True)
while True:
    data, src = s.recvfrom(1024)
    print("got", data.decode(), "from", src[0], flush=True)
"""

# No IP_MULTICAST_IF: sends only work if the node has its 224.0.0.0/4 route.
MCAST_SEND = """
import errno, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for n in range(200):
    try:
        s.sendto(f"hello-{n}".encode(), (sys.argv[1], int(sys.argv[2])))
        print("sent", n, flush=True)
    except OSError as exc:
        print("error", errno.errorcode.get(exc.errno), flush=True)
    time.sleep(0.05)  # a send rate, not synchronisation
"""
MDNS = ("224.0.0.251", "5353")


def probe(lan: Lan, node: str, target: str, port: int = PORT, timeout: float = 1.0) -> str:
    done = lan.run(
        node,
        [sys.executable, "-c", TCP_PROBE, lan.ip(target), str(port), str(timeout)],
        timeout=timeout + 10,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture
def echo(lan: Lan) -> None:
    server = lan.spawn("host", [sys.executable, "-c", ECHO_SERVER, str(PORT)], name="echo")
    server.wait_for_line(rf"^listening {lan.ip('host')} {PORT}$", timeout=10)


def test_nodes_have_private_addresses_and_the_interface_variable(lan: Lan) -> None:
    assert lan.nodes == ("host", "p1", "p2")
    assert lan.ip("host") == f"10.199.{lan.octet}.1"
    assert lan.ip("p2") == f"10.199.{lan.octet}.12"
    for node in lan.nodes:
        shown = lan.run(node, ["sh", "-c", 'echo "$PITCHNET_INTERFACE"; ip -o -4 addr; ip route'])
        lines = shown.stdout.splitlines()
        assert lines[0] == lan.ip(node)
        assert f"inet {lan.ip(node)}/24" in shown.stdout
        assert "127.0.0.1/8" in shown.stdout
        assert any(line.startswith("224.0.0.0/4 dev eth0") for line in lines)
        assert "default" not in shown.stdout  # nothing can be routed out of the LAN


def test_root_namespace_is_untouched(lan_factory: Callable[..., Lan]) -> None:
    before = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    lan = lan_factory(players=1)
    after = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    addrs = subprocess.run(["ip", "-o", "addr"], capture_output=True, text=True).stdout
    assert len(lan.namespaces()) == 3
    assert after.count("\n") == before.count("\n")
    assert "10.199." not in addrs


@pytest.mark.usefixtures("echo")
def test_player_reaches_host_then_cut_and_heal(lan: Lan) -> None:
    assert probe(lan, "p1", "host") == "ok"
    assert probe(lan, "p1", "host", CLOSED_PORT) == "refused"
    lan.cut("p1")
    assert probe(lan, "p1", "host", timeout=0.5) in ("ENETUNREACH", "EHOSTUNREACH", "timeout")
    assert probe(lan, "p2", "host") == "ok"  # only p1 lost its link
    assert probe(lan, "host", "p1", CLOSED_PORT, timeout=0.5) in ("EHOSTUNREACH", "timeout")
    lan.heal("p1")
    wait_for(lambda: probe(lan, "p1", "host") == "ok", timeout=10, what="p1 back after heal")


@pytest.mark.parametrize("at", ["node", "switch"])
@pytest.mark.usefixtures("echo")
def test_drop_is_silent_and_undrop_restores(lan: Lan, at: str) -> None:
    held = lan.spawn(
        "p1",
        [sys.executable, "-c", HELD_CLIENT, lan.ip("host"), str(PORT), "1"],
        stdin=subprocess.PIPE,
        name="held",
    )
    held.wait_for_line("^connected$", timeout=10)
    udp = lan.spawn("host", [sys.executable, "-c", UDP_RECV, UDP_PORT], name="udp")
    udp.wait_for_line("^bound$", timeout=10)

    def send_udp(payload: str) -> str:
        sent = lan.run("p1", [sys.executable, "-c", UDP_SEND, lan.ip("host"), UDP_PORT, payload])
        return sent.stdout.strip() + sent.stderr

    def say(word: str) -> None:
        assert held.stdin is not None
        held.stdin.write(f"{word}\n".encode())
        held.stdin.flush()

    say("before")
    held.wait_for_line("^got before$", timeout=5)

    assert lan.drop("p1", at=at) == at  # type: ignore[arg-type]
    say("during")
    held.wait_for_line("^timeout during$", timeout=5)  # no echo, and no RST closed it
    assert probe(lan, "p1", "host", timeout=0.5) == "timeout"
    assert probe(lan, "p1", "host", CLOSED_PORT, timeout=0.5) == "timeout"  # no RST either
    assert probe(lan, "host", "p1", CLOSED_PORT, timeout=0.5) == "timeout"
    assert send_udp("lost") == "sent 4"  # the send "succeeds" (no EPERM): silent
    assert probe(lan, "p2", "host") == "ok"

    lan.undrop("p1")
    wait_for(lambda: probe(lan, "p1", "host") == "ok", timeout=10, what="p1 back after undrop")
    assert send_udp("found") == "sent 5"
    udp.wait_for_line(f"^udp found from {lan.ip('p1')}$", timeout=10)
    assert "lost" not in udp.log()  # same path, in order: had it gone out, it came first
    mark = held.mark()
    say("after")
    # The held connection survived: TCP retransmits "during", then "after" is echoed.
    held.wait_for_line("^got during$", timeout=10)
    held.wait_for_line("^got after$", timeout=10, since=mark)
    assert held.alive()


def test_multicast_crosses_the_bridge_and_survives_cut_heal(lan: Lan) -> None:
    receivers = [
        lan.spawn(n, [sys.executable, "-c", MCAST_RECV, *MDNS], name=f"mrecv-{n}")
        for n in ("host", "p2")
    ]
    for receiver in receivers:
        receiver.wait_for_line("^joined$", timeout=10)
    sender = lan.spawn("p1", [sys.executable, "-c", MCAST_SEND, *MDNS], name="msend")
    for receiver in receivers:
        receiver.wait_for_line(rf"^got hello-\d+ from {lan.ip('p1')}$", timeout=10)
    lan.kill(sender)

    lan.cut("p1")
    cut_sender = lan.spawn("p1", [sys.executable, "-c", MCAST_SEND, *MDNS], name="msend-cut")
    cut_sender.wait_for_line("^error ENETUNREACH$", timeout=10)
    lan.kill(cut_sender)

    lan.heal("p1")  # must re-add the 224.0.0.0/4 route, or sends keep failing
    marks = [r.mark() for r in receivers]
    healed = lan.spawn("p1", [sys.executable, "-c", MCAST_SEND, *MDNS], name="msend-healed")
    for receiver, mark in zip(receivers, marks, strict=True):
        receiver.wait_for_line(rf"^got hello-\d+ from {lan.ip('p1')}$", timeout=10, since=mark)
    assert "error" not in healed.log()


def test_kill_is_sigkill_and_reaps(lan: Lan) -> None:
    proc = lan.spawn(
        "p2", [sys.executable, "-c", "print('up', flush=True); input()"], stdin=subprocess.PIPE
    )
    proc.wait_for_line("^up$", timeout=10)
    assert lan.kill(proc) == -9
    assert not proc.alive()


def test_wait_helpers_fail_at_their_deadline(lan: Lan) -> None:
    with pytest.raises(WaitTimeout, match="never"):
        wait_for(lambda: False, timeout=0.2, what="never")
    quiet = lan.spawn("p1", [sys.executable, "-c", "print('something else')"])
    with pytest.raises(AssertionError, match="exited"):
        quiet.wait_for_line("^the line$", timeout=10)
    sleeper = lan.spawn("p1", [sys.executable, "-c", "input()"], stdin=subprocess.PIPE)
    with pytest.raises(WaitTimeout, match="the line"):
        sleeper.wait_for_line("^the line$", timeout=0.3)


def test_namespaces_and_processes_gone_after_exit_even_on_error(
    lan_ready: None, tmp_path: Path
) -> None:
    lan = Lan(tmp_path, players=1)
    with pytest.raises(RuntimeError, match="boom"), lan:
        assert len(lan.namespaces()) == 3
        proc = lan.spawn(
            "p1", [sys.executable, "-c", "print('up', flush=True); input()"], stdin=subprocess.PIPE
        )
        proc.wait_for_line("^up$", timeout=10)
        raise RuntimeError("boom")
    assert lan.namespaces() == []
    assert proc.returncode == -9


def test_sweep_removes_only_namespaces_of_dead_runs(lan: Lan) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = f"pnt{dead.pid}x1-host"
    subprocess.run(["ip", "netns", "add", stale], check=True)
    try:
        assert stale in sweep_stale()
        listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        assert stale not in listed
        assert len(lan.namespaces()) == 4  # this live run's LAN is kept
    finally:
        subprocess.run(["ip", "netns", "del", stale], capture_output=True)
