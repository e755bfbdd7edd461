"""Engine definitions: from a participant's ``engine = "name"`` or ``cmd`` to an :class:`EngineSpec`.

A definition is a TOML file ``NAME.toml`` in an engines directory::

    cmd = "stockfish"            # a program on PATH, or a path relative to this file
    protocol = "uci"             # or "xboard"
    args = []                    # extra command-line arguments
    dir = ""                     # working directory ("" = the tourney's directory)
    options = { Hash = 16 }      # engine options, sent before the first game
    # XBoard engines only:
    xboard_features = { setboard = true, ping = true }  # assume these when not declared

Engines directories are searched in order: ``engines/`` beside the tourney
file, each directory in ``$TMANAGER_ENGINES`` (``:``-separated), and the
``engines/`` directory shipped with tmanager. A command whose program ends in
``.py`` runs with the current Python interpreter.
"""

from __future__ import annotations

import copy
import os
import shlex
import shutil
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tmanager.errors import ConfigError, EngineError
from tmanager.files import Stamp, stamp

Protocol = Literal["uci", "xboard"]
OptionValue = str | int | bool

BUNDLED_ENGINES = Path(__file__).resolve().parents[2] / "engines"

#: Debian installs engines in /usr/games, which a root shell's PATH often lacks.
GAMES_PATH = "/usr/local/games:/usr/games"

_DEFINITION_KEYS = {"cmd", "protocol", "args", "dir", "options", "xboard_features", "description"}

#: Definitions read so far, by path, with the stamp of the file they were read from.
_definitions: dict[Path, tuple[Stamp, dict[str, Any]]] = {}


@dataclass(frozen=True, slots=True)
class EngineSpec:
    """Everything needed to start one engine process: plain, picklable data."""

    name: str
    command: tuple[str, ...]
    protocol: Protocol
    workdir: str | None = None
    options: Mapping[str, OptionValue] = field(default_factory=dict)
    xboard_features: Mapping[str, OptionValue] = field(default_factory=dict)
    ponder: bool = False
    restart: bool = False
    stderr_log: str | None = None
    handshake_timeout: float = 10.0

    def check_runnable(self) -> None:
        """Raise :class:`EngineError` if the program cannot be found or run."""
        program = self.command[0]
        if os.sep in program:
            path = Path(program)
            if not path.is_absolute() and self.workdir:
                path = Path(self.workdir) / path
            if not (path.is_file() and os.access(path, os.X_OK)):
                raise EngineError(f"engine {self.name!r}: program {program!r} not found or not executable")
        else:
            raise EngineError(
                f"engine {self.name!r}: program {program!r} is not on PATH nor in {GAMES_PATH} "
                f"(install it, e.g. `apt-get install {program}`, or give a full path in cmd)"
            )
        if self.workdir and not Path(self.workdir).is_dir():
            raise EngineError(f"engine {self.name!r}: working directory {self.workdir!r} does not exist")


def engine_dirs(tourney_dir: Path | None = None) -> list[Path]:
    """The engines directories to search, most specific first."""
    dirs: list[Path] = []
    if tourney_dir is not None:
        dirs.append(tourney_dir / "engines")
    dirs += [Path(p) for p in os.environ.get("TMANAGER_ENGINES", "").split(os.pathsep) if p]
    dirs.append(BUNDLED_ENGINES)
    return dirs


def available_definitions(tourney_dir: Path | None = None) -> list[str]:
    """Names of all engine definitions that can be found."""
    names = {p.stem for d in engine_dirs(tourney_dir) if d.is_dir() for p in d.glob("*.toml")}
    return sorted(names)


def find_definition(name: str, tourney_dir: Path | None = None) -> Path:
    """The definition file for ``name``; :class:`ConfigError` listing what exists when none does."""
    for directory in engine_dirs(tourney_dir):
        path = directory / f"{name}.toml"
        if path.is_file():
            return path
    known = ", ".join(available_definitions(tourney_dir)) or "none"
    raise ConfigError(
        f"unknown engine {name!r}",
        hint=f"define engines/{name}.toml, or use cmd and protocol; known: {known}",
    )


def load_definition(path: Path) -> dict[str, Any]:
    """Read and check one definition file, with relative paths made absolute.

    The file is read again only when it has changed (its :func:`~tmanager.files.stamp`):
    a worker resolves both engines of every game.
    """
    current = stamp(path)
    cached = _definitions.get(path)
    if cached is None or cached[0] != current or current is None:
        cached = (current, _read_definition(path))
        _definitions[path] = cached
    return copy.deepcopy(cached[1])


def _read_definition(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read engine definition: {exc}", file=path) from None
    unknown = set(data) - _DEFINITION_KEYS
    if unknown:
        raise ConfigError(
            f"unknown key {sorted(unknown)[0]!r}", file=path, hint=f"known keys: {', '.join(sorted(_DEFINITION_KEYS))}"
        )
    if "cmd" not in data:
        raise ConfigError("missing cmd", file=path, field="cmd")
    data["cmd"] = _absolute_command(data["cmd"], path.parent, file=path)
    if data.get("dir"):
        data["dir"] = str((path.parent / data["dir"]).resolve())
    return data


def command_line(cmd: str | Sequence[str], args: Sequence[str] = ()) -> tuple[str, ...]:
    """Split ``cmd`` and append ``args``; a bare program name is looked up on PATH and in
    /usr/games, and a ``.py`` program runs with this Python."""
    words = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
    if not words:
        raise ConfigError("empty command", field="cmd")
    if os.sep not in words[0]:
        words[0] = shutil.which(words[0]) or shutil.which(words[0], path=GAMES_PATH) or words[0]
    if words[0].endswith(".py"):
        words.insert(0, sys.executable)
    return (*words, *args)


def _absolute_command(cmd: object, base: Path, *, file: Path) -> list[str]:
    if not isinstance(cmd, str | list) or not cmd:
        raise ConfigError("must be a non-empty string or list of strings", file=file, field="cmd")
    words = shlex.split(cmd) if isinstance(cmd, str) else [str(w) for w in cmd]
    program = words[0]
    if os.sep in program or (base / program).is_file():
        words[0] = str((base / program).resolve())
    return words
