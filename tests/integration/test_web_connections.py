"""The server's bounds on its clients: how many connections each may hold, how long it may take to send a request,
how large a form may be, and which host names it answers while it listens on loopback. A real `tmanager serve
EVENT`, raw sockets."""

# The fixture `serve` comes from the dashboard's tests, imported so both start servers the same way.
# ruff: noqa: F401, F811

from __future__ import annotations

import shutil
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_web import fetch, serve
from tests.integration.test_web_event import EXAMPLE
from tmanager.web.app import is_loopback
from tmanager.web.connections import HEAD_SECONDS, MAX_PER_CLIENT, client_of


def outside_address() -> str | None:
    """An address of this machine that is not loopback (the route out, found without sending anything)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: connect() on UDP only picks the route
        address: str = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def stream(host: str, port: str) -> socket.socket:
    """An event stream, opened as a page opens it and left open."""
    connection = socket.create_connection((host, int(port)), timeout=10)
    connection.sendall(f"GET /events?page=home HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    return connection


def answered(connection: socket.socket) -> bool:
    """Whether the server answers the request sent (rather than closing the connection)."""
    try:
        return connection.recv(12) == b"HTTP/1.1 200"
    except ConnectionResetError:
        return False


@pytest.fixture
def event(tmp_path: Path) -> Path:
    path = tmp_path / "open.toml"
    shutil.copy(EXAMPLE, path)
    return path


def test_one_client_cannot_hold_every_connection(event: Path, serve: Any) -> None:
    """One machine could open a thousand event streams, using up the server's open files: nobody else could
    connect, the arbiter included. Each client now holds at most MAX_PER_CLIENT; others are served."""
    outside = outside_address()
    if outside is None:
        pytest.skip("needs an address of this machine other than loopback")
    server = serve(event, "--host", "0.0.0.0")
    held = [stream(outside, server.port) for _ in range(MAX_PER_CLIENT)]
    try:
        assert all(answered(c) for c in held)
        extra = [stream(outside, server.port) for _ in range(5)]
        assert not any(answered(c) for c in extra), "a client was let open more than MAX_PER_CLIENT connections"
        assert fetch(f"http://127.0.0.1:{server.port}/")[0] == 200  # everyone else is served as before
        held.pop().close()
        time.sleep(0.5)
        again = stream(outside, server.port)
        assert answered(again)  # a connection given back can be opened again
        held.append(again)
    finally:
        for connection in held:
            connection.close()


def test_the_server_raises_its_limit_of_open_files(event: Path, serve: Any) -> None:
    """Started with 256 open files at most (a service manager's default is 1,024), 300 streams from this machine
    left nobody able to connect; the server now raises its limit as far as the system allows."""
    import resource

    if resource.getrlimit(resource.RLIMIT_NOFILE)[1] < 1024:
        pytest.skip("the system's hard limit of open files is too low to raise")
    server = serve(event, files=256)
    held = [stream(server.host, server.port) for _ in range(300)]
    try:
        assert all(answered(c) for c in held)
        assert fetch(server.url)[0] == 200
    finally:
        for connection in held:
            connection.close()


@pytest.mark.timing
def test_a_form_sent_a_byte_at_a_time_is_let_go(event: Path, serve: Any) -> None:
    """A login whose body came a byte a second held its connection for ever (the deadline was the head's):
    the whole request, body included, is due within HEAD_SECONDS."""
    server = serve(event)
    connection = socket.create_connection((server.host, int(server.port)))
    origin = f"{server.host}:{server.port}"
    connection.sendall(
        f"POST /login HTTP/1.1\r\nHost: {origin}\r\nOrigin: http://{origin}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ncsrf=".encode()
    )
    connection.settimeout(1)
    deadline = time.monotonic() + HEAD_SECONDS + 5
    try:
        while time.monotonic() < deadline:
            try:
                connection.sendall(b"a")
                if not connection.recv(100):
                    break  # closed
            except TimeoutError:
                continue
            except OSError:
                break
        else:
            pytest.fail("a request body sent a byte a second was kept open")
    finally:
        connection.close()
    assert fetch(server.url)[0] == 200


def test_a_chunked_form_is_refused_before_its_body_is_read(event: Path, serve: Any) -> None:
    """A POST declaring a small Content-Length but sent chunked (which overrides it) passed the size check, and its
    body, of any size, was read whole into memory: 600 MiB to /login, unauthenticated, took 1.3 GB."""
    server = serve(event)
    connection = socket.create_connection((server.host, int(server.port)), timeout=10)
    origin = f"{server.host}:{server.port}"
    connection.sendall(
        f"POST /login HTTP/1.1\r\nHost: {origin}\r\nOrigin: http://{origin}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n\r\n"
        "100000\r\n".encode() + b"a" * 65536  # a chunk of 1 MiB begun, never ended
    )
    try:
        assert connection.recv(12) == b"HTTP/1.1 413"  # at once, without waiting for the body
    except TimeoutError:
        pytest.fail("the server waited for a chunked body of any size")
    finally:
        connection.close()
    assert fetch(server.url)[0] == 200


def test_a_loopback_address_however_spelt_refuses_other_host_names(event: Path, serve: Any) -> None:
    """--host 127.1 (or this machine's name, 127.0.1.1 on Debian) listened on loopback, but was not taken for it: a
    web page elsewhere could read the pages through DNS rebinding. The address bound decides."""
    server = serve(event, "--host", "127.1")
    assert server.host == "127.0.0.1"
    assert fetch(server.url, headers={"Host": "evil.example"})[0] == 400
    assert fetch(server.url)[0] == 200


def test_clients_are_counted_by_address_and_ipv6_network() -> None:
    assert client_of("192.168.1.20") == "192.168.1.20"
    assert client_of("::ffff:192.168.1.20") == "192.168.1.20"
    assert client_of("2001:db8:1:2:aaaa::1") == client_of("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert client_of("2001:db8:1:3::1") != client_of("2001:db8:1:2::1")
    assert client_of("127.0.0.1") is None and client_of("::1") is None  # a reverse proxy on this machine
    assert client_of("/run/tmanager.sock") is None


def test_loopback_addresses() -> None:
    assert is_loopback("127.0.1.1") and is_loopback("::1") and is_loopback("::ffff:127.0.0.1")
    assert is_loopback("localhost") and is_loopback("app.localhost")
    assert not is_loopback("::ffff:192.0.2.1") and not is_loopback("192.0.2.1") and not is_loopback("evil.example")
