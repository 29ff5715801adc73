"""Every limit the host enforces, in one place (SECURITY.md lists them with their values).

A party LAN is not a trusted network: a broken client, a curious guest or a port
scanner must not be able to stall the event loop, grow memory without bound or
hold a seat that is not theirs.
"""

from __future__ import annotations

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
    max_strikes: int = 10
    """Bad (non-fatal) messages tolerated before the connection is closed."""
    max_connections: int = 64
    max_per_address: int = 16
    max_send_buffer: int = 1024 * 1024
    """Bytes queued to a client that does not read before it is dropped."""
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

    def allow(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True
