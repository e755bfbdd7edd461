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
import dataclasses
import os
import shlex
import shutil
import sys
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tmanager.errors import ConfigError
from tmanager.files import Stamp, expect_file, parse_toml, read_text, stamp
from tmanager.tomlmap import Choice


class Protocol(Choice):
    """How an engine is spoken to. ``UNSET`` is a participant's ``protocol = ""``: its definition's protocol;
    a resolved engine (:class:`EngineSpec`) speaks one of :data:`SPOKEN`."""

    UNSET = ""
    UCI = "uci"
    XBOARD = "xboard"


#: The protocols an engine speaks.
SPOKEN = (Protocol.UCI, Protocol.XBOARD)

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
    #: Seconds to get ready for a game (ucinewgame, isready), and to answer a ping after a cut-off search;
    #: ``None``: ``handshake_timeout``.
    ready_timeout: float | None = None
    ping_timeout: float | None = None
    #: Leave the options the engine refuses unset, and play on (``Settings.warn_refused_options``).
    warn_refused_options: bool = False

    @property
    def key(self) -> Hashable:
        """A hashable value equal for equal specs (a spec holds mappings, and is not hashable itself): an idle
        engine is kept for the specs with its key, so that a participant upgraded under the same name gets
        a process of its own."""
        return tuple(
            tuple(sorted(value.items())) if isinstance(value, Mapping) else value
            for value in (getattr(self, f.name) for f in dataclasses.fields(self))
        )

    @property
    def ready_within(self) -> float:
        return self.handshake_timeout if self.ready_timeout is None else self.ready_timeout

    @property
    def ping_within(self) -> float:
        return self.handshake_timeout if self.ping_timeout is None else self.ping_timeout

    def _program(self) -> tuple[str, bool]:
        """The program as the command names it, and whether it is a script run with this Python."""
        # A .py program runs with this Python (command_line): the script is what must be there, or each game
        # would start the interpreter, see it exit with status 2, and be scored as the engine's crash.
        if self.command[0] == sys.executable and len(self.command) > 1 and self.command[1].endswith(".py"):
            return self.command[1], True
        return self.command[0], False

    def program_file(self) -> Path | None:
        """The file of the engine's program (a script's, for one run with this Python) when the command names it
        by its path, else ``None`` (a program exec finds on PATH)."""
        program, script = self._program()
        if os.sep not in program and not script:
            return None
        path = Path(program)
        return Path(self.workdir) / path if not path.is_absolute() and self.workdir else path

    def check_runnable(self, *, file: Path | None = None, where: str = "") -> None:
        """Raise :class:`ConfigError` if the program cannot be found or run, or its working
        directory is missing; ``file`` and ``where`` (``participants[1]``) locate the error."""
        prefix = f"{where}." if where else ""
        program, script = self._program()
        if os.sep in program or script:
            path = self.program_file()
            assert path is not None
            if not (path.is_file() and (script or os.access(path, os.X_OK))):
                raise ConfigError(
                    f"program {program!r} of engine {self.name!r} not found or not executable",
                    file=file,
                    field=f"{prefix}cmd",
                    hint="check the path, and chmod +x a script",
                )
        elif shutil.which(program) is None:  # command_line made those it found absolute; exec looks on PATH
            raise ConfigError(
                f"program {program!r} of engine {self.name!r} is not on PATH nor in {GAMES_PATH}",
                file=file,
                field=f"{prefix}cmd",
                hint=f"install it, e.g. `apt-get install {program}`, or give a full path in cmd",
            )
        if self.workdir and not Path(self.workdir).is_dir():
            raise ConfigError(
                f"working directory {self.workdir!r} of engine {self.name!r} is missing or not a directory",
                file=file,
                field=f"{prefix}dir",
                hint="create it, or change dir",
            )


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
    names = {p.stem for d in engine_dirs(tourney_dir) if d.is_dir() for p in d.glob("*.toml") if p.exists()}
    return sorted(names)


def find_definition(name: str, tourney_dir: Path | None = None) -> Path:
    """The definition file for ``name``; :class:`ConfigError` listing what exists when none does."""
    for directory in engine_dirs(tourney_dir):
        path = directory / f"{name}.toml"
        if expect_file(path, hint="an engine definition is a TOML file"):  # a FIFO there is said to be one
            return path
        if path.is_symlink():  # it was listed among the known engines of its unknown-engine error
            raise ConfigError("is a symbolic link to nothing", file=path,
                              hint="link it to the engine's definition, or remove it")
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
    data = parse_toml(read_text(path, kind="engine definition", create=None), file=path)
    unknown = set(data) - _DEFINITION_KEYS
    if unknown:
        raise ConfigError(
            f"unknown key {sorted(unknown)[0]!r}", file=path, hint=f"known keys: {', '.join(sorted(_DEFINITION_KEYS))}"
        )
    if "cmd" not in data:
        raise ConfigError("missing cmd", file=path, field="cmd")
    _check_definition_types(data, path)
    data["cmd"] = _absolute_command(data["cmd"], path.parent, file=path)
    if data.get("dir"):
        data["dir"] = str((path.parent / data["dir"]).resolve())
    return data


def _check_definition_types(data: dict[str, Any], path: Path) -> None:
    """Refuse values of the wrong type: they would be merged into every participant using the definition."""
    for key in ("protocol", "dir", "description"):
        if not isinstance(data.get(key, ""), str):
            raise ConfigError("must be str (text)", file=path, field=key)
    args = data.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ConfigError("must be a list of strings", file=path, field="args", hint='e.g. args = ["--uci"]')
    for key in ("options", "xboard_features"):
        table = data.get(key, {})
        if not isinstance(table, dict) or not all(isinstance(v, OptionValue) for v in table.values()):
            raise ConfigError(
                "must be a table of strings, whole numbers or booleans", file=path, field=key,
                hint="e.g. { Hash = 16, Ponder = false }",
            )


def command_line(cmd: str | Sequence[str], args: Sequence[str] = (), *, exec_scripts: bool = False) -> tuple[str, ...]:
    """Split ``cmd`` and append ``args``; a bare program name is looked up on PATH and in
    /usr/games, and a ``.py`` program runs with this Python (by its ``#!`` line with ``exec_scripts``,
    :attr:`Settings.exec_scripts`). :class:`ConfigError` (field ``cmd``) when ``cmd`` holds no word or cannot be
    split."""
    words = _words(cmd) if isinstance(cmd, str) else list(cmd)
    if not words:
        raise ConfigError("empty command", field="cmd", hint='give the program, e.g. cmd = "stockfish"')
    if os.sep not in words[0]:
        words[0] = shutil.which(words[0]) or shutil.which(words[0], path=GAMES_PATH) or words[0]
    if words[0].endswith(".py") and not exec_scripts:
        words.insert(0, sys.executable)
    return (*words, *args)


#: The longest command line split: Linux's most for one argument of a program (MAX_ARG_STRLEN). shlex splits in
#: a time that grows with the square of the length (a megabyte took 35 s, a file's 30 MB line for ever).
MAX_COMMAND = 128 << 10


def _words(cmd: str) -> list[str]:
    """``cmd`` split as a shell would; :class:`ConfigError` (field ``cmd``) when a quote is not closed, or it is
    longer than :data:`MAX_COMMAND`."""
    if len(cmd) > MAX_COMMAND:
        raise ConfigError(f"{len(cmd):,} characters, more than the {MAX_COMMAND:,} of a command line", field="cmd",
                          hint="give the engine's program and its arguments")
    try:
        return shlex.split(cmd)
    except ValueError as exc:  # shlex says "No closing quotation" or "No escaped character"
        raise ConfigError(f"cannot split into words: {str(exc).lower()}", field="cmd", hint="close the quote") from None


def _absolute_command(cmd: object, base: Path, *, file: Path) -> list[str]:
    words: list[str] = []
    if isinstance(cmd, str):
        try:
            words = _words(cmd)
        except ConfigError as exc:
            raise exc.located(file=file) from None
    elif isinstance(cmd, list) and all(isinstance(w, str) for w in cmd):
        words = list(cmd)
    if not words:
        raise ConfigError("must be a non-empty string or list of strings", file=file, field="cmd")
    program = words[0]
    if os.sep in program or (base / program).is_file():
        words[0] = str((base / program).resolve())
    return words
