"""The `pitchnet` command: parses arguments, then imports host/ or client/ lazily.

Lazy imports keep `pitchnet vectors` and `pitchnet simulate` free of Textual and
zeroconf start-up costs, and keep the client's launch time down.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from typing import NoReturn

from pitchnet.bots import ALIASES, BOT_KINDS, DEFAULT_LEVEL, LEVELS
from pitchnet.house_rules import HouseRules, resolve
from pitchnet.i18n import (
    LANGUAGES,
    N_,
    _,
    choose,
    from_environment,
    ngettext,
    normalise,
    use,
)
from pitchnet.network import INTERFACE_ENV, effective_interface
from pitchnet.protocol import DEFAULT_PORT
from pitchnet.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, TARGETS
from pitchnet.search import Budget

TURN_TIMERS = (0, 15, 30, 60)
"""The turn timer's choices, in seconds (0: off)."""
ASCII_HELP = N_("plain ASCII: suits as letters, no symbols or box lines")


def _whole(text: str, what: str) -> int:
    """`text` as a whole number; argparse shows a ValueError by the function's own name
    ("invalid _port value"), so every failure here is an ArgumentTypeError sentence."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("{text} is not a number; {what}", text=repr(text), what=what)
        ) from None


def _players(text: str) -> int:
    what = _("the players are {least} to {most}.", least=MIN_PLAYERS, most=MAX_PLAYERS)
    value = _whole(text, what)
    if not MIN_PLAYERS <= value <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(
            ngettext(
                "{n} player cannot sit at a table; {what}",
                "{n} players cannot sit at a table; {what}",
                value,
                what=what,
            )
        )
    return value


def _port(text: str) -> int:
    what = _("a port is a number from 1 to 65535 (0: any free port).")
    value = _whole(text, what)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(_("{n} is not a port; {what}", n=str(value), what=what))
    return value


def _target(text: str) -> int:
    what = _("the target is one of {targets}.", targets=", ".join(map(str, TARGETS)))
    value = _whole(text, what)
    if value not in TARGETS:
        raise argparse.ArgumentTypeError(_("{n} is not a target; {what}", n=str(value), what=what))
    return value


def _count(text: str) -> int:
    value = _whole(text, _("give a count such as 1 or 3."))
    if value < 0:
        raise argparse.ArgumentTypeError(_("{n} is less than none; give 0 or more.", n=str(value)))
    return value


def _seconds(text: str) -> float:
    what = _("give seconds as a number such as 20 or 1.5.")
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("{text} is not a number; {what}", text=repr(text), what=what)
        ) from None
    if not 0 <= value <= 86400:
        raise argparse.ArgumentTypeError(
            _("{text} is not 0 to 86400 seconds; {what}", text=text, what=what)
        )
    return value


def _think(text: str) -> float:
    return _seconds(text)


def _language(text: str) -> str:
    found = normalise(text)
    if found is None:
        raise argparse.ArgumentTypeError(
            _(
                "{lang} is not a language pitchnet speaks ({languages}).",
                lang=repr(text),
                languages=", ".join(LANGUAGES),
            )
        )
    return found


def _add_language(parser: argparse.ArgumentParser, dest: str = "lang") -> None:
    parser.add_argument(
        "--lang",
        dest=dest,
        type=_language,
        metavar="LANG",
        help=_(
            "the language to speak: {languages} (default: the one chosen last, else the "
            "system's, else English); remembered",
            languages=", ".join(LANGUAGES),
        ),
    )


def asked_language(argv: Sequence[str]) -> str | None:
    """The `--lang` given on a command line, read before argparse (whose own help and
    sentences are worded in it); None if none was given."""
    for index, arg in enumerate(argv):
        if arg == "--lang" and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith("--lang="):
            return arg.partition("=")[2]
    return None


def choose_language(argv: Sequence[str], environ: Mapping[str, str]) -> str:
    """The language of this run: `--lang` (remembered for the next), else the language
    the player chose last, else the system's locale (LANGUAGE, LC_ALL, LC_MESSAGES,
    LANG), else English."""
    from client.settings import load_language, save_language

    asked = normalise(asked_language(argv))
    if asked is not None:
        save_language(asked)
        return asked
    return choose(load_language(), from_environment(environ))


def _add_interface(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--interface",
        metavar="IP",
        default=effective_interface(),
        help=_(
            "the local address to bind and advertise on (default: ${variable}, else every "
            "interface)",
            variable=INTERFACE_ENV,
        ),
    )


def _add_password(parser: argparse.ArgumentParser, note: str) -> None:
    parser.add_argument(
        "--password",
        help=_("the table's password, if it has one (else you are asked{note})", note=note),
    )


def _add_rules(parser: argparse.ArgumentParser) -> None:
    """--target, --rules PRESET and --rule NAME=VALUE (RULES.md, "House rules")."""
    parser.add_argument(
        "--target",
        type=_target,
        default=None,
        help=_("points to win (default 7, or the preset's: 10 for joker)"),
    )
    parser.add_argument(
        "--rules",
        metavar="PRESET",
        choices=list(PRESETS),
        help=_("house rules by name: ")
        + "; ".join(f"{p.name}: {_(p.summary)}" for p in PRESETS.values()),
    )
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=_(
            "one house rule, overriding the preset (repeatable): low=dealt, dealer_steal=off, "
            "all_pass=redeal, min_bid=2, follow=must_follow, smudge=on, joker=on, target=10"
        ),
    )


def rules_from_args(args: argparse.Namespace) -> tuple[HouseRules, int]:
    """The house rules and target that --rules, --rule and --target ask for (--target wins
    over a target set by the others). Raises RulesConfigError (a ValueError) with a sentence."""
    rules, target = resolve(args.rules, args.rule)
    return rules, args.target or target or 7


def _add_log_level(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help=_("how much to log (default: info)"),
    )


def _add_web(parser: argparse.ArgumentParser) -> None:
    web = parser.add_argument_group(_("joining from a browser"))
    web.add_argument(
        "--web",
        type=_port,
        metavar="PORT",
        help=_("also serve the game to browsers (phones too) on http://IP:PORT/"),
    )
    web.add_argument(
        "--web-sessions",
        type=_web_count,
        default=12,
        metavar="N",
        help=_("browsers playing at once, at most (default 12: each is a process here)"),
    )
    web.add_argument(
        "--web-per-address",
        type=_web_count,
        default=4,
        metavar="N",
        help=_("browsers from one device, at most (default 4)"),
    )
    web.add_argument(
        "--web-idle",
        type=_seconds,
        default=1800.0,
        metavar="SECONDS",
        help=_("end a browser session after this long without a keypress or tap (default 1800)"),
    )


def _web_count(text: str) -> int:
    value = _whole(text, _("give a number from 1 to 64."))
    if not 1 <= value <= 64:
        raise argparse.ArgumentTypeError(
            _("{n} is not 1 to 64; give a number from 1 to 64.", n=str(value))
        )
    return value


def _add_bot_level(parser: argparse.ArgumentParser, whose: str) -> None:
    parser.add_argument(
        "--bot-level",
        choices=LEVELS,
        default=DEFAULT_LEVEL,
        help=_(
            "how well the computer players of {whose} play, stand-ins for absent players "
            "included: {levels} (default {level})",
            whose=whose,
            levels=", ".join(LEVELS),
            level=DEFAULT_LEVEL,
        ),
    )


def _plain_error(message: str) -> str:
    """argparse's phrasing, in words a person reads at once."""
    import re

    required = re.fullmatch(r"the following arguments are required: (.+)", message)
    if required:
        names = required.group(1)
        if ", " in names:
            return _("{names} are missing", names=names)
        return _("{names} is missing", names=names)
    unknown = re.fullmatch(r"unrecognized arguments: (.+)", message)
    if unknown:
        return _("{arguments} is not understood here", arguments=unknown.group(1))
    message = re.sub(r"^argument ([^:]+): ", r"\1: ", message)
    choice = re.search(r"invalid choice: ('.*') \(choose from (.*)\)", message)
    if choice:
        said = _("{value} is not one of {choices}", value=choice[1], choices=choice[2])
        message = message[: choice.start()] + said + message[choice.end() :]
    number = re.search(r"invalid (int|float) value: ('.*')", message)
    if number:
        said = _("{value} is not a number", value=number[2])
        message = message[: number.start()] + said + message[number.end() :]
    return message


class SentenceParser(argparse.ArgumentParser):
    """argparse, saying a mistake in one sentence with where the options are listed,
    instead of the whole usage block before a one-line error."""

    def error(self, message: str) -> NoReturn:
        from pitchnet.invocation import shown_command

        message = _plain_error(message)
        end = "" if message.endswith(".") else "."
        command = self.prog.split()
        command[0] = "pitchnet"  # the prog, less whatever path the script was run by
        help_command = shown_command([*command, "--help"])
        self.exit(
            2,
            _(
                "{prog}: {message}{end} `{command}` lists the options.",
                prog=self.prog,
                message=message,
                end=end,
                command=help_command,
            )
            + "\n",
        )


NO_REACTIONS_HELP = N_("show no one's quick reactions (nice play, oops, ...) in this window")


def build_parser() -> argparse.ArgumentParser:
    parser = SentenceParser(
        prog="pitchnet",
        description=_("Auction Pitch (Setback) around a table of laptops on your LAN."),
    )
    # Before the command too (`pitchnet --lang te history`), under a name of its own: a
    # command's own --lang default would otherwise overwrite it (see `_lang_before`).
    _add_language(parser, dest="lang_before")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=SentenceParser)

    play = commands.add_parser(
        "play",
        help=_("sit at a table on the LAN, or set one up for friends (bots fill empty seats)"),
    )
    play.add_argument("--name", help=_("your display name (default: remembered, else login name)"))
    play.add_argument("--ascii", action="store_true", help=_(ASCII_HELP))
    play.add_argument("--no-reactions", action="store_true", help=_(NO_REACTIONS_HELP))
    _add_password(play, _("; a table hosted here never asks its own window"))
    _add_bot_level(play, _("a table hosted here"))
    _add_interface(play)
    _add_language(play)

    join = commands.add_parser("join", help=_("join a table (without an address: find one)"))
    join.add_argument("address", nargs="?", metavar="HOST[:PORT]")
    join.add_argument("--name", help=_("your display name (default: remembered, else login name)"))
    join.add_argument("--ascii", action="store_true", help=_(ASCII_HELP))
    join.add_argument("--no-reactions", action="store_true", help=_(NO_REACTIONS_HELP))
    _add_password(join, "")
    _add_interface(join)
    _add_language(join)

    host = commands.add_parser("host", help=_("host a table and referee its games"))
    host.add_argument("--name", help=_("the table's name (default: a friendly one)"))
    host.add_argument(
        "--port",
        type=_port,
        default=None,
        help=_(
            "TCP port (default {port}, or a free one if that is taken; a port given here "
            "must be free)",
            port=str(DEFAULT_PORT),
        ),
    )
    _add_interface(host)
    host.add_argument("--players", type=_players, default=4, help=_("seats at the table (2-7)"))
    host.add_argument("--partnership", action="store_true", help=_("4 players in two teams"))
    _add_rules(host)
    host.add_argument(
        "--bots", type=_count, default=0, metavar="K", help=_("computer players to seat")
    )
    host.add_argument(
        "--seed",
        type=int,
        help=_("seed the shuffle: makes every deal PREDICTABLE (tests and benchmarks only)"),
    )
    host.add_argument(
        "--resume",
        nargs="?",
        const="",
        metavar="TABLE_ID",
        help=_("resume an unfinished table from its journal (default: the latest)"),
    )
    host.add_argument(
        "--stand-in",
        type=int,
        action="append",
        default=[],
        metavar="SEAT",
        help="with --resume: a bot plays this seat (1 is the first) at once, its player "
        "having gone on purpose (the window that kept the table running passes its own)",
    )
    host.add_argument(
        "--grace",
        type=_seconds,
        default=60.0,
        metavar="SECONDS",
        help=_("how long an absent player's seat waits before a bot plays it (default 60)"),
    )
    host.add_argument(
        "--no-substitute", action="store_true", help=_("never let a bot play an absent seat")
    )
    host.add_argument(
        "--bot-delay",
        type=_seconds,
        default=0.6,
        metavar="SECONDS",
        help=_(
            "pause before a computer player acts, so people can follow (default 0.6; "
            "2.5 times as long before a bot leads after a finished trick)"
        ),
    )
    _add_bot_level(host, _("the table"))
    host.add_argument(
        "--ready",
        type=_seconds,
        default=20.0,
        metavar="SECONDS",
        help=_(
            "after a hand, deal the next one after this long even if someone has not "
            "pressed Enter (default 20; 0: wait for everyone)"
        ),
    )
    host.add_argument(
        "--no-spectators", action="store_true", help=_("refuse people who only want to watch")
    )
    host.add_argument(
        "--turn-timer",
        type=int,
        choices=TURN_TIMERS,
        default=0,
        metavar="SECONDS",
        help=_(
            "seconds a person has for a bid or a card before a bot makes that one move "
            "for them: 0 (off, the default), 15, 30 or 60"
        ),
    )
    host.add_argument(
        "--no-coach",
        action="store_true",
        help=_("players may not ask the coach (c) what the hard bot would do"),
    )
    host.add_argument(
        "--no-reactions",
        action="store_true",
        help=_("the table relays no quick reactions (nice play, oops, ...)"),
    )
    host.add_argument(
        "--spectator-reactions",
        action="store_true",
        help=_("people watching may send quick reactions too"),
    )
    host.add_argument("--password", help=_("a password players must give to join"))
    host.add_argument("--password-file", metavar="FILE", help=_("read the password from FILE"))
    _add_web(host)
    _add_log_level(host)

    bot = commands.add_parser("bot", help=_("connect headless computer players to a table"))
    bot.add_argument(
        "address",
        metavar="HOST[:PORT]",
        help=_("the table (port {port} if none)", port=str(DEFAULT_PORT)),
    )
    bot.add_argument("--count", type=_count, default=1, help=_("how many bots (default 1)"))
    bot.add_argument("--name", default="Bot", help=_("name prefix (default Bot)"))
    bot.add_argument(
        "--level",
        "--kind",
        dest="kind",
        choices=[*BOT_KINDS, *ALIASES],
        default=DEFAULT_LEVEL,
        help=_(
            "how well they play: {levels}, or random (default {level})",
            levels=", ".join(LEVELS),
            level=DEFAULT_LEVEL,
        ),
    )
    bot.add_argument("--password", help=_("the table's password, if it has one"))
    bot.add_argument(
        "--think",
        type=_think,
        default=0.0,
        metavar="SECONDS",
        help=_("pause before each action, so a match lasts long enough to watch (default 0)"),
    )
    _add_interface(bot)
    _add_log_level(bot)

    watch = commands.add_parser("watch", help=_("watch a table without taking a seat"))
    watch.add_argument(
        "address",
        metavar="HOST[:PORT]",
        help=_("the table (port {port} if none)", port=str(DEFAULT_PORT)),
    )
    watch.add_argument("--ascii", action="store_true", help=_(ASCII_HELP))
    _add_password(watch, "")
    _add_interface(watch)
    _add_language(watch)

    history = commands.add_parser(
        "history", help=_("list the tables hosted here, or print one table's hands")
    )
    history.add_argument(
        "table_id", nargs="?", metavar="TABLE_ID", help=_("the table (without it: list them all)")
    )
    _add_language(history)

    vectors = commands.add_parser("vectors", help=_("check the engine against rules vectors"))
    vectors.add_argument("paths", nargs="+", metavar="PATH", help=_("vector files or folders"))

    simulate = commands.add_parser("simulate", help=_("play bot-only matches and print win rates"))
    simulate.add_argument("--players", type=_players, default=4)
    simulate.add_argument("--partnership", action="store_true")
    simulate.add_argument("--games", type=int, default=100)
    _add_rules(simulate)
    simulate.add_argument(
        "--bots",
        default="heuristic",
        help=_(
            "comma-separated bot kinds by seat, repeated to fill: easy, normal, hard or "
            "random (e.g. hard,normal)"
        ),
    )
    simulate.add_argument("--seed", type=int, help=_("seed for reproducible deals and bots"))
    simulate.add_argument(
        "--duplicate",
        action="store_true",
        help=_(
            "play each deal once per seating, the bots rotated through the seats, and "
            "report points per hand and win rates with 95%% intervals (--games counts deals)"
        ),
    )
    simulate.add_argument(
        "--samples",
        type=int,
        default=Budget().samples,
        metavar="N",
        help=_("deals the hard bot samples per decision (default {n})", n=str(Budget().samples)),
    )
    simulate.add_argument(
        "--search-seconds",
        type=_seconds,
        metavar="SECONDS",
        help=_(
            "also stop the hard bot's search after this long (default: no time limit, "
            "so a seeded run is reproducible)"
        ),
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Ctrl+C at any moment (start-up included) and a closed pipe
    (`pitchnet history ID | head`) end it quietly, never with a traceback."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away: point stdout at nothing so the interpreter's last flush
        # does not raise a second time on the way out.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


def _lang_before(args: argparse.Namespace) -> None:
    """`--lang` given before the command counts as given after it, where the command
    has none of its own."""
    before = getattr(args, "lang_before", None)
    if before is not None and getattr(args, "lang", None) is None:
        args.lang = before


def _main(argv: Sequence[str] | None = None) -> int:
    use(choose_language(list(sys.argv[1:] if argv is None else argv), os.environ))
    parser = build_parser()
    args = parser.parse_args(argv)
    command = args.command or "play"
    if args.command is None:
        args = parser.parse_args(["play", *(argv or sys.argv[1:])])
    _lang_before(args)
    if command == "vectors":
        from pitchnet.vectors import run_files

        _, failed = run_files(args.paths, sys.stdout)
        return 1 if failed else 0
    if command == "simulate":
        from pitchnet.simulate import main as simulate_main

        return simulate_main(args)
    if command == "host":
        from host.main import main as host_main

        return host_main(args)
    if command == "bot":
        from client.headless import main as bot_main

        return bot_main(args)
    if command == "history":
        from host.history import main as history_main

        return history_main(args)
    from client.main import main as client_main

    return client_main(args)


if __name__ == "__main__":
    sys.exit(main())
