"""Serve a live dashboard of a tourney in the browser: games in progress, standings, cross-table, results.

The server only reads the tourney file, its PGN and the games in progress,
and pushes every change to the open pages within a fraction of a second,
whoever made it (workers, the CLI, an editor). It listens on 127.0.0.1 unless
--host says otherwise; pages never show engine command lines or file paths
unless --show-engines is given.
"""

from __future__ import annotations

import argparse
import socket
from pathlib import Path

from tmanager import storage
from tmanager.errors import ConfigError

EXAMPLES = """\
  tmanager serve gauntlet.toml                      # http://127.0.0.1:8080/
  tmanager serve gauntlet.toml --port 9000
  tmanager serve gauntlet.toml --host 0.0.0.0       # reachable from other machines
  tmanager serve gauntlet.toml --show-engines       # also list command lines (your own machine only)
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the tourney file")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8080, help="port to listen on (0: any free port)")
    parser.add_argument(
        "--show-engines", action="store_true", help="show engine command lines and directories on the page"
    )


def command(args: argparse.Namespace) -> int:
    tourney = storage.read(args.file)
    # Imported here: the other commands need not pay for loading the web stack.
    import uvicorn

    from tmanager.web.app import create_app, is_loopback

    listener = _listen(args.host, args.port)
    host, port = listener.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"serving {tourney.settings.name!r} on http://{shown}:{port}/ (Ctrl-C to stop)", flush=True)
    app = create_app(args.file, show_engines=args.show_engines, loopback_only=is_loopback(args.host))
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, server_header=False, timeout_graceful_shutdown=1
    )
    uvicorn.Server(config).run(sockets=[listener])
    return 0


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket, bound here so that port 0 works and a busy port is a one-line error."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(512)
    except OSError as exc:
        raise ConfigError(
            f"cannot listen on {host} port {port}: {exc.strerror or exc}",
            field="--port",
            hint="choose another --port (0 picks a free one) or --host",
        ) from None
    listener.set_inheritable(True)
    return listener

