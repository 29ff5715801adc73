"""How fast a dropped player is noticed, and how fast they are back, on a simulated LAN;
beside how long plain TCP leaves the same silent drop unnoticed.

Method (run as root: it makes network namespaces with tests/lan/harness.py):
  - A real `pitchnet host` (2 seats, 1 bot, seeded, no substitute) runs in the ``host``
    namespace. In ``p1`` a probe process takes the other seat (so a hand is dealt and
    waits on it) through the client's own `client.connection.Connection` (heartbeats,
    reconnect with backoff and token), and prints each Welcomed, StateReceived and
    Disconnected it gets, stamped with CLOCK_MONOTONIC (one clock for every namespace).
  - Each try: wait until the probe holds a view, then a seeded random 0-2 s (so the
    fault falls at any phase of the 1 s heartbeats); silence p1 (an nftables drop on its
    switch port: no RST, no error, nothing either kernel can see) and note the time; the
    client's notice is its first Disconnected, the host's is its "seat N (Probe)
    disconnected" log line (wall clock, ms). Keep it silent until both have noticed plus
    a seeded random 0-8 s (restores then fall at every phase of the retry loop, whose
    connect attempts wait up to 5 s for an answer to their SYN), restore,
    and time until the probe holds a fresh view: the first state after a welcome. The
    same again with the link taken down and up (`ip link set down`).
  - TCP alone: a plain socket pair between p1 and host (Python's defaults: no keepalive),
    one idle and one where p1 writes a byte a second, silenced the same way for a bounded
    window; neither end hears of it. The kernel's keepalive and retransmission settings are
    read from the namespace and quoted.

Run: sudo uv run python benchmarks/reconnect.py [--tries 20] [--window 60]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.lan.harness import Lan, LanProcess, unavailable_reason, wait_for  # noqa: E402

PITCHNET = str(Path(sys.executable).with_name("pitchnet"))
PORT = 7373
RAW_PORT = 7400

PROBE = """
import asyncio, sys, time
from client.connection import Connection
from client.messages import Disconnected, StateReceived, Welcomed

def post(msg):
    now = time.monotonic()
    if isinstance(msg, Welcomed):
        print("welcomed", now, msg.welcome.seat, flush=True)
    elif isinstance(msg, StateReceived):
        print("state", now, msg.seq, msg.view is not None, flush=True)
    elif isinstance(msg, Disconnected):
        print("disconnected", now, msg.reason, flush=True)

host, port = sys.argv[1], int(sys.argv[2])
conn = Connection(host, port, "Probe", post)
asyncio.run(conn.run())
"""

RAW_SERVER = """
import os, socket, sys, threading, time
srv = socket.create_server((os.environ["PITCHNET_INTERFACE"], int(sys.argv[1])))
print("listening", flush=True)
def watch(conn, label):
    try:
        while True:
            data = conn.recv(1024)
            if not data:
                print("noticed", label, "eof", time.monotonic(), flush=True)
                return
    except OSError as exc:
        print("noticed", label, type(exc).__name__, time.monotonic(), flush=True)
for label in ("idle", "busy"):
    conn, _ = srv.accept()
    print("accepted", label, flush=True)
    threading.Thread(target=watch, args=(conn, label), daemon=True).start()
threading.Event().wait()
"""

RAW_CLIENT = """
import socket, sys, threading, time
host, port = sys.argv[1], int(sys.argv[2])
idle = socket.create_connection((host, port))
busy = socket.create_connection((host, port))
print("keepalive", idle.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE), flush=True)
def watch(conn, label):
    try:
        while conn.recv(1024):
            pass
        print("noticed", label, "eof", time.monotonic(), flush=True)
    except OSError as exc:
        print("noticed", label, type(exc).__name__, time.monotonic(), flush=True)
threading.Thread(target=watch, args=(idle, "idle"), daemon=True).start()
print("connected", flush=True)
while True:
    try:
        busy.sendall(b"x")
    except OSError as exc:
        print("noticed busy-send", type(exc).__name__, time.monotonic(), flush=True)
        break
    time.sleep(1)  # one move a second: the pace of the traffic, not synchronisation
threading.Event().wait()
"""

SYSCTLS = (
    "tcp_keepalive_time",
    "tcp_keepalive_intvl",
    "tcp_keepalive_probes",
    "tcp_retries2",
)


def _stamps(proc: LanProcess, kind: str, since: int) -> list[float]:
    return [
        float(line.split()[1])
        for line in proc.log()[since:].splitlines()
        if line.startswith(kind + " ")
    ]


def _fresh_view_after(proc: LanProcess, since: int) -> float | None:
    """The time of the first state line that follows a welcome, after offset `since`."""
    welcomed = False
    for line in proc.log()[since:].splitlines():
        if line.startswith("welcomed "):
            welcomed = True
        elif welcomed and line.startswith("state ") and line.endswith("True"):
            return float(line.split()[1])
    return None


def _host_notice(host: LanProcess, since: int) -> float | None:
    """Wall-clock time of the host's first 'seat N (Probe) disconnected' after `since`."""
    for line in host.log()[since:].splitlines():
        if re.search(r"seat \d+ \(Probe\) disconnected", line):
            stamp = dt.datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f")
            return stamp.timestamp()
    return None


def one_try(
    lan: Lan, host: LanProcess, probe: LanProcess, fault: str, before: float, extra: float
) -> tuple[float, float, float]:
    """One outage of p1, `before` seconds after the probe last got a view (so the fault
    falls at any phase of the heartbeats); seconds until the client and the host noticed,
    and from the restore until the probe held a fresh view."""
    if fault == "drop":
        silence, restore = (lambda: lan.drop("p1", at="switch")), (lambda: lan.undrop("p1"))
    else:
        silence, restore = (lambda: lan.cut("p1")), (lambda: lan.heal("p1"))
    wait_for(lambda: _fresh_view_after(probe, 0), 15, what="the probe seated")
    seated = max(_stamps(probe, "state", 0))
    wait_for(lambda: time.monotonic() >= seated + before, 5, what="the moment to fail")
    host_mark, mark = host.mark(), probe.mark()
    wall, t0 = time.time(), time.monotonic()
    silence()
    client_t = wait_for(
        lambda: (s := _stamps(probe, "disconnected", mark)) and s[0], 15, what="client notice"
    )
    host_t = wait_for(lambda: _host_notice(host, host_mark), 15, what="host notice")
    resume_at = max(time.monotonic(), t0 + (host_t - wall)) + extra
    wait_for(lambda: time.monotonic() >= resume_at, extra + 10, what="the outage to end")
    back_mark = probe.mark()
    t1 = time.monotonic()
    restore()
    fresh = wait_for(lambda: _fresh_view_after(probe, back_mark), 20, what="a fresh view")
    return client_t - t0, host_t - wall, fresh - t1


def measure(
    lan: Lan,
    host: LanProcess,
    probe: LanProcess,
    tries: int,
    seed: int,
    fault: str,
    longest: float,
) -> dict[str, list[float]]:
    """`tries` outages of p1 (fault "drop" or "cut"); seconds to notice and to be back.
    Each outage lasts until both ends noticed, then 0 to `longest` seconds more."""
    rng = random.Random(seed)
    out: dict[str, list[float]] = {"client": [], "host": [], "back": []}
    for n in range(tries):
        phase, extra = rng.uniform(0.0, 2.0), rng.uniform(0.0, longest)
        client, host_notice, back = one_try(lan, host, probe, fault, phase, extra)
        out["client"].append(client)
        out["host"].append(host_notice)
        out["back"].append(back)
        print(
            f"  {fault} {n + 1:2d}: client noticed {client:.2f} s, host {host_notice:.2f} s; "
            f"back {back:.2f} s after restore",
            flush=True,
        )
    return out


def tcp_alone(lan: Lan, window: float, where: str = "switch") -> dict[str, object]:
    """Silence a plain TCP pair for `window` seconds; who noticed, and when."""
    server = lan.spawn("host", [sys.executable, "-c", RAW_SERVER, str(RAW_PORT)], name="raw-srv")
    server.wait_for_line("^listening$", 10)
    client = lan.spawn(
        "p1", [sys.executable, "-c", RAW_CLIENT, lan.ip("host"), str(RAW_PORT)], name="raw-cli"
    )
    client.wait_for_line("^connected$", 10)
    server.wait_for_line("^accepted busy$", 10)
    keepalive = client.wait_for_line(r"^keepalive (\d+)", 10).group(1)
    t0 = time.monotonic()
    lan.drop("p1", at=where)
    wait_for(lambda: time.monotonic() >= t0 + window, window + 5, interval=0.5, what="window")
    noticed = [
        line for proc in (server, client) for line in proc.log().splitlines() if "noticed" in line
    ]
    lan.undrop("p1")
    lan.kill(server)
    lan.kill(client)
    settings = {
        name: lan.run("host", ["cat", f"/proc/sys/net/ipv4/{name}"]).stdout.strip()
        for name in SYSCTLS
    }
    return {"keepalive": keepalive, "noticed": noticed, "window": window, "sysctl": settings}


def summary(label: str, values: list[float]) -> str:
    return (
        f"{label:<34} median {statistics.median(values):5.2f} s   worst {max(values):5.2f} s"
        f"   best {min(values):5.2f} s   (n={len(values)})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=20)
    parser.add_argument("--window", type=float, default=60.0, help="TCP-alone window (s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-cut", action="store_true")
    parser.add_argument(
        "--longer", type=float, default=8.0, help="outages last 0 to this many s past notice"
    )
    args = parser.parse_args()
    reason = unavailable_reason()
    if reason:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2
    started = time.time()
    with Lan(Path(tempfile.mkdtemp(prefix="pn-reconnect-")), players=1) as lan:
        env = {"PITCHNET_STATE_DIR": str(lan.home("host") / "state")}
        host = lan.spawn(
            "host",
            [
                PITCHNET,
                "host",
                "--port",
                str(PORT),
                "--players",
                "2",
                "--bots",
                "1",
                "--seed",
                "1",
                "--no-substitute",
                "--bot-delay",
                "0.05",
            ],
            env=env,
            name="host",
        )
        host.wait_for_line(r"open on", 20)
        probe = lan.spawn(
            "p1",
            [sys.executable, "-c", PROBE, lan.ip("host"), str(PORT)],
            env={"PITCHNET_STATE_DIR": str(lan.home("p1") / "state")},
            name="probe",
        )
        tries, seed, longer = args.tries, args.seed, args.longer
        results = {"drop": measure(lan, host, probe, tries, seed, "drop", longer)}
        if not args.skip_cut:
            results["cut"] = measure(lan, host, probe, tries, seed + 1, "cut", longer)
        lan.kill(probe)
        lan.kill(host)
        tcp = tcp_alone(lan, args.window)

    print()
    print(f"pitchnet reconnect benchmark, {time.strftime('%Y-%m-%d', time.localtime(started))}")
    for fault, out in results.items():
        what = "silent drop (nftables)" if fault == "drop" else "link down (ip link)"
        print(f"{what}:")
        print("  " + summary("client notices (heartbeat)", out["client"]))
        print("  " + summary("host notices (heartbeat)", out["host"]))
        print("  " + summary("back to a fresh view after restore", out["back"]))
    print(f"plain TCP, same silent drop, watched for {tcp['window']:.0f} s:")
    print(f"  SO_KEEPALIVE on a fresh Python socket: {tcp['keepalive']}")
    print(f"  noticed within the window: {tcp['noticed'] or 'nothing, by either end'}")
    print("  kernel: " + ", ".join(f"{k}={v}" for k, v in tcp["sysctl"].items()))  # type: ignore[union-attr]
    return 0


if __name__ == "__main__":
    sys.exit(main())
