"""The participants of ``tmanager new -e``: an engine definition, an engine's program, or fastchess's keys.

Three spellings, told apart by their look:

* ``DEF[:NAME]``: a definition (``engines/DEF.toml``), playing as NAME (default DEF);
* ``PATH[:NAME]``: a program, when the word holds a path separator (``/usr/games/stockfish``,
  ``./build/dev``): a UCI participant with ``cmd``, named after the file's stem unless NAME is given;
* ``cmd=PATH,name=NAME,proto=uci|xboard,dir=D,args="A B"``: fastchess's ``-engine`` keys, separated
  by commas (a value in double quotes may hold commas and spaces; ``args`` is split as a shell would).

A program's path is made absolute from the current directory, and must be an executable file (or,
in the key form, a program on PATH): else one line, exit status 2, and no file.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from tmanager.errors import ConfigError
from tmanager.tourney.engines import SPOKEN, EngineSpec, Protocol, command_line
from tmanager.tourney.model import Participant

#: fastchess's ``-engine`` keys that say which engine a participant is.
ENGINE_KEYS = ("cmd", "name", "proto", "dir", "args")
_FIELD = "--engine"


def participant(text: str) -> Participant:
    """The participant ``-e text`` names (see the module's docstring)."""
    if any(text.startswith(f"{key}=") for key in ENGINE_KEYS):
        return _from_keys(text)
    head, colon, name = text.partition(":")
    if colon and not name:  # "stockfish:": a name meant and left out, which the engine's own would stand for
        raise ConfigError(f"{text!r} gives an empty name after ':'", field=_FIELD,
                          hint=f"write {head}:NAME, or {head} alone to name it {Path(head).stem!r}")
    if not head:  # ":dev": a name and no engine, which the file's check would blame on a file not yet made
        raise ConfigError(f"{text!r} names no engine", field=_FIELD,
                          hint="write DEFINITION:NAME, e.g. -e stockfish:dev")
    if os.sep in head or (os.altsep is not None and os.altsep in head):
        return _from_program(head, name=name, protocol=Protocol.UCI, workdir="", args=())
    return Participant(name=name or head, engine=head)


def _from_keys(text: str) -> Participant:
    lexer = shlex.shlex(text, posix=True)
    lexer.whitespace, lexer.whitespace_split, lexer.commenters = ",", True, ""
    try:
        items = list(lexer)
    except ValueError as exc:  # an unclosed quote
        raise ConfigError(f"{text!r}: {str(exc).lower()}", field=_FIELD, hint="close the quote") from None
    keys: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or key not in ENGINE_KEYS:
            raise ConfigError(
                f"{item!r} is not one of {', '.join(k + '=' for k in ENGINE_KEYS)}", field=_FIELD,
                hint="engine options and limits come with --option NAME:KEY=VALUE and --set participants.NAME.KEY=V",
            )
        if key in keys:  # the last one taken, in silence, where the first was meant as much
            raise ConfigError(f"{key}= given twice ({keys[key]!r}, then {value!r})", field=_FIELD,
                              hint=f"give {key}= once")
        keys[key] = value
    if not keys.get("cmd"):
        raise ConfigError(f"{text!r} has no cmd=", field=_FIELD, hint="e.g. -e cmd=./dev,name=dev")
    if keys.get("name") == "":  # a name meant and left out, which cmd's file name would stand for in silence
        raise ConfigError(f"{text!r}: name= is empty", field=_FIELD,
                          hint="give name=NAME, or leave name= out to name it after cmd's file")
    word = keys.get("proto", Protocol.UCI.value)
    if word not in SPOKEN:
        raise ConfigError(f"proto={word!r}: not uci or xboard", field=_FIELD)
    try:
        args = tuple(shlex.split(keys.get("args", "")))
    except ValueError as exc:
        raise ConfigError(f"args={keys['args']!r}: {str(exc).lower()}", field=_FIELD, hint="close the quote") from None
    return _from_program(
        keys["cmd"], name=keys.get("name", ""), protocol=Protocol(word), workdir=keys.get("dir", ""), args=args
    )


def _from_program(
    program: str, *, name: str, protocol: Protocol, workdir: str, args: tuple[str, ...]
) -> Participant:
    """A participant running ``program`` (a path, made absolute, or a program on PATH), checked to be runnable."""
    if os.sep in program or (os.altsep is not None and os.altsep in program):
        program = os.path.abspath(program)
    workdir = os.path.abspath(workdir) if workdir else ""
    cmd = shlex.quote(program)
    name = name or Path(program).stem
    spec = EngineSpec(name=name, command=command_line(cmd), protocol=protocol, workdir=workdir or None)
    try:
        spec.check_runnable()
    except ConfigError as exc:
        raise exc.relocated(field=_FIELD) from None
    return Participant(name=name, cmd=cmd, protocol=protocol, dir=workdir, args=args)
