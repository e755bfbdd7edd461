"""Serve live pages in the browser: a tourney's dashboard, or an event's pages with the arbiter's result entry.

For a tourney the server only reads the tourney file, its PGN and the games
in progress. For an event file (see `tmanager event`) it shows pairings,
standings, the wall chart and a page per player, and lets the arbiter, logged
in with the password set by `tmanager event set-password`, enter and correct
results, pair rounds and set byes. Every change, whoever made it, reaches the
open pages within a fraction of a second. It listens on 127.0.0.1 unless
--host says otherwise; pages never show file paths, nor engine command lines
unless --show-engines is given.
"""

from __future__ import annotations

import argparse
import socket
import ssl
from pathlib import Path

from tmanager.errors import ConfigError
from tmanager.events import journal
from tmanager.files import expect_file, parse_toml, read_text
from tmanager.tourney import store

#: The largest TCP port.
MAX_PORT = 65535

EXAMPLES = """\
  tmanager serve gauntlet.toml                      # http://127.0.0.1:8080/
  tmanager serve gauntlet.toml --port 9000
  tmanager serve gauntlet.toml --host 0.0.0.0       # reachable from other machines
  tmanager serve gauntlet.toml --show-engines       # also list command lines (your own machine only)
  tmanager serve spring.toml --host 0.0.0.0         # an event: players' phones on the hall's network
  tmanager serve spring.toml --host 0.0.0.0 --certfile hall.pem --keyfile hall.key   # over HTTPS
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the tourney file or event file")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8080, help="port to listen on (0: any free port)")
    parser.add_argument(
        "--show-engines", action="store_true", help="show engine command lines and directories on the page"
    )
    parser.add_argument("--certfile", type=Path, help="serve over HTTPS with this certificate (PEM; with --keyfile)")
    parser.add_argument("--keyfile", type=Path, help="the certificate's private key (PEM)")


def _tls(args: argparse.Namespace) -> tuple[str, str] | None:
    """uvicorn's TLS settings for ``--certfile``/``--keyfile``, checked first: a pair that does not load is one
    line, not a traceback from the server."""
    if args.certfile is None and args.keyfile is None:
        return None
    if args.certfile is None or args.keyfile is None:
        raise ConfigError("--certfile and --keyfile go together", hint="give the certificate and its private key")
    hint = "PEM files: the certificate (chain) and its unencrypted private key"
    for path in (args.certfile, args.keyfile):  # OpenSSL opens them blocking: a FIFO held serve for ever
        expect_file(path, hint=hint)
    def encrypted() -> bytes:
        # Called only for a key with a pass phrase, which OpenSSL asked for on the terminal (and uvicorn again).
        raise ConfigError("the private key is encrypted", file=args.keyfile,
                          hint=f"give it unencrypted: openssl pkey -in {args.keyfile.name} -out plain.key")

    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(args.certfile, args.keyfile, encrypted)
    except (OSError, ssl.SSLError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"cannot load the certificate and key: {reason}", file=args.certfile, hint=hint) from None
    return str(args.certfile), str(args.keyfile)


def command(args: argparse.Namespace) -> int:
    # Imported here: the other commands need not pay for loading the web stack.
    import uvicorn

    from tmanager.web.app import create_app, is_loopback
    from tmanager.web.connections import IDLE_SECONDS, DeadlineProtocol, more_descriptors

    tls = _tls(args)
    event = is_event_file(args.file)
    if event and args.show_engines:  # an option that would do nothing is refused, not silently dropped
        raise ConfigError("an event's pages show no engines", file=args.file, field="--show-engines",
                          hint="leave it out; it is for a tourney's dashboard")  # fmt: skip
    name = journal.load(args.file).name if event else store.read(args.file).settings.name
    listener = _listen(args.host, args.port)
    host, port = listener.getsockname()[:2]
    # By the address bound, not as --host spells it: 127.1 or this machine's name (127.0.1.1 on Debian) bound to
    # loopback, but were not taken for it, and the Host check against DNS rebinding was off.
    loopback_only = is_loopback(host)
    if event:
        from tmanager.web.eventapp import create_event_app

        app = create_event_app(args.file, loopback_only=loopback_only)
    else:
        app = create_app(args.file, show_engines=args.show_engines, loopback_only=loopback_only)
    certfile, keyfile = tls or (None, None)
    print(f"serving {name!r} on {_addresses(host, port, scheme='https' if tls else 'http')} (Ctrl-C to stop)",
          flush=True)  # fmt: skip
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, server_header=False, timeout_graceful_shutdown=1,
        http=DeadlineProtocol, timeout_keep_alive=IDLE_SECONDS, ssl_certfile=certfile, ssl_keyfile=keyfile,
    )
    more_descriptors()
    uvicorn.Server(config).run(sockets=[listener])
    return 0


#: The wildcard addresses: listening on every address of the machine, but no address a browser can open.
_EVERY_ADDRESS = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}


def _addresses(host: str, port: int, *, scheme: str) -> str:
    """Where a browser finds the pages: the address listened on; for a wildcard (``0.0.0.0``, ``::``, which
    browsers do not open) this machine's loopback address, then its name and network address for the others."""
    local = _EVERY_ADDRESS.get(host)
    if local is None:
        return f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}/"
    others = [f"{scheme}://{address}:{port}/" for address in _network_names()]
    reach = f": {' or '.join(others)} from other machines" if others else ""
    return f"{scheme}://{local}:{port}/ here and on every address of this machine{reach}"


def _network_names() -> list[str]:
    """This machine's name and the address it reaches the network from (a UDP socket's connect sends nothing),
    as far as they are known and not the loopback."""
    names = [name for name in (socket.gethostname(),) if name and name != "localhost"]
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: a route is looked up, no packet leaves
            address = probe.getsockname()[0]
    except OSError:  # no network at all
        return names
    return names if address.startswith("127.") or address == "0.0.0.0" else [*names, address]


def is_event_file(path: Path) -> bool:
    """Whether ``path`` is an event file (``[event]`` and ``[[division]]``) rather than a tourney file.

    A file that cannot be read or parsed counts as a tourney file, whose reader
    then says what is wrong with it.
    """
    try:
        data = parse_toml(read_text(path), file=path)
    except ConfigError:
        return False
    return "event" in data and "division" in data and "tourney" not in data


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket, bound here so that port 0 works and a busy port is a one-line error."""
    if not 0 <= port <= MAX_PORT:
        raise ConfigError(f"must be from 0 to {MAX_PORT:,}, not {port}", field="--port", hint="0 picks a free one")
    if not host.strip():
        # bind() takes "" for every address: an unset variable (--host "$HOST") opened the pages to the network.
        raise ConfigError("is empty", field="--host",
                          hint="leave it out for this machine only, or give 0.0.0.0 for all")
    hint = "give an address of this machine, or a name it resolves"
    if not host.isascii():
        try:
            host.encode("idna")  # as bind() spells a name beyond ASCII: one it cannot spell was a TypeError traceback
        except UnicodeError:
            raise ConfigError(f"cannot listen on {host}: not a host name", field="--host", hint=hint) from None
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(512)
    except socket.gaierror as exc:  # the address itself, not the port
        raise ConfigError(f"cannot listen on {host}: {exc.strerror or exc}", field="--host", hint=hint) from None
    except OSError as exc:
        raise ConfigError(
            f"cannot listen on {host} port {port}: {exc.strerror or exc}",
            field="--port",
            hint="choose another --port (0 picks a free one) or --host",
        ) from None
    listener.set_inheritable(True)
    return listener

