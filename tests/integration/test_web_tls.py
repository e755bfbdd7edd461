"""`tmanager serve --certfile/--keyfile`: the event's pages over HTTPS with a certificate made by openssl, and
one-line refusals of a half-given or unloadable pair."""

from __future__ import annotations

import os
import pty
import select
import shutil
import ssl
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.integration.test_event_scored import ok

needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")


@needs_openssl
def test_event_pages_over_https(tmp_path: Path) -> None:
    path = tmp_path / "open.toml"
    ok("new", path, "--name", "Hall Open", "--rounds", "5")
    cert, key = tmp_path / "hall.pem", tmp_path / "hall.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "2", "-subj", "/CN=127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    server = subprocess.Popen(
        [sys.executable, "-m", "tmanager", "serve", str(path), "--port", "0", "--certfile", str(cert), "--keyfile",
         str(key)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert "https://" in line, line
        url = "https://" + line.split("https://", 1)[1].split()[0]
        context = ssl.create_default_context(cafile=str(cert))
        context.check_hostname = False  # the certificate names 127.0.0.1 as its CN, not as a subjectAltName
        with urllib.request.urlopen(url, timeout=10, context=context) as response:
            assert response.status == 200 and "Hall Open" in response.read().decode()
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_certificate_options_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "open.toml"
    ok("new", path, "--name", "Hall Open", "--rounds", "5")
    half = run_cli("serve", path, "--port", "0", "--certfile", path)
    assert half.returncode == 2 and "--certfile and --keyfile go together" in half.stderr
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    bad = run_cli("serve", path, "--port", "0", "--certfile", junk, "--keyfile", junk)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "junk.pem: cannot load the certificate and key" in bad.stderr


@pytest.mark.parametrize("which", ["--certfile", "--keyfile"])
def test_a_certificate_or_key_that_is_a_fifo_is_refused_at_once(tmp_path: Path, which: str) -> None:
    """OpenSSL opens them blocking: `serve` waited for ever on a FIFO for a writer that never came."""
    path = tmp_path / "open.toml"
    ok("new", path, "--name", "Hall Open", "--rounds", "5")
    junk, fifo = tmp_path / "junk.pem", tmp_path / "fifo.pem"
    junk.write_text("not a certificate\n")
    os.mkfifo(fifo)
    given = {"--certfile": junk, "--keyfile": junk, which: fifo}
    done = run_cli("serve", path, "--port", "0", *[str(v) for pair in given.items() for v in pair], timeout=30)
    assert done.returncode == 2 and done.stderr == (
        f"tmanager: {fifo}: is not a regular file but a FIFO (PEM files: the certificate (chain) and its unencrypted "
        "private key)\n"), done.stderr


@needs_openssl
def test_an_encrypted_key_is_refused_without_asking_for_its_pass_phrase(tmp_path: Path) -> None:
    """Under a terminal, OpenSSL asked for the pass phrase ('Enter PEM pass phrase:'), and serve waited there; typed,
    uvicorn asked for it again. The key must be unencrypted: say so, as for any pair that does not load."""
    path = tmp_path / "open.toml"
    ok("new", path, "--name", "Hall Open", "--rounds", "5")
    cert, key = tmp_path / "hall.pem", tmp_path / "hall.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-passout", "pass:secret", "-keyout", str(key), "-out",
         str(cert), "-days", "2", "-subj", "/CN=127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    status, said = under_a_terminal(["serve", str(path), "--port", "0", "--certfile", str(cert), "--keyfile", str(key)])
    assert "pass phrase" not in said and status == 2, said
    assert said == (
        f"tmanager: {key}: the private key is encrypted (give it unencrypted: openssl pkey -in {key.name} -out "
        "plain.key)\r\n"
    )


def under_a_terminal(args: list[str], timeout: float = 20) -> tuple[int | None, str]:
    """`tmanager ARGS` with a pseudo-terminal as its controlling terminal: its exit status (``None``: it was still
    running at ``timeout`` and was killed) and what it wrote there."""
    master, slave = pty.openpty()
    terminal = os.ttyname(slave)

    def attach() -> None:
        os.setsid()
        os.close(os.open(terminal, os.O_RDWR))  # a session leader opening a terminal makes it its own

    process = subprocess.Popen([sys.executable, "-m", "tmanager", *args], stdin=slave, stdout=slave, stderr=slave,
                               preexec_fn=attach, env={**os.environ, "PYTHONUNBUFFERED": "1"})  # fmt: skip
    os.close(slave)
    said, deadline = b"", time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if select.select([master], [], [], 0.2)[0]:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # EIO: every process holding the terminal has ended
                    break
                said += chunk
            elif process.poll() is not None:
                break
        try:
            status: int | None = process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            status = None
        return status, said.decode(errors="replace")
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        os.close(master)
