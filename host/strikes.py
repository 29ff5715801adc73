"""Which refusals count as strikes: one table of error codes, read by the referee and
checked against PROTOCOL.md section 10 by tests/test_strikes.py.

A seated connection's message can be refused without closing it. Whether that refusal
is a strike (ten close the connection, `Limits.max_strikes`) depends only on its code,
never on which exception the table happened to raise. The line: a strike is for what an
honest client never sends (a malformed or unknown message, a card that is not a card,
an action while watching, more than the rate limit); a refusal an honest client can
meet, because the rules forbid the move or because another seat or the table moved
first (two people clicking one free seat, a `sit` as the match starts, a newcomer's move
before their seat is theirs), is answered and never counted.
"""

from __future__ import annotations

STRIKES: dict[str, bool] = {
    # The rules refused the move (pitchnet/rules.py, and `stale` from the table).
    "not_your_turn": False,
    "stale": False,
    "not_bidding": False,
    "not_playing": False,
    "bad_bid": False,
    "bid_too_low": False,
    "below_min_bid": False,
    "no_steal": False,
    "dealer_must_bid": False,
    "not_in_hand": False,
    "must_follow": False,
    "no_hand": False,
    "match_over": False,
    # The table moved first: a race an honest client can lose.
    "seat_taken": False,
    "bad_seat": False,
    "not_in_lobby": False,
    "not_yet": False,
    "reclaim_over": False,
    # The host could not write its journal: the move may be resent.
    "journal": False,
    # A reaction past its own rate, or at a table that turned them off: a keen player
    # or an older client meets these.
    "reaction_limit": False,
    "no_reactions": False,
    # What an honest client never sends.
    "bad_message": True,
    "unknown_type": True,
    "bad_card": True,
    "not_starter": True,
    "not_now": True,
    "watching": True,
    "unexpected": True,
    "rate_limited": True,
}
"""Every non-fatal error code the host sends a seated connection for a refused message:
True when it counts as a strike."""


def is_strike(code: str) -> bool:
    """Whether refusing a message with `code` counts a strike against its connection (a
    code missing from `STRIKES` does, so a new refusal errs on the host's side until it
    is listed; tests/test_strikes.py fails while one is missing)."""
    return STRIKES.get(code, True)
