"""HTTP connections that cannot be held open for nothing: uvicorn's h11 protocol with a deadline for
each request's head.

uvicorn closes a connection that stays idle after a response (its keep-alive timeout), but not one
that never sends a request, nor one that sends its request head a byte at a time: each byte resets
its timer. So a few dozen such connections, from anywhere on the hall's network, were held open for
ever. Here a connection must send a whole request head within :data:`HEAD_SECONDS` of opening, and of
each response it was sent; otherwise it is closed. A request being answered (an event stream lasts
as long as its page) has no deadline.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a client has to send a whole request head (a browser sends it at once).
HEAD_SECONDS = 10.0
#: Seconds a connection may stay idle after a response (uvicorn's keep-alive timeout).
IDLE_SECONDS = 5


class DeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request head is not complete in time."""

    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        cycle = self.cycle
        super().data_received(data)
        if self.cycle is not cycle:  # a whole request head came: it is being answered
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request's head, if any, is due in time too

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(HEAD_SECONDS, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()
