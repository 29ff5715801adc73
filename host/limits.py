"""Every limit the host enforces, in one place (SECURITY.md lists them with their values).

A party LAN is not a trusted network: a broken client, a curious guest or a port
scanner must not be able to stall the event loop, grow memory without bound or
hold a seat that is not theirs.
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    handshake_seconds: float = 10.0
    """Time from connecting to a valid hello."""
    dead_after: float = 3.0
    """Silence (no frame at all, pings included) after which a peer is taken as gone."""
    partial_frame_seconds: float = 5.0
    """How long a started frame may take to arrive in full."""
    messages_per_second: float = 100.0
    burst: int = 400
    """Token bucket per connection: sustained rate and the burst it allows. A person
    sends a few messages a second; a fast bot client a few hundred in a whole match."""
    reactions_per_second: float = 0.3
    reaction_burst: int = 3
    """Token bucket per connection for `react`, inside the one above: three at once, then
    one every few seconds. Past it a reaction is dropped with a `reaction_limit` refusal
    (no strike: a keen player meets it), so a flood reaches no one."""
    max_strikes: int = 10
    """Bad (non-fatal) messages tolerated before the connection is closed."""
    max_connections: int = 64
    max_per_address: int = 16
    max_watchers: int = 40
    max_watchers_per_address: int = 12
    """Spectators in all and per address (IPv6: per /64): below the connection caps, so
    seated players' reconnects always have room that watchers cannot take (24 places
    in all, 4 on any address; strangers there are cut to make room as before)."""
    max_send_buffer: int = 1024 * 1024
    """Bytes queued to a client that does not read before it is dropped."""
    decode_per_second: float = 16 * 1024
    decode_burst: int = 64 * 1024
    """Payload bytes per second a seated connection may have decoded (token bucket):
    decoding costs the host in proportion to the bytes, and a player sends a few
    hundred a second at most."""
    hello_decode_budget: int = 4 * 1024
    """Payload bytes a connection may have decoded in all before its `hello` seats it
    (refilled at a sixteenth of that a second): a hello is under 1 KiB."""
    connects_per_second: float = 4.0
    connect_burst: int = 32
    """New connections per address (IPv6: per /64), a token bucket: past it a connection
    is reset at once. Cut-off attackers cannot come straight back; a whole family
    reconnecting behind one address after a Wi-Fi drop fits in the burst."""
    close_grace: float = 1.0
    """How long a connection being closed (after an error, a `bye` or a `leave`) may
    take to receive what was queued for it before it is cut."""


class RateLimiter:
    """A token bucket: `allow(now)` is False once a sender outruns the rate. Time is
    given, never read, so the referee's tests can drive it."""

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.stamp = now

    def allow(self, now: float, cost: float = 1.0) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < cost:
            return False
        self.tokens -= cost
        return True

    def full(self, now: float) -> bool:
        """The bucket has refilled: its sender has been quiet long enough to forget."""
        return self.tokens + (now - self.stamp) * self.rate >= self.burst


class DecodeBudget:
    """Payload bytes a connection may have decoded, for `FrameDecoder`: a `RateLimiter`
    over bytes that reads the adapter's clock (the decoder runs in the adapter, before
    the referee hears of a frame)."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.bucket = RateLimiter(rate, burst, clock())

    def allow(self, cost: float = 1.0) -> bool:
        return self.bucket.allow(self.clock(), cost)


def address_key(host: str) -> str:
    """What the per-address limits count: an IPv4 address, or an IPv6 address's /64
    (one machine may hold a whole /64, so counting single IPv6 addresses counts nothing).
    An IPv4 address mapped into IPv6 counts as the IPv4 address."""
    try:
        ip = ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class Arrivals:
    """New connections per address (a token bucket each): an address that connects faster
    than `rate` a second, past a burst, is refused at once, before anything is read. A
    reconnecting player needs a few a minute; an attacker cut off for costing too much
    would otherwise come straight back. Holds at most `max_addresses` buckets: full
    buckets (addresses that have been quiet) are the ones forgotten."""

    def __init__(self, rate: float, burst: int, max_addresses: int = 1024) -> None:
        self.rate, self.burst = rate, burst
        self.max_addresses = max_addresses
        self._buckets: dict[str, RateLimiter] = {}

    def allow(self, key: str, now: float) -> bool:
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.max_addresses:
                self._forget_quiet(now)
            bucket = self._buckets[key] = RateLimiter(self.rate, self.burst, now)
        return bucket.allow(now)

    def _forget_quiet(self, now: float) -> None:
        for key, bucket in list(self._buckets.items()):
            if bucket.full(now):
                del self._buckets[key]
        while len(self._buckets) >= self.max_addresses:  # all busy: drop the oldest
            del self._buckets[next(iter(self._buckets))]


class RefusalLog:
    """Refusals logged as one line per address per `interval` seconds: the first is
    logged at once, the rest are counted and summed up in the next line for that
    address (a flood must not fill the host's disk with log lines)."""

    def __init__(self, interval: float = 10.0) -> None:
        self.interval = interval
        self._last: dict[str, float] = {}
        self._quiet: dict[str, int] = {}

    def line(self, key: str, text: str, now: float) -> str | None:
        """The line to log for this refusal now, or None to stay quiet."""
        last = self._last.get(key)
        if last is not None and now - last < self.interval:
            self._quiet[key] = self._quiet.get(key, 0) + 1
            return None
        if len(self._last) >= 4096:
            self._last = {k: t for k, t in self._last.items() if now - t < self.interval}
        self._last[key] = now
        quiet = self._quiet.pop(key, 0)
        if quiet:
            return f"{text} (and {quiet} more refused from {key} since the last line)"
        return text


class Guesses:
    """Password guessing, slowed: ONE limiter for every way a password is presented (a
    player's or a watcher's `hello`, the web join's form), kept per address and per
    table. Per address: after `free` wrong passwords, each one more doubles the time that
    address must wait before its next password is even compared (from `first_wait` up
    to `max_wait` seconds); the right password from it clears its count. Per table:
    wrong passwords are a token bucket (`table_rate` a second, bursts of `table_burst`),
    and once it is empty an address that has given a wrong one already waits for it
    too, so many addresses together guess no faster than one bucket allows. An address
    that has given no wrong password is never slowed, so the right password typed on
    another laptop gets in at once, even during an attack."""

    def __init__(
        self,
        free: int = 3,
        first_wait: float = 1.0,
        max_wait: float = 300.0,
        size: int = 4096,
        table_rate: float = 0.5,
        table_burst: int = 20,
    ) -> None:
        self.free, self.first_wait, self.max_wait, self.size = free, first_wait, max_wait, size
        self._wrong: dict[str, tuple[int, float]] = {}
        """Address -> (wrong passwords in a row, when it may try again)."""
        self.table_rate, self.table_burst = table_rate, table_burst
        self._tokens = float(table_burst)
        self._stamp: float | None = None

    def _table_tokens(self, now: float) -> float:
        if self._stamp is None:
            return float(self.table_burst)
        return min(self.table_burst, self._tokens + (now - self._stamp) * self.table_rate)

    def wait(self, key: str, now: float) -> float:
        """Seconds `key` must still wait before a password of its is compared."""
        count, until = self._wrong.get(key, (0, 0.0))
        wait = max(0.0, until - now)
        if count:
            wait = max(wait, (1.0 - self._table_tokens(now)) / self.table_rate)
        return wait

    def refusal(self, key: str, now: float) -> str | None:
        """The sentence for a password from `key` that is not compared now, or None."""
        wait = self.wait(key, now)
        if wait <= 0:
            return None
        return f"Too many wrong passwords from your address; try again in {math.ceil(wait)} s."

    def wrong(self, key: str, now: float) -> None:
        self._tokens = max(0.0, self._table_tokens(now) - 1.0)
        self._stamp = now
        count = self._wrong.get(key, (0, 0.0))[0] + 1
        over = count - self.free
        until = now + min(self.max_wait, self.first_wait * 2 ** (over - 1)) if over > 0 else now
        if key not in self._wrong and len(self._wrong) >= self.size:
            self._wrong = {k: v for k, v in self._wrong.items() if v[1] > now}
            while len(self._wrong) >= self.size:
                del self._wrong[next(iter(self._wrong))]
        self._wrong[key] = (count, until)

    def right(self, key: str) -> None:
        self._wrong.pop(key, None)
