"""HTTP connections that cannot be held open for nothing: uvicorn's h11 protocol with a deadline for
each request, and a bound on the connections of each client.

uvicorn closes a connection that stays idle after a response (its keep-alive timeout), but not one
that never sends a request, nor one that sends its request a byte at a time: each byte resets
its timer. So a few dozen such connections, from anywhere on the hall's network, were held open for
ever. Here a connection must send a whole request (head and body) within :data:`HEAD_SECONDS` of
opening, and of each response it was sent; otherwise it is closed. A request being answered (an event
stream lasts as long as its page) has no deadline.

An event stream is a request like any other, so one machine opening a thousand of them used up the
server's file descriptors, and nobody else, the arbiter included, could connect until it let go. Each
client (an IPv4 address, or an IPv6 /64, which one machine can hop within) may hold
:data:`MAX_PER_CLIENT` connections at once; more are closed as they come. And the server raises its
own limit of open files as far as the system lets it (:func:`more_descriptors`): the usual 1,024 is
soon reached by a crowd of viewers and a few clients holding connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress

from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a client has to send a whole request head (a browser sends it at once).
HEAD_SECONDS = 10.0
#: Seconds a connection may stay idle after a response (uvicorn's keep-alive timeout).
IDLE_SECONDS = 5
#: Connections one client may hold at once. A browser opens at most six to a server, and every tab it
#: holds open keeps one of them; 64 leaves room for a few dozen devices behind one address (NAT).
MAX_PER_CLIENT = 64


def client_of(host: str) -> str | None:
    """The client that a connection from address ``host`` counts against: the IPv4 address or the IPv6 /64;
    ``None`` (no bound) for loopback, where a reverse proxy on this machine speaks for every client."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None  # not an IP connection (a Unix socket): this machine
    if address.is_loopback:
        return None
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network((address, 64), strict=False))
    return str(address)


def more_descriptors() -> None:
    """Raise this process's limit of open files (each connection is one) to the most the system allows
    (commonly 1,024 raised to 524,288), so that many connections exhaust it late, if at all."""
    try:
        import resource
    except ImportError:  # Windows has no such limit
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 1 << 20 if hard == resource.RLIM_INFINITY else hard
    with contextlib.suppress(ValueError, OSError):  # a system that caps it lower (macOS): keep what there is
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))


class DeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request is not complete in time, or that is one too
    many of its client's."""

    _deadline: asyncio.TimerHandle | None = None
    #: The request (uvicorn's cycle) that was current when the deadline was set: the one before the one due.
    _before: object = None
    _client: str | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._client = client_of(self.client[0]) if self.client else None
        if self._client is not None and self._held(self._client) > MAX_PER_CLIENT:
            transport.close()
            return
        self._arm()

    def _held(self, client: str) -> int:
        """The connections open from ``client``, this one included."""
        return sum(1 for c in self.connections if isinstance(c, DeadlineProtocol) and c._client == client)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._settle()

    def on_response_complete(self) -> None:
        answered = self.cycle
        super().on_response_complete()  # may start a request sent along with the last (pipelined)
        if not self.transport.is_closing():
            self._arm(before=answered)  # the next request, if any, is due in time too
            self._settle()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _settle(self) -> None:
        """No deadline once a new request, head and body, has come whole: it is being answered. A body sent a
        byte at a time (a login form of 16 KiB) held the connection for ever, as a slow head did."""
        cycle = self.cycle
        if cycle is not None and cycle is not self._before and not cycle.more_body:
            self._disarm()

    def _arm(self, *, before: object = None) -> None:
        self._disarm()
        self._before = before
        self._deadline = self.loop.call_later(HEAD_SECONDS, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()
