"""`pitchnet host`: run one table until Ctrl-C or SIGTERM, then shut down cleanly."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from pathlib import Path

from host.journal import JournalError
from host.limits import Limits
from host.server import HostConfig, HostServer
from pitchnet.cli import rules_from_args
from pitchnet.errors import describe_os_error
from pitchnet.i18n import _
from pitchnet.invocation import shown_command
from pitchnet.protocol import DEFAULT_PORT, MAX_PASSWORD
from pitchnet.rules import Settings


def config_from_args(args: argparse.Namespace) -> HostConfig:
    password = args.password
    if args.password_file:
        password = Path(args.password_file).read_text(encoding="utf-8").strip()
    if not 0 <= args.bots < args.players:  # a table of bots only would wait for ever
        raise ValueError(
            _(
                "--bots must be 0 to {most}, leaving a seat for a person (to watch bots play "
                "each other, use `{command}`).",
                most=args.players - 1,
                command=shown_command(["pitchnet", "simulate"]),
            )
        )
    rules, target = rules_from_args(args)
    Settings(args.players, args.partnership, target, rules)  # the rules' own checks
    room = Limits().max_per_address - 1  # the host's own player may sit here too
    if getattr(args, "web", None) is not None and args.web_sessions > room:
        raise ValueError(
            _(
                "--web-sessions can be at most {most}: every browser's game runs on this "
                "laptop, and the table takes {connections} connections from one address",
                most=room,
                connections=room + 1,
            )
        )
    limit = MAX_PASSWORD
    if password and len(password) > limit:
        raise ValueError(
            _("the password is longer than the {n} characters a client can send", n=limit)
        )
    return HostConfig(
        name=args.name,
        port=DEFAULT_PORT if args.port is None else args.port,
        port_fallback=args.port is None,
        interface=args.interface,
        players=args.players,
        partnership=args.partnership,
        target=target,
        rules=rules,
        bots=args.bots,
        seed=args.seed,
        grace=args.grace,
        substitute=not args.no_substitute,
        password=password or None,
        bot_delay=args.bot_delay,
        bot_level=args.bot_level,
        resume=args.resume,
        stand_in=tuple(seat - 1 for seat in args.stand_in),
        ready_limit=args.ready,
        spectators=not args.no_spectators,
        coach=not args.no_coach,
        reactions=not args.no_reactions,
        spectator_reactions=args.spectator_reactions,
        turn_timer=args.turn_timer,
    )


def resume_command(server: HostServer, interface: str | None, web_port: int | None = None) -> str:
    """The exact command that brings this table back on the same port (and its web
    join on the same web port, so the browsers' pages find it again by themselves)."""
    command = ["pitchnet", "host", "--resume", server.table_id, "--port", str(server.port)]
    if web_port is not None:
        command += ["--web", str(web_port)]
    return shown_command(command + (["--interface", interface] if interface else []))


async def serve(config: HostConfig, web: argparse.Namespace | None = None) -> int:
    server = HostServer(config)
    loop = asyncio.get_running_loop()
    # A stop asked for while the table is still opening (a `play` window ending or taking
    # back a background table it just saw) waits for it to open, then closes it properly:
    # without a handler yet, SIGTERM would kill the host before it could tell anyone.
    asked: list[bool] = []
    opened = False
    closing: set[asyncio.Future[None]] = set()  # kept until done (asyncio holds weak refs)

    def stop(on_purpose: bool) -> None:
        if opened:
            task = asyncio.ensure_future(server.close(on_purpose=on_purpose))
            closing.add(task)
            task.add_done_callback(closing.discard)
        else:
            asked.append(on_purpose)

    # Ctrl+C (or SIGTERM) ends the table on purpose: every client is told the host closed
    # it. SIGHUP: a `pitchnet play` window takes the table back (client/background.py):
    # the clients are told it will be back, keep their seats and reconnect to that window.
    for sig, on_purpose in ((signal.SIGINT, True), (signal.SIGTERM, True), (signal.SIGHUP, False)):
        loop.add_signal_handler(sig, stop, on_purpose)
    try:
        await server.start()
    except OSError as exc:  # the port it tried: a resumed table's own, or the one chosen
        text = describe_os_error(exc, host=config.interface, port=server.port)
        print(f"pitchnet host: {text}", file=sys.stderr)
        return 1
    from host.advertise import host_addresses

    addresses = host_addresses(config.interface)
    web_server = None
    if web is not None and web.web is not None:
        from host.web import table_web_join

        web_server = table_web_join(
            server,
            web.web,
            config.interface,
            max_sessions=web.web_sessions,
            max_per_address=web.web_per_address,
            idle_seconds=web.web_idle,
        )
        try:
            await web_server.start()
        except OSError as exc:  # the table's own port is fine: this is the web page's
            await server.close()
            text = describe_os_error(exc, host=config.interface, port=web.web, option="--web")
            print(f"pitchnet host: {text}", file=sys.stderr)
            return 1
    opened = True
    if asked:
        stop(asked[0])
    name = repr(server.name)
    print(_("Table {name} is open: id {table_id}", name=name, table_id=server.table_id), flush=True)
    for address in addresses:
        join = shown_command(["pitchnet", "join", f"{address}:{server.port}"])
        print(_("Players join with: {command}", command=join), flush=True)
    play = shown_command(["pitchnet", "play"])
    print(_("(or just `{command}`: it finds this table on the network)", command=play), flush=True)
    if web_server is not None:
        from host.web_qr import show_urls

        show_urls(web_server.urls(addresses), sys.stdout)
    try:
        await server.wait_closed()
    finally:
        if web_server is not None:
            # Closed "back in a moment" (SIGHUP), the pages reconnect without being told
            # the table is over; closed on purpose, they say the host closed it.
            await web_server.close(ended=server.closed_on_purpose)
            if server.journal is not None:
                from host.web_keep import forget_if_done

                # Closed "back in a moment" (SIGHUP: a `play` window takes the table
                # back): the browsers' identities stay for the table's next host even in
                # a lobby, or a phone would come back a stranger to the seat it holds
                # (its token is in its identity's seat file).
                back = not server.closed_on_purpose
                forget_if_done(server.journal.path, server.resumable or back)
    if server.resumable:
        print(_("Table {name} closed. To carry on where it stopped, run:", name=name), flush=True)
        web_port = web_server.port if web_server is not None else None
        print(f"  {resume_command(server, config.interface, web_port)}", flush=True)
    else:
        print(_("Table {name} closed.", name=name), flush=True)
    return 0


def main(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=args.log_level.upper(),
        format="%(asctime)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    try:
        config = config_from_args(args)
    except OSError as exc:
        reason = (exc.strerror or _("unreadable")).lower()
        print(
            _(
                "pitchnet host: cannot read the password file {path}: {reason}.",
                path=str(args.password_file),
                reason=reason,
            ),
            file=sys.stderr,
        )
        return 2
    except ValueError as exc:
        print(f"pitchnet host: {exc}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(serve(config, args))
    except JournalError as exc:
        print(f"pitchnet host: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        text = describe_os_error(exc, host=config.interface, port=config.port)
        print(f"pitchnet host: {text}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # before the signal handlers were in place
        print(_("pitchnet host: stopped before the table opened."), file=sys.stderr)
        return 130
