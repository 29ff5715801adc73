"""The host's meanings in the reader's words: error codes, `bye` codes and their parameters.

The host decides what happened and says it as a code with parameters (PROTOCOL.md §
"Codes, not sentences"); the English sentence it also sends is for clients older than
this one. Here each code is worded from the catalog, in the language this client speaks,
so players at one table may each read the same refusal in their own language. A code
(or a parameter) this client does not know, from a newer host, falls back to the host's
own sentence, made printable: never a crash, never a blank.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pitchnet.i18n import N_, _, ngettext, number
from pitchnet.protocol import Bye, ErrorMsg, ReclaimStatus
from pitchnet.text import printable
from pitchnet.words import card_name, suit_plural, suit_singular

Params = Mapping[str, Any]
Wording = Callable[[Params], str]


class Unknown(Exception):
    """A parameter is missing or not what the code promises: use the host's sentence."""


def _int(params: Params, key: str) -> int:
    value = params.get(key)
    if type(value) is not int:
        raise Unknown(key)
    return value


def _str(params: Params, key: str, limit: int = 64) -> str:
    value = params.get(key)
    if not isinstance(value, str):
        raise Unknown(key)
    return printable(value, limit)


def _seat(params: Params, key: str = "seat") -> int:
    """A seat as players count them (the wire counts from 0)."""
    return _int(params, key) + 1


def _not_your_turn(p: Params) -> str:
    if p.get("why") == "bid":
        return _("It is seat {seat}'s turn to bid.", seat=_seat(p))
    if p.get("why") == "play":
        return _("It is seat {seat}'s turn to play.", seat=_seat(p))
    raise Unknown("why")


def _bad_bid(p: Params) -> str:
    bids = p.get("bids")
    if not isinstance(bids, list) or len(bids) < 2 or not all(type(b) is int for b in bids):
        raise Unknown("bids")
    return _(
        "A bid is pass, {bids} or {top}.",
        bids=", ".join(number(b) for b in bids[:-1]),
        top=bids[-1],
    )


def _dealer_must_bid(p: Params) -> str:
    least = _int(p, "least")
    if p.get("bid") is None:
        return _("Everyone passed: the dealer must bid at least {least}.", least=least)
    return _(
        "Everyone passed: the dealer must bid at least {least}, not {bid}.",
        least=least,
        bid=_int(p, "bid"),
    )


def _bid_too_low(p: Params) -> str:
    high = _int(p, "high")
    if p.get("why") == "dealer":
        return _("The dealer must pass or bid at least {high}.", high=high)
    return _("You must pass or bid more than {high}.", high=high)


def _must_follow(p: Params) -> str:
    """Why a card does not follow suit, from the suits and whether the joker is held."""
    why, joker = p.get("why"), p.get("joker") is True
    if why == "trump_led_joker":
        return _("Trump was led: you must play a trump, and you hold the joker.")
    if why == "trump_led":
        trump = suit_plural(p.get("trump"))
        if joker:
            return _("Trump was led: you must play {trump} or the joker.", trump=trump)
        return _("Trump was led: you must play {trump}.", trump=trump)
    if why == "follow":
        return _(
            "You must follow suit: you hold {a_card_of_it}.",
            a_card_of_it=suit_singular(p.get("led")),
        )
    if why == "follow_or_trump":
        led, trump = suit_plural(p.get("led")), suit_plural(p.get("trump"))
        if joker:
            return _(
                "You must follow {led} or play a trump ({trump} or the joker).",
                led=led,
                trump=trump,
            )
        return _("You must follow {led} or play a trump ({trump}).", led=led, trump=trump)
    raise Unknown("why")


def _not_playing(p: Params) -> str:
    if p.get("why") == "bidding":
        return _("The bidding is not over yet.")
    if p.get("why") == "over":
        return _("This hand is over.")
    raise Unknown("why")


def _no_hand(p: Params) -> str:
    why = p.get("why")
    if why == "bid":
        return _("There is no hand in progress to bid in.")
    if why == "play":
        return _("There is no hand in progress to play in.")
    if why == "not_started":
        return _("The match has not started yet.")
    raise Unknown("why")


def _version(p: Params) -> str:
    table, yours = _int(p, "table"), _int(p, "yours")
    if p.get("why") == "old":
        return _(
            "This table speaks protocol {table} and your pitchnet speaks {yours}, which "
            "would send your seat token and password in clear: update pitchnet to sit here.",
            table=table,
            yours=yours,
        )
    if p.get("why") == "new":
        return _(
            "This table speaks protocol {table}, you sent {yours}: the host needs a newer "
            "pitchnet.",
            table=table,
            yours=yours,
        )
    raise Unknown("why")


def _table_full(p: Params) -> str:
    why = p.get("why")
    if why == "kept":
        return _(
            "{name}'s seat is kept for its player, who lost the connection. If it is "
            "yours, watch and ask for it back (another player confirms it); to sit in a "
            "free seat instead, join with another name.",
            name=_str(p, "name", 24),
        )
    if why == "people":
        away = _int(p, "away")
        if not away:
            return _("Every seat at this table is taken by people; you can watch instead.")
        return ngettext(
            "Every seat at this table is a person's (one is kept for a player who lost the "
            "connection and may come back); you can watch instead.",
            "Every seat at this table is a person's ({n} are kept for a player who lost the "
            "connection and may come back); you can watch instead.",
            away,
        )
    return _("Every seat at this table is taken.")


def _rate_limited(p: Params) -> str:
    if p.get("why") == "passwords":
        return _(
            "Too many wrong passwords from your address; try again in {seconds} s.",
            seconds=_int(p, "seconds"),
        )
    if p.get("why") == "data":
        return _("Too much data; slow down.")
    return _("Too many messages; slow down.")


def _by_why(otherwise: str, **sentences: str) -> Wording:
    """A code whose one parameter `why` picks among fixed sentences (catalog messages,
    marked with N_), `otherwise` for no `why` or one this client does not know."""
    return lambda p: _(sentences.get(str(p.get("why")), otherwise))


_handshake = _by_why(N_("The first message must be hello."), late=N_("No hello in time."))
_journal = _by_why(
    N_("The host cannot record the game right now."),
    retry=N_("The host could not record that; try again."),
)
_watching = _by_why(
    N_("You are watching this table; take a seat to play."),
    reactions=N_("Watchers may not send reactions at this table."),
)
_no_spectators = _by_why(
    N_("This table does not take spectators."),
    full=N_("This table has as many watchers as it takes; try again later."),
)
_wrong_table = _by_why(N_("That is another table."), seat=N_("That seat belongs to another table."))


def _bad_message(p: Params) -> str:
    if p.get("why") == "reaction":
        return _("That is not a reaction this table knows.")
    raise Unknown("why")  # a decoding error: `unreadable` words it with the host's detail


ERRORS: dict[str, Wording] = {
    "not_your_turn": _not_your_turn,
    "not_bidding": lambda p: _("The bidding is over."),
    "bad_bid": _bad_bid,
    "below_min_bid": lambda p: _(
        "Nobody may bid {bid} at this table: the lowest bid is {least}.",
        bid=_int(p, "bid"),
        least=_int(p, "least"),
    ),
    "dealer_must_bid": _dealer_must_bid,
    "no_steal": lambda p: _(
        "The dealer may not steal at this table: pass or bid more than {high}.",
        high=_int(p, "high"),
    ),
    "bid_too_low": _bid_too_low,
    "not_playing": _not_playing,
    "not_in_hand": lambda p: _("You do not hold {card}.", card=card_name(p.get("card"))),
    "must_follow": _must_follow,
    "match_over": lambda p: _("The match is over."),
    "hand_in_progress": lambda p: _("The current hand is not finished."),
    "no_hand": _no_hand,
    "version": _version,
    "wrong_table": _wrong_table,
    "bad_password": lambda p: _("Wrong password for this table."),
    "table_full": _table_full,
    "not_in_lobby": lambda p: _("Seats can only be changed in the lobby."),
    "bad_seat": lambda p: _("There is no such other seat at this table."),
    "seat_taken": lambda p: _("Seat {seat} is taken.", seat=_seat(p)),
    "reclaimed": lambda p: _(
        "Your seat was taken back on another device (another player vouched for it); "
        "this device no longer holds it. You can watch instead."
    ),
    "bad_token": lambda p: _("That seat token is not valid at this table."),
    "no_spectators": _no_spectators,
    "not_yet": lambda p: _("You take this seat when the next hand is dealt; a bot plays this one."),
    "stale": lambda p: _("That move was meant for an earlier turn; nothing changed."),
    "not_starter": lambda p: _("Only the first player to sit can start early."),
    "not_now": lambda p: _("There is nothing to be ready for yet."),
    "rate_limited": _rate_limited,
    "handshake": _handshake,
    "slow_frame": lambda p: _("A frame arrived too slowly."),
    "journal": _journal,
    "journal_loss": lambda p: _(
        "The host lost part of this game's record: a player had seen a later point of "
        "it. The game goes on from the last point the host still holds."
    ),
    "watching": _watching,
    "no_reactions": lambda p: _("This table has reactions turned off."),
    "reaction_limit": lambda p: _("Too many reactions; wait a moment."),
    "bad_message": _bad_message,
    "reclaim_over": lambda p: _("That question was settled already."),
}
"""Each code the host sends in an `error`, worded from its parameters."""

UNREADABLE = frozenset(
    {"bad_frame", "bad_message", "unknown_type", "unexpected", "too_big", "bad_card"}
)
"""Codes for a message the host could not read (a bug, or another program): said with the
host's own technical detail, which only a programmer acts on."""


def word(code: str, params: Params | None, fallback: str, table: Mapping[str, Wording]) -> str:
    """`code` worded from `params` in the language in use; the host's `fallback` sentence
    (printable) for a code or parameters this client does not know."""
    wording = table.get(code)
    if wording is not None:
        try:
            return wording(params or {})
        except (Unknown, KeyError, TypeError, ValueError):
            pass
    shown = printable(fallback, 200)
    if code in UNREADABLE:
        return _("The host could not read a message from this program ({detail}).", detail=shown)
    return shown


def error_words(error: ErrorMsg) -> str:
    """What a player reads for an `error` from the host."""
    return word(error.code, error.params, error.message, ERRORS)


def meaning_words(meaning: Mapping[str, Any] | None, fallback: str | None) -> str | None:
    """A view's `play_meaning` (a code and its parameters in one map) in words, or the
    view's English `play_rule` for a meaning this client cannot word; None for neither."""
    if isinstance(meaning, Mapping) and isinstance(meaning.get("code"), str):
        wording = ERRORS.get(meaning["code"])
        if wording is not None:
            try:
                return wording(meaning)
            except (Unknown, KeyError, TypeError, ValueError):
                pass
    return None if fallback is None else printable(fallback, 200)


def _moved(p: Params) -> str:
    return _(
        "This table joined an older one on the network, at {address}; moving you there.",
        address=_str(p, "address", 64),
    )


BYES: dict[str, Wording] = {
    "closed": lambda p: _("The host closed the table."),
    "shutdown": lambda p: _("The host is restarting the table; it will be back."),
    "replaced": lambda p: _("Your seat was taken over by a new connection."),
    "left": lambda p: (
        _("You stopped watching.") if p.get("why") == "watching" else _("You left the table.")
    ),
    "moved": _moved,
}
"""Each code of a `bye`, worded (`moved` from the address the bye carries)."""


def bye_words(bye: Bye) -> str:
    """What a player reads for the host's `bye`."""
    params = dict(bye.params or {})
    if bye.address is not None:
        params.setdefault("address", bye.address)
    return word(bye.code, params, bye.reason, BYES)


_STAYS = N_("{why} You go on watching; {name}'s seat stays theirs and a bot plays it meanwhile.")


def _reclaim_refused(p: Params) -> str:
    """Why a seat was not given back, then that the asker goes on watching."""
    name, why = _str(p, "name", 24), p.get("why")
    if why == "not_away":
        return _("That seat's player is not away, so it is not free to take back.")
    if why == "nobody":
        return _(
            "Nobody else at this table is here to confirm that you are {name}, so the seat "
            "stays {name}'s and a bot plays it meanwhile. Ask again once another player is "
            "back, or come back from the device that sat there.",
            name=name,
        )
    reasons: dict[str, Callable[[], str]] = {
        "refused_before": lambda: _("You were refused {name}'s seat already.", name=name),
        "asked_already": lambda: _("Someone else is already asking for {name}'s seat.", name=name),
        "quiet": lambda: _(
            "{name}'s seat was just refused to someone; ask again in {seconds} s.",
            name=name,
            seconds=_int(p, "seconds"),
        ),
        "timeout": lambda: _("Nobody confirmed it in time."),
        "came_back": lambda: _("{name} came back on the device that sat there.", name=name),
        "said_no": lambda: _("{by} said you are not {name}.", by=_str(p, "by", 24), name=name),
        "back": lambda: _("The seat is no longer away."),
        "asked_left": lambda: _("The player asked to confirm it left."),
        "rotated": lambda: _("The seats were rotated for the new match meanwhile; ask again."),
    }
    reason = reasons.get(why) if isinstance(why, str) else None
    if reason is None:
        raise Unknown("why")
    return _(_STAYS, why=reason(), name=name)


def _reclaim_waiting(p: Params) -> str:
    name, asked = _str(p, "name", 24), p.get("asked")
    if asked is None:
        return _(
            "You asked for {name}'s seat. Another player here must confirm that you are "
            "{name}; you watch until then (at most {seconds} s). If nobody says yes, you go "
            "on watching.",
            name=name,
            seconds=_int(p, "seconds"),
        )
    return _(
        "You asked for {name}'s seat. {asked} must confirm that you are {name}; you watch "
        "until then (at most {seconds} s). If nobody says yes, you go on watching.",
        name=name,
        asked=_str(p, "asked", 24),
        seconds=_int(p, "seconds"),
    )


RECLAIMS: dict[str, Wording] = {
    "waiting": _reclaim_waiting,
    "refused": _reclaim_refused,
    "granted": lambda p: _(
        "You have {name}'s seat back, with its score and hand. Your old device no longer holds it.",
        name=_str(p, "name", 24),
    ),
    "over": lambda p: _("The request for {name}'s seat is settled.", name=_str(p, "name", 24)),
}
"""Each status of a `reclaim_status`, worded from its parameters."""


def reclaim_words(status: ReclaimStatus) -> str:
    """What a player reads about a request to take a seat back."""
    return word(status.status, status.params, status.message, RECLAIMS)
