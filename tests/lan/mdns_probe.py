"""Two small programs for the LAN test of zeroconf's listener (issue 11 item 9).

`python mdns_probe.py advertise confined|raw` advertises a pitchnet table on 127.0.0.1
only: "confined" through `pitchnet.network.default_zeroconf` (the listener tied to the
loopback device), "raw" through a bare AsyncZeroconf(interfaces=["127.0.0.1"]), the
library's default, as the control. It prints "ready" once registered, then waits.

`python mdns_probe.py ask FROM IP SECONDS` sends, from an ephemeral port of FROM (the
asking namespace's own address, never the wildcard), a unicast DNS
question for `_pitchnet._tcp.local.` PTR to IP:5353 (a legacy unicast query, which an
mDNS responder answers by unicast), and prints how many answers came within SECONDS.
"""

from __future__ import annotations

import asyncio
import socket
import sys
import time


async def advertise(kind: str) -> None:
    from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

    from pitchnet.network import default_zeroconf
    from pitchnet.protocol import SERVICE_TYPE

    zc = default_zeroconf("127.0.0.1") if kind == "confined" else AsyncZeroconf(["127.0.0.1"])
    info = AsyncServiceInfo(
        SERVICE_TYPE,
        f"Probe {kind}.{SERVICE_TYPE}",
        port=7373,
        properties={"v": "3", "id": "probe", "taken": "0", "seats": "4", "state": "lobby"},
        server="pitchnet-probe.local.",
        parsed_addresses=["127.0.0.1"],
    )
    await zc.async_register_service(info)
    print("ready", flush=True)
    await asyncio.Event().wait()


def ask(source: str, ip: str, seconds: float) -> int:
    # zeroconf exports these at run time but leaves them out of its __all__.
    from zeroconf import DNSOutgoing, DNSQuestion  # type: ignore[attr-defined]
    from zeroconf.const import _CLASS_IN, _FLAGS_QR_QUERY, _TYPE_PTR

    from pitchnet.protocol import SERVICE_TYPE

    out = DNSOutgoing(_FLAGS_QR_QUERY, multicast=False)
    out.add_question(DNSQuestion(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN))
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((source, 0))
    answers = 0
    deadline = time.monotonic() + seconds
    for packet in out.packets():
        sock.sendto(packet, (ip, 5353))
    while (left := deadline - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            sock.recvfrom(9000)
        except TimeoutError:
            break
        answers += 1
    return answers


if __name__ == "__main__":
    if sys.argv[1] == "advertise":
        asyncio.run(advertise(sys.argv[2]))
    else:
        print(ask(sys.argv[2], sys.argv[3], float(sys.argv[4])))
