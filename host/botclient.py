"""`pitchnet bot HOST:PORT`: headless computer players that join over the network,
exactly as a human's client does, and play until the match ends.

They decide from the seat view the host sends, like the in-host bots, so a
seeded match replays the same whether its bots sit inside the host or here.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from pitchnet.bots import make_bot
from pitchnet.protocol import (
    PROTOCOL_VERSION,
    BidMsg,
    Bye,
    ErrorMsg,
    FrameDecoder,
    Hello,
    Message,
    Ping,
    PlayMsg,
    Pong,
    ProtocolError,
    Ready,
    State,
    TableInfo,
    Welcome,
    parse_host_message,
)
from pitchnet.views import SeatView

DEAD_AFTER = 3.0

log = logging.getLogger("pitchnet.bot")


def parse_address(text: str, default_port: int) -> tuple[str, int]:
    """ "HOST", "HOST:PORT" or "[v6]:PORT" -> (host, port)."""
    host, sep, port = text.rpartition(":")
    if not sep or "]" in port:
        return text.strip("[]"), default_port
    try:
        return host.strip("[]"), int(port)
    except ValueError:
        raise ValueError(f"{text!r} is not HOST:PORT") from None


async def play_one(
    host: str,
    port: int,
    name: str,
    kind: str = "heuristic",
    password: str | None = None,
) -> int:
    """Play one seat to the end of the match. Returns a process exit status."""
    bot = make_bot(kind, seed=0)
    reader, writer = await asyncio.open_connection(host, port)
    decoder = FrameDecoder()
    next_id = 0

    def send(message: Message) -> None:
        writer.write(message.encode())

    send(Hello(version=PROTOCOL_VERSION, name=name, password=password))
    acted: tuple[int, ...] | None = None
    try:
        while True:
            data = await asyncio.wait_for(reader.read(65536), DEAD_AFTER)
            if not data:
                log.error("%s: the host closed the connection", name)
                return 1
            for payload in decoder.feed(data):
                msg = parse_host_message(payload)
                if isinstance(msg, Ping):
                    send(Pong(t=msg.t))
                elif isinstance(msg, Welcome):
                    next_id = msg.last_id
                elif isinstance(msg, ErrorMsg):
                    log.warning("%s: host says %s: %s", name, msg.code, msg.message)
                    if msg.fatal:
                        return 1
                elif isinstance(msg, Bye):
                    log.error("%s: host says goodbye: %s", name, msg.reason)
                    return 1
                elif isinstance(msg, State) and msg.view is not None:
                    view = SeatView.from_wire(msg.view)
                    table = TableInfo.from_wire(msg.table)
                    if view.phase == "match_over":
                        log.info("%s: match over, side %s wins", name, view.winner)
                        return 0
                    key = (view.hand_number, len(view.bids), len(view.tricks), len(view.trick))
                    if acted == key:
                        continue
                    if view.phase == "hand_over" and not table.seats[view.seat].ready:
                        acted, next_id = key, next_id + 1
                        send(Ready(id=next_id))
                    elif view.my_turn and view.phase in ("bidding", "playing"):
                        acted, next_id = key, next_id + 1
                        decision = bot.decide(view)
                        if decision.kind == "bid":
                            send(BidMsg(id=next_id, bid=decision.bid))
                        else:
                            send(PlayMsg(id=next_id, card=str(decision.card)))
    except (ConnectionError, TimeoutError, ProtocolError) as exc:
        log.error("%s: connection lost: %s", name, exc or type(exc).__name__)
        return 1
    finally:
        writer.close()


async def run(args: argparse.Namespace) -> int:
    from pitchnet.cli import DEFAULT_PORT

    host, port = parse_address(args.address, DEFAULT_PORT)
    names = [args.name] if args.count == 1 else [f"{args.name} {i + 1}" for i in range(args.count)]
    results = await asyncio.gather(
        *(play_one(host, port, n, args.kind, args.password) for n in names)
    )
    return max(results, default=0)


def main(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(name)s %(message)s", stream=sys.stderr
    )
    try:
        return asyncio.run(run(args))
    except KeyboardInterrupt:
        return 130
    except (OSError, ValueError) as exc:
        print(f"pitchnet bot: {exc}", file=sys.stderr)
        return 1
