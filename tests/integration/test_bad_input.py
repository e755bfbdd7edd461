"""Hostile and malformed input: one line ``FILE: FIELD: what is wrong``, exit status 2, nothing changed.

Every case builds a malformed tourney file (or something that is not a file
at all) in a fresh directory, then runs each command that reads it as a real
process with a time limit. A case passes when every command exits with status
2 within the limit, prints exactly one line on stderr naming the file (and
the field to blame, where there is one), prints no traceback, and leaves the
directory as it was: same names, same bytes, same modes.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.integration.test_reliability import fast_tourney
from tests.integration.test_tourney_file import GOOD
from tests.integration.test_workers import start_worker

#: What each command is given besides the file.
COMMANDS: dict[str, tuple[str, ...]] = {
    "status": (),
    "run": (),
    "work": (),
    "edit": ("--set", "site=Here"),
    "serve": ("--port", "0"),
    "reset-stale": (),
    "clone": ("clone.toml",),
    "substitute": ("A", "stockfish", "--upgrade"),
}
EVERY = ("status", "run", "work", "edit")
#: Every command that reads a tourney file, for the inputs that are not a tourney file at all.
READERS = tuple(COMMANDS)
#: Commands that start engines, so check programs and working directories before the first game.
PLAYING = ("run", "work")

#: Seconds a command may take to refuse; one that takes longer hangs.
LIMIT = 30


Maker = Callable[[Path], Path]


@dataclass(frozen=True, slots=True)
class Case:
    """One malformed input: how to make it, and what the one line must say.

    ``field`` is the FIELD part expected after the file name (``None``: the file as a
    whole is to blame, so the line must not name a field); ``says`` is a piece of
    what is wrong; ``file`` is the name of the file to blame when it is not ``t.toml``.
    """

    id: str
    make: Maker
    field: str | None
    says: str
    commands: tuple[str, ...] = EVERY
    file: str = "t.toml"


def text(content: str | bytes, name: str = "t.toml") -> Maker:
    def make(directory: Path) -> Path:
        path = directory / name
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        return directory / "t.toml"

    return make


def edited(*replacements: tuple[str, str]) -> Maker:
    """``GOOD`` with each ``old`` replaced (once) by ``new``."""
    content = GOOD
    for old, new in replacements:
        assert old in content, old
        content = content.replace(old, new, 1)
    return text(content)


def setting(line: str) -> Maker:
    """``GOOD`` with one more line in ``[tourney]``."""
    return edited(("nodes = 100\n", f"nodes = 100\n{line}\n"))


def first(line: str) -> Maker:
    """``GOOD`` with one more line in the first participant's table."""
    return edited(('name = "A"\n', f'name = "A"\n{line}\n'))


def named(name: str) -> Maker:
    """``GOOD`` with the first participant's ``name = …`` line replaced."""
    return edited(('name = "A"\n', f"name = {name}\n"))


def appended(section: str) -> Maker:
    """``GOOD`` with text added at the end (after ``[progress]``)."""
    return text(GOOD + section)


def before_progress(section: str) -> Maker:
    """``GOOD`` with text inserted before ``[progress]``."""
    return edited(("[progress]\n", f"{section}\n[progress]\n"))


def with_definition(definition: str | bytes, line: str = 'engine = "mine"') -> Maker:
    """``GOOD`` whose first participant uses ``engines/mine.toml`` with this content."""

    def make(directory: Path) -> Path:
        (directory / "engines").mkdir()
        (directory / "engines" / "mine.toml").write_bytes(
            definition.encode() if isinstance(definition, str) else definition
        )
        return edited(('cmd = "stockfish"\nprotocol = "uci"\n', f"{line}\n"))(directory)

    return make


def directory_as_file(directory: Path) -> Path:
    (directory / "t.toml").mkdir()
    return directory / "t.toml"


def under_a_file(directory: Path) -> Path:
    (directory / "t.toml").write_text(GOOD)
    return directory / "t.toml" / "x.toml"


def symlink_loop(directory: Path) -> Path:
    (directory / "t.toml").symlink_to("u.toml")
    (directory / "u.toml").symlink_to("t.toml")
    return directory / "t.toml"


def dangling_symlink(directory: Path) -> Path:
    (directory / "t.toml").symlink_to("gone.toml")
    return directory / "t.toml"


def fifo(directory: Path) -> Path:
    os.mkfifo(directory / "t.toml")
    return directory / "t.toml"


def also_fifo(name: str, maker: Maker) -> Maker:
    def make(directory: Path) -> Path:
        path = maker(directory)
        os.mkfifo(directory / name)
        return path

    return make


def also_file(name: str, content: str, maker: Maker, *, mode: int = 0o644) -> Maker:
    def make(directory: Path) -> Path:
        path = maker(directory)
        (directory / name).write_text(content)
        (directory / name).chmod(mode)
        return path

    return make


def beside(name: str, node: Callable[[Path], object], maker: Maker | None = None) -> Maker:
    """``maker``'s file (``GOOD`` by default) with ``node(path)`` making something at ``name`` beside it."""

    def make(directory: Path) -> Path:
        path = (maker or text(GOOD))(directory)
        node(directory / name)
        return path

    return make


def loop(path: Path) -> None:
    """A loop of two symbolic links, one of them at ``path``."""
    partner = path.with_name(path.name + ".loop")
    path.symlink_to(partner.name)
    partner.symlink_to(path.name)


def replaced_by(node: Callable[[Path], object]) -> Callable[[Path], None]:
    """The file at a path removed, and ``node`` made there instead."""

    def make(path: Path) -> None:
        path.unlink()
        node(path)

    return make


def link_to(target: str) -> Callable[[Path], None]:
    return lambda path: path.symlink_to(target)


def device(major: int, minor: int) -> Callable[[Path], None]:
    """A character device node, as a copy of ``/dev/null`` (1, 3) or ``/dev/full`` (1, 7) is (root only)."""

    def make(path: Path) -> None:
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root (CI runs as root)")
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(major, minor))

    return make


DEV_NULL, DEV_FULL = device(1, 3), device(1, 7)


def newline_in_name(directory: Path) -> Path:
    path = directory / "t\n.toml"
    path.write_text(GOOD.replace("nodes = 100\n", "nodes = 100\nspeed = 3\n"))
    return path


def nested(opening: str, closing: str, depth: int = 100_000) -> str:
    return opening * depth + closing * depth


WITHOUT_PARTICIPANTS = GOOD.split("[[participants]]")[0]
BINARY_JUNK = random.Random(19).randbytes(4096)
INJECTION = '"A\\"]\\n[Result \\"0-1\\"]\\n[X \\""'  # TOML for: A"]⏎[Result "0-1"]⏎[X "

CASES = [
    # --- not a tourney file at all ---------------------------------------------------------------
    Case("empty file", text(""), "participants", "at least 2 participants", READERS),
    Case("NUL bytes", text(b"\0" * 4096), None, "not valid TOML", READERS),
    Case("invalid UTF-8", text(GOOD.encode().replace(b"comment", b"c\xffmment")), None, "not UTF-8", READERS),
    Case("binary junk", text(BINARY_JUNK), None, "not UTF-8", READERS),
    Case("UTF-16", text(GOOD.encode("utf-16")), None, "not UTF-8"),
    Case("directory", directory_as_file, None, "is a directory", READERS),
    Case("path under a regular file", under_a_file, None, "not a directory", READERS, file="x.toml"),
    Case("symlink loop", symlink_loop, None, "symbolic links", READERS),
    Case("dangling symlink", dangling_symlink, None, "no such tourney file", READERS),
    Case("FIFO", fifo, None, "not a regular file", READERS),
    Case("truncated", text(GOOD[: GOOD.index("stockfish") + 4]), None, "not valid TOML"),
    Case("10 MB line of junk", text(GOOD + "x" * 10_000_000 + "\n"), None, "not valid TOML"),
    Case("10 MB name", setting(f'event = "{"x" * 10_000_000}"'), "tourney.event", "255"),
    Case("deeply nested arrays", text(f"x = {nested('[', ']')}\n"), None, "nested too deeply", READERS),
    Case("deeply nested tables", text(f"x = {nested('{a=', '}')}\n"), None, "nested too deeply"),
    Case("deeply nested option", first(f"options = {{ x = {nested('[', ']', 200)} }}"),
         "participants[0].options", "table of strings"),
    Case("deeply nested dotted key", text("a" + ".a" * 100_000 + " = 1\n"), None, "nested too deeply", READERS),
    Case("long dotted key", setting("a" + ".a" * 50 + " = 1"), "tourney", "unknown key 'a'"),
    # --- sections and keys -----------------------------------------------------------------------
    Case("tourney an array of tables", edited(("[tourney]\n", "[[tourney]]\n")), "tourney", "must be a table"),
    Case("tourney a number", text("tourney = 5\n\n" + GOOD.split("\n\n", 1)[1]), "tourney", "must be a table"),
    Case("participants a string", text('participants = "A"\n' + WITHOUT_PARTICIPANTS), "participants",
         "array of tables"),
    Case("participants numbers", text("participants = [1, 2]\n" + WITHOUT_PARTICIPANTS), "participants[0]",
         "must be a table"),
    Case("participants a table", text(WITHOUT_PARTICIPANTS + '[participants]\nname = "A"\n'), "participants",
         "array of tables"),
    Case("unknown section", appended("[tourney2]\nx = 1\n"), None, "unknown section 'tourney2'"),
    Case("unknown key", setting("speed = 3"), "tourney", "unknown key 'speed'"),
    Case("unknown participant key", first("hash = 16"), "participants[0]", "unknown key 'hash'"),
    Case("unknown progress key", appended("extra = 1\n"), "progress", "unknown key 'extra'"),
    Case("unknown adjudication key", before_progress("[adjudication]\nresign = 5\n"), "adjudication",
         "unknown key 'resign'"),
    Case("openings without file", before_progress("[openings]\nplies = 4\n"), "openings",
         "missing required key"),
    Case("progress first", text('[progress]\nresults = "+-="\n\n' + GOOD.split("[progress]")[0]), None,
         "after the progress sections"),
    Case("claims before settings", text('[claims]\n\n' + GOOD), None, "after the progress sections"),
    Case("settings after progress", appended("[adjudication]\nmax_moves = 10\n"), None,
         "after the progress sections"),
    # --- the owned tail ----------------------------------------------------------------------------
    Case("results not a string", edited(('results = "+-="', "results = 5")), "progress.results",
         "must be str (text)"),
    Case("results foreign character", edited(('results = "+-="', 'results = "+x="')), "progress.results",
         "foreign character 'x'"),
    Case("results foreign letter", edited(('results = "+-="', 'results = "+\u00e9="')), "progress.results",
         "foreign character '\u00e9' at game 1"),  # it was shown as '\ufffd', its first byte alone
    Case("results too long", edited(('results = "+-="', 'results = "+-=+-=+"')), "progress.results",
         "only 6"),
    Case("results with a newline", edited(('results = "+-="', 'results = "+\\n="')), "progress.results",
         "foreign character"),
    # Past 12 digits the version is not rewritten in place and the journal's checkpoint of it was read as damaged:
    # every change warned of an unreadable journal, and rewrote the whole file.
    Case("version past its 12 digits", edited(("[progress]\n", "[progress]\nversion = 99999999999999\n")),
         "progress.version", "must be a whole number from 0 to 999,999,999,999, not 99999999999999"),
    Case("version negative", edited(("[progress]\n", "[progress]\nversion = -1\n")), "progress.version",
         "from 0 to"),
    Case("claim not a game number", appended("[claims.abc]\nhost = 'h'\n"), "claims", "not a game number"),
    Case("claim missing keys", edited(("[progress]\n", "[claims.1]\nhost = 'h'\n[progress]\n")), "claims.1",
         "missing required key"),
    Case("claim with a string pid",
         edited(("[progress]\n", "[claims.1]\nhost='h'\npid='x'\nstarted=1\nclaimed=1\nheartbeat=1\n[progress]\n")),
         "claims.1.pid", "whole number"),
    # A claim on a game the schedule does not have was dropped in silence, and reset-stale said "no stale claims".
    Case("claim beyond the schedule",
         edited(("[progress]\n", "[claims.6]\nhost='h'\npid=1\nstarted=1\nclaimed=1\nheartbeat=1\n[progress]\n")),
         "claims.6", "no game 6 in the schedule of 6 games (numbered from 0)"),
    # Shown and added to as typed: "faults of A: crash -1".
    Case("fault count negative", edited(("[progress]\n", "[faults.A]\ncrash = -1\n[progress]\n")), "faults.A.crash",
         "must be a whole number from 0 to 9,223,372,036,854,775,807, not -1"),
    Case("fault count past 64 bits", edited(("[progress]\n", "[faults.A]\ncrash = 99999999999999999999\n[progress]\n")),
         "faults.A.crash", "from 0 to"),
    Case("fault count true", edited(("[progress]\n", "[faults.A]\ncrash = true\n[progress]\n")), "faults.A.crash",
         "not True"),
    Case("faults not counts", edited(("[progress]\n", "[faults]\nA = 5\n[progress]\n")), "faults",
         "tables of counts"),
    Case("swiss rounds a number",
         edited(("nodes = 100\n", 'nodes = 100\ntype = "swiss"\nswiss_rounds = 2\n'),
                ('results = "+-="', 'results = ""'), ("[progress]\n", "[swiss]\nrounds = 5\n[progress]\n")),
         "swiss.rounds", "list of rounds"),
    Case("swiss pairing of nobody",
         edited(("nodes = 100\n", 'nodes = 100\ntype = "swiss"\nswiss_rounds = 2\n'),
                ('results = "+-="', 'results = "+"'),
                ("[progress]\n", "[swiss]\nrounds = [[[0, 7]]]\n[progress]\n")),
         "swiss.rounds[0]", "participant 7"),
    # int() took a fraction, a boolean and a text for a participant's number, and wrote them back as numbers.
    *(Case(f"swiss pairing of {what}",
           edited(("nodes = 100\n", 'nodes = 100\ntype = "swiss"\nswiss_rounds = 2\n'),
                  ('results = "+-="', 'results = "+"'),
                  ("[progress]\n", f"[swiss]\nrounds = [[[{white}, 2]]]\n[progress]\n")),
           "swiss.rounds[0]", "pairs of participants' numbers")
      for what, white in (("a fraction", "0.5"), ("a boolean", "true"), ("a text", '"0"'))),
    # A round past the schedule's end was taken, and its bye counted in the standings.
    Case("swiss rounds past the schedule",
         edited(("nodes = 100\n", 'nodes = 100\ntype = "swiss"\nswiss_rounds = 2\n'),
                ('results = "+-="', 'results = "+-"'),
                ("[progress]\n", "[swiss]\nrounds = [[[0, 1]], [[2, 0]], [[1, 2]]]\n[progress]\n")),
         "swiss.rounds[2]", "3 rounds are paired, but the schedule has 2"),
    # --- [tourney] values ------------------------------------------------------------------------
    Case("tourney name a number", edited(('name = "t"', "name = 5")), "tourney.name", "must be str (text)"),
    Case("tourney name with a newline", edited(('name = "t"', 'name = "t\\n[Round \\"9\\"]"')), "tourney.name",
         "control character"),
    # A blank name was taken: the title of status, of the pages and of the PGN's Event said nothing.
    Case("tourney name blank", edited(('name = "t"', 'name = "  "')), "tourney.name", "is empty"),
    Case("event with a quote", setting('event = "a\\"b"'), "tourney.event", "quote"),
    Case("type unknown", setting('type = "knockout"'), "tourney.type", "'knockout'"),
    Case("type a number", setting("type = 1"), "tourney.type", "not one of"),
    Case("cycles a string", setting('cycles = "two"'), "tourney.cycles", "whole number"),
    Case("cycles a fraction", setting("cycles = 2.5"), "tourney.cycles", "whole number"),
    Case("cycles a boolean", setting("cycles = true"), "tourney.cycles", "whole number"),
    # A negative count and 0 break one rule: one wording (it was "cannot be negative, not -1" for one of them).
    Case("cycles negative", setting("cycles = -1"), "tourney.cycles",
         "must be at least 1, not -1 (the times the schedule is played: 1 or more)"),
    Case("cycles zero", setting("cycles = 0"), "tourney.cycles",
         "must be at least 1, not 0 (the times the schedule is played: 1 or more)"),
    Case("cycles a trillion", setting("cycles = 1000000000000"), "tourney.cycles", "100,000,000"),
    Case("cycles beyond 64 bits", setting("cycles = 99999999999999999999999999"), "tourney.cycles",
         "must be at most 9,223,372,036,854,775,807"),
    Case("games per pairing zero", setting("games_per_pairing = 0"), "tourney.games_per_pairing",
         "must be at least 1, not 0 (the games of each pairing: 1, or 2 for a colour-reversed pair)"),
    Case("games per pairing negative", setting("games_per_pairing = -2"), "tourney.games_per_pairing",
         "must be at least 1, not -2 (the games of each pairing: 1, or 2 for a colour-reversed pair)"),
    Case("games per pairing huge", setting("games_per_pairing = 50000000"), "tourney.games_per_pairing",
         "100,000,000"),
    Case("gauntlet without seeds", setting('type = "gauntlet"\ngauntlet_seeds = 0'), "tourney.gauntlet_seeds",
         "0 seeds"),
    Case("gauntlet of seeds only", setting('type = "gauntlet"\ngauntlet_seeds = 3'), "tourney.gauntlet_seeds",
         "3 seeds with 3 participants"),
    Case("swiss without rounds", edited(("nodes = 100\n", 'nodes = 100\ntype = "swiss"\n'),
                                        ('results = "+-="', 'results = ""')),
         "tourney.swiss_rounds", "a Swiss tourney needs its rounds per cycle (set swiss_rounds = N from 1 to 2, or "
         "give tmanager new --rounds N)"),
    Case("bye points negative", setting("bye_points = -1"), "tourney.bye_points", "non-negative"),
    Case("sync not a boolean", setting('sync_after_round = "yes"'), "tourney.sync_after_round", "true or false"),
    Case("pgn a number", setting("pgn = 5"), "tourney.pgn", "must be str (text)"),
    Case("pgn a directory", setting('pgn = "."'), "tourney.pgn", "is a directory"),
    Case("pgn in a missing directory", setting('pgn = "missing/t.pgn"'), "tourney.pgn", "no directory"),
    Case("pgn under a regular file", also_file("f", "x", setting('pgn = "f/t.pgn"')), "tourney.pgn",
         "no directory"),
    Case("pgn the tourney file", setting('pgn = "t.toml"'), "tourney.pgn", "the tourney file itself"),
    Case("pgn a FIFO", also_fifo("t.pgn", setting('pgn = "t.pgn"')), "tourney.pgn", "FIFO"),
    Case("variant unknown", setting('variant = "xiangqi"'), "tourney.variant", "xiangqi"),
    Case("tc a number", setting("tc = 5"), "tourney.tc", "must be str (text)"),
    Case("tc unreadable", setting('tc = "fast"'), "tourney.tc", "bad time control 'fast'"),
    Case("tc of no time", setting('tc = "0+1"'), "tourney.tc", "must be positive"),
    Case("tc of no moves", setting('tc = "0/60"'), "tourney.tc", "must be positive"),
    Case("no limit at all", edited(("nodes = 100\n", "")), "tourney.tc", "no limit at all"),
    Case("st negative", setting("st = -1"), "tourney.st", "non-negative"),
    Case("st zero", setting("st = 0"), "tourney.st", "must be positive"),
    Case("st not a number", setting("st = nan"), "tourney.st", "nan"),
    Case("st infinite", setting("st = inf"), "tourney.st", "inf"),
    Case("nodes zero", edited(("nodes = 100", "nodes = 0")), "tourney.nodes", "must be positive"),
    Case("depth negative", setting("depth = -3"), "tourney.depth", "negative"),
    Case("time margin negative", setting("time_margin = -0.5"), "tourney.time_margin", "non-negative"),
    Case("handshake timeout zero", setting("handshake_timeout = 0"), "tourney.handshake_timeout",
         "must be positive"),
    Case("move timeout zero", setting("move_timeout = 0"), "tourney.move_timeout", "must be positive"),
    Case("lease zero", setting("lease = 0"), "tourney.lease", "must be positive"),
    Case("lease negative", setting("lease = -120"), "tourney.lease", "non-negative"),
    Case("ponder a string", setting('ponder = "yes"'), "tourney.ponder", "true or false"),
    Case("hook a number", setting("after_game = 5"), "tourney.after_game", "must be str (text)"),
    # --- participants ----------------------------------------------------------------------------
    Case("one participant", text(GOOD.split("[[participants]]\nname = \"B\"")[0]),
         "participants", "at least 2 participants"),
    Case("name missing", edited(('name = "A"\n', "")), "participants[0]", "missing required key 'name'"),
    Case("name empty", named('""'), "participants[0].name", "empty"),
    Case("name blank", named('"   "'), "participants[0].name", "empty"),
    Case("name with a quote", named('"A\\"B"'), "participants[0].name", "quote"),
    Case("name injecting a tag", named(INJECTION), "participants[0].name", "holds a quote"),
    Case("name with a newline", named('"A\\n[Result \\"0-1\\"]"'), "participants[0].name", "U+000A"),
    Case("name with a tab", named('"A\\tB"'), "participants[0].name", "control character"),
    Case("name with a bell", named('"A\\u0007"'), "participants[0].name", "control character"),
    Case("name with a line separator", named('"A\\u2028B"'), "participants[0].name", "control character"),
    Case("name that reorders what follows it", named('"A\\u202e0-1"'), "participants[0].name", "control character"),
    Case("name with a backslash", named('"A\\\\B"'), "participants[0].name", "backslash"),
    Case("name too long", named(f'"{"N" * 300}"'), "participants[0].name", "255"),
    Case("name a number", named("5"), "participants[0].name", "must be str (text)"),
    Case("names twice", named('"B"'), "participants", "two participants are named 'B'"),
    Case("neither engine nor cmd", edited(('cmd = "stockfish"\nprotocol = "uci"\n', "")), "participants[0]",
         "neither engine nor cmd"),
    Case("unknown engine", edited(('cmd = "stockfish"\nprotocol = "uci"\n', 'engine = "no-such-def"\n')),
         "participants[0].engine", "unknown engine 'no-such-def'"),
    Case("engine a number", edited(('cmd = "stockfish"\nprotocol = "uci"\n', "engine = 5\n")),
         "participants[0].engine", "must be str (text)"),
    Case("cmd a number", edited(('cmd = "stockfish"', "cmd = 5")), "participants[0].cmd", "must be str (text)"),
    Case("cmd blank", edited(('cmd = "stockfish"', 'cmd = "   "')), "participants[0].cmd", "empty command"),
    Case("cmd unbalanced quote", edited(('cmd = "stockfish"', "cmd = \"'stockfish\"")), "participants[0].cmd",
         "quotation"),
    Case("protocol unknown", edited(('protocol = "uci"', 'protocol = "cecp"')), "participants[0].protocol",
         "'cecp'"),
    Case("args a string", first('args = "-x"'), "participants[0].args", "list of strings"),
    Case("args numbers", first("args = [1, 2]"), "participants[0].args", "list of strings"),
    Case("options a number", first("options = 5"), "participants[0].options", "table of strings"),
    Case("option a fraction", first("options = { Hash = 1.5 }"), "participants[0].options", "table of strings"),
    Case("participant tc unreadable", first('tc = "soon"'), "participants[0].tc", "bad time control"),
    Case("participant st zero", first("st = 0"), "participants[0].st", "must be positive"),
    Case("participant ponder a number", first("ponder = 1"), "participants[0].ponder", "true or false"),
    Case("stderr in a missing directory", first('stderr = "logs/a.err"'), "participants[0].stderr",
         "no directory"),
    Case("stderr a directory", first('stderr = "."'), "participants[0].stderr", "is a directory"),
    Case("missing program", edited(('cmd = "stockfish"', 'cmd = "no-such-engine-binary"')),
         "participants[0].cmd", "not on PATH", PLAYING),
    Case("program not executable",
         also_file("engine.sh", "#!/bin/sh\n", edited(('cmd = "stockfish"', 'cmd = "./engine.sh"')), mode=0o644),
         "participants[0].cmd", "not executable", PLAYING),
    Case("missing working directory", first('dir = "nowhere"'), "participants[0].dir", "missing or not a directory",
         PLAYING),
    Case("working directory a file", also_file("f", "x", first('dir = "f"')), "participants[0].dir",
         "missing or not a directory", PLAYING),
    # --- [adjudication] and [openings] -----------------------------------------------------------
    Case("max moves negative", before_progress("[adjudication]\nmax_moves = -1\n"), "adjudication.max_moves",
         "negative"),
    # A count of 0 ended every game before its first move, as a draw or as Black's resignation.
    Case("max moves zero", before_progress("[adjudication]\nmax_moves = 0\n"), "adjudication.max_moves",
         "must be at least 1, not 0 (leave it out for no move limit)"),
    Case("resign moves zero", before_progress("[adjudication]\nresign_score = 600\nresign_moves = 0\n"),
         "adjudication.resign_moves", "must be at least 1, not 0"),
    Case("draw moves zero", before_progress("[adjudication]\ndraw_score = 10\ndraw_moves = 0\n"),
         "adjudication.draw_moves", "must be at least 1, not 0"),
    Case("resign score a string", before_progress("[adjudication]\nresign_score = 'x'\n"),
         "adjudication.resign_score", "whole number"),
    Case("syzygy a number", before_progress("[adjudication]\nsyzygy = 5\n"), "adjudication.syzygy",
         "must be str (text)"),
    Case("syzygy missing", before_progress("[adjudication]\nsyzygy = 'no-tables'\n"), "adjudication.syzygy",
         "no directory"),
    Case("openings format unknown", before_progress("[openings]\nfile = 'b.epd'\nformat = 'cbh'\n"),
         "openings.format", "'cbh'"),
    Case("openings plies negative", before_progress("[openings]\nfile = 'b.epd'\nplies = -1\n"),
         "openings.plies", "negative"),
    # status took a start of 0 that only a worker refused, as it played its first game.
    Case("openings start zero", before_progress("[openings]\nfile = 'b.epd'\nstart = 0\n"), "openings.start",
         "must be at least 1, not 0 (the book's first opening is 1; a start past its end wraps round)"),
    Case("openings book missing", before_progress("[openings]\nfile = 'b.epd'\n"), None,
         "no such opening book file", PLAYING, file="b.epd"),
    Case("openings book a FIFO", also_fifo("b.epd", before_progress("[openings]\nfile = 'b.epd'\n")),
         None, "not a regular file", PLAYING, file="b.epd"),
    # --- tmanager's own files beside the tourney file, and the files it writes to --------------------
    Case("journal a FIFO", beside(".t.toml.journal", os.mkfifo), None, "FIFO", READERS, file=".t.toml.journal"),
    Case("journal a directory", beside(".t.toml.journal", Path.mkdir), None, "is a directory", READERS,
         file=".t.toml.journal"),
    Case("journal a symlink loop", beside(".t.toml.journal", loop), None, "symbolic links", READERS,
         file=".t.toml.journal"),
    # No journal can be made there: the checkpoint's failure was told as the disk's ("check the disk").
    Case("journal a link into a missing directory", beside(".t.toml.journal", link_to("gone/journal")), None,
         "is a symbolic link into", READERS, file=".t.toml.journal"),
    Case("journal a link to /dev/zero", beside(".t.toml.journal", link_to("/dev/zero")), None, "character device",
         READERS, file=".t.toml.journal"),
    Case("lock a directory", beside("t.toml.lock", Path.mkdir), None, "is a directory", READERS, file="t.toml.lock"),
    Case("lock a symlink loop", beside("t.toml.lock", loop), None, "symbolic links", READERS, file="t.toml.lock"),
    # The lock cannot be taken through it: `work` waited for ever, and SIGTERM did not end it.
    Case("lock a link to nothing", beside("t.toml.lock", link_to("nowhere")), None, "is a symbolic link to nothing",
         READERS, file="t.toml.lock"),
    Case("live directory a file", beside(".t.live", Path.touch), None, "not a directory", READERS, file=".t.live"),
    # No directory can be made there: the games in progress went unshown (status, the dashboard), without a word.
    Case("live directory a link to nothing", beside(".t.live", link_to("nowhere")), None,
         "is a symbolic link to nothing", READERS, file=".t.live"),
    Case("engine logs a link to nothing", beside("t.engine-logs", link_to("nowhere")), None,
         "is a symbolic link to nothing", file="t.engine-logs"),
    Case("engine logs a file", beside("t.engine-logs", Path.touch), None, "not a directory", file="t.engine-logs"),
    Case("pgn a copy of /dev/null", beside("t.pgn", DEV_NULL), "tourney.pgn", "character device", READERS),
    Case("pgn a copy of /dev/full", beside("t.pgn", DEV_FULL), "tourney.pgn", "character device"),
    Case("pgn a link to /dev/null", beside("t.pgn", link_to("/dev/null")), "tourney.pgn", "character device"),
    Case("stderr a copy of /dev/null", beside("a.err", DEV_NULL, first('stderr = "a.err"')),
         "participants[0].stderr", "character device"),
    Case("epd_out the tourney file", setting('epd_out = "t.toml"'), "tourney.epd_out", "the tourney file itself"),
    Case("epd_out a directory", setting('epd_out = "."'), "tourney.epd_out", "is a directory"),
    Case("epd_out a FIFO", also_fifo("f.epd", setting('epd_out = "f.epd"')), "tourney.epd_out", "FIFO"),
    Case("epd_out a copy of /dev/full", beside("f.epd", DEV_FULL, setting('epd_out = "f.epd"')), "tourney.epd_out",
         "character device"),
    Case("epd_out in a missing directory", setting('epd_out = "no/f.epd"'), "tourney.epd_out", "no directory"),
    Case("file name with a newline", newline_in_name, "tourney", "unknown key 'speed'", READERS, file="t\\n.toml"),
    Case("openings book a symlink loop", beside("b.epd", loop, before_progress("[openings]\nfile = 'b.epd'\n")),
         None, "symbolic links", ("clone", *PLAYING), file="b.epd"),
    # --- engine definitions ----------------------------------------------------------------------
    Case("definition a FIFO", beside("engines/mine.toml", replaced_by(os.mkfifo), with_definition("")), None, "FIFO",
         file="mine.toml"),
    Case("definition not TOML", with_definition("cmd = \n"), None, "not valid TOML", file="mine.toml"),
    Case("definition not UTF-8", with_definition(b'cmd = "\xff"\n'), None, "not UTF-8", file="mine.toml"),
    Case("definition nested too deeply", with_definition(f"x = {nested('[', ']')}\n"), None,
         "nested too deeply", file="mine.toml"),
    Case("definition unknown key", with_definition('cmd = "stockfish"\nprotocol = "uci"\nhash = 1\n'), None,
         "unknown key 'hash'", file="mine.toml"),
    Case("definition without cmd", with_definition('protocol = "uci"\n'), "cmd", "missing", file="mine.toml"),
    Case("definition cmd a number", with_definition('cmd = 5\nprotocol = "uci"\n'), "cmd", "non-empty",
         file="mine.toml"),
    Case("definition args a string", with_definition('cmd = "stockfish"\nprotocol = "uci"\nargs = "-x"\n'),
         "args", "list of strings", file="mine.toml"),
    Case("definition options a number", with_definition('cmd = "stockfish"\nprotocol = "uci"\noptions = 5\n'),
         "options", "table of strings", file="mine.toml"),
    Case("definition protocol a number", with_definition('cmd = "stockfish"\nprotocol = 5\n'),
         "protocol", "must be str (text)", file="mine.toml"),
]


def snapshot(directory: Path) -> dict[str, tuple[int, bytes | str | None]]:
    """Every entry under ``directory`` except lock files: its mode and its bytes (or link target)."""
    found: dict[str, tuple[int, bytes | str | None]] = {}
    for path in sorted(directory.rglob("*")):
        if path.name.endswith(".lock"):
            continue
        info = path.lstat()
        content: bytes | str | None = None
        if stat.S_ISREG(info.st_mode):
            content = path.read_bytes()
        elif stat.S_ISLNK(info.st_mode):
            content = os.readlink(path)
        found[str(path.relative_to(directory))] = (info.st_mode, content)
    return found


#: tmanager: FILE: [FIELD: ]what is wrong[ (how to fix it)]
ONE_LINE = re.compile(r"tmanager: (?P<file>[^:\n]+): (?:(?P<field>[\w.\[\]-]+): )?(?P<what>.+)")


def refuse(command: str, path: Path, case: Case) -> None:
    """Run ``command`` on ``path`` and check that it refuses in the one-line way."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tmanager", command, str(path), *COMMANDS[command]],
            capture_output=True,
            cwd=path.parent if path.parent.is_dir() else path.parent.parent,
            timeout=LIMIT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{command} hangs")
    stderr = done.stderr.decode("utf-8", "replace")
    shown = f"{command}: {stderr[:2000]!r}"
    assert b"Traceback" not in done.stdout + done.stderr, shown
    assert done.returncode == 2, shown
    lines = stderr.splitlines()
    assert len(lines) == 1, shown
    match = ONE_LINE.fullmatch(lines[0])
    assert match is not None, shown
    assert Path(match["file"]).name in (case.file, Path(os.path.realpath(path)).name), shown
    assert match["field"] == case.field, shown
    assert case.says in match["what"], shown


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_malformed_file_is_refused_in_one_line(tmp_path: Path, case: Case) -> None:
    path = case.make(tmp_path)
    before = snapshot(tmp_path)
    for command in case.commands:
        refuse(command, path, case)
        assert snapshot(tmp_path) == before, f"{command} changed the directory"


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 73
    assert len({c.id for c in CASES}) == len(CASES)


# --- bad values on the command line ------------------------------------------------------------------


def with_pgn(directory: Path) -> Path:
    """``GOOD`` and a PGN holding its three games, which ``substitute --replace`` would mark superseded."""
    games = "".join(
        f'[Event "t"]\n[White "A"]\n[Black "B"]\n[Result "{r}"]\n[GameNumber "{n}"]\n\n{r}\n\n'
        for n, r in enumerate(["1-0", "0-1", "1/2-1/2"])
    )
    (directory / "t.pgn").write_text(games)
    return text(GOOD)(directory)


ARGUMENTS = [
    ("edit", ("--set", "cycles=1000000000000"), "tourney.cycles", "100,000,000"),
    ("edit", ("--set", "cycles=" + nested("[", "]", 20_000)), "tourney.cycles", "whole number"),
    ("edit", ("--set", "x={" + "a." * 20_000 + "a = 1}"), "tourney", "unknown key 'x'"),
    ("edit", ("--set", 'name="t\\n[Result \\"1-0\\"]"'), "tourney.name", "control character"),
    ("edit", ("--set", 'name=""'), "tourney.name", "is empty (give the tourney a name, or leave it out)"),
    ("edit", ("--set", "lease=0"), "tourney.lease", "must be positive"),
    ("edit", ("--set", "cycles=0"), "tourney.cycles", "must be at least 1, not 0 (the times the schedule is played: "
     "1 or more)"),
    ("edit", ("--set", "cycles=-1"), "tourney.cycles", "must be at least 1, not -1 (the times the schedule is played: "
     "1 or more)"),
    ("edit", ("--set", "nodes=9223372036854775808"), "tourney.nodes", "at most 9,223,372,036,854,775,807"),
    ("edit", ("--set", "depth=99999999999999999999999"), "tourney.depth", "at most 9,223,372,036,854,775,807"),
    # Wider than TOML's 64 bits: Python's reader took them, and the file written was one no other reader takes.
    ("edit", ("--set", "adjudication.max_moves=9223372036854775808"), "adjudication.max_moves",
     "must be at most 9,223,372,036,854,775,807, not 9,223,372,036,854,775,808 (TOML's whole numbers are 64 bits)"),
    ("edit", ("--option", "A:Hash=-99999999999999999999"), "participants[0].options",
     "Hash: must be at least -9,223,372,036,854,775,808"),
    ("edit", ("--set", "swiss.rounds=[]"), "swiss.rounds", "cannot set"),
    ("edit", ("--set", "openings.plies=4"), "openings.plies", "set openings.file first"),
    ("edit", ("--set", "handshake_timeout=-1"), "tourney.handshake_timeout", "non-negative"),
    ("edit", ("--set", 'pgn="."'), "tourney.pgn", "is a directory"),
    ("edit", ("--set", 'pgn="t.toml"'), "tourney.pgn", "the tourney file itself"),
    # An EPD line appended to the PGN: the next game cut the game before it off the file.
    ("edit", ("--set", 'epd_out="t.pgn"'), "tourney.epd_out", "is tourney.pgn too (give each its own file)"),
    ("edit", ("--set", 'epd_out=".t.toml.journal"'), "tourney.epd_out", "is the tourney's journal"),
    ("edit", ("--set", 'pgn="t.toml.lock"'), "tourney.pgn", "is the tourney's lock file"),
    ("substitute", ("A", "stockfish", "--name", 'X"]\n[Result "1-0"]', "--replace"), "participants[0].name",
     "holds a quote"),
    # An upgrade keeps the slot's name (--name is refused there): an empty one can only come with --replace.
    ("substitute", ("A", "stockfish", "--name", "  ", "--replace"), "participants[0].name", "is empty"),
    ("substitute", ("A", "nope", "--cmd", "'unclosed", "--protocol", "uci", "--upgrade"), "participants[0].cmd",
     "no closing quotation"),
]


@pytest.mark.parametrize(
    ("command", "arguments", "field", "says"), ARGUMENTS, ids=[f"{a[0]}: {a[3]}" for a in ARGUMENTS]
)
def test_bad_values_on_the_command_line_change_nothing(
    tmp_path: Path, command: str, arguments: tuple[str, ...], field: str, says: str
) -> None:
    path = with_pgn(tmp_path)
    before = snapshot(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "tmanager", command, str(path), *arguments],
        capture_output=True, text=True, timeout=LIMIT, check=False,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[:2000]
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr[:2000]
    match = ONE_LINE.fullmatch(lines[0])
    assert match is not None and match["field"] == field and says in match["what"], lines[0][:2000]
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(("make", "says"), [(os.mkfifo, "is not a regular file but a FIFO (an engine definition is "
                                                       "a TOML file)"),
                                            (lambda p: p.write_text(""), "cmd: missing cmd"),
                                            # It was 'unknown engine 'dev'', listing dev among the known ones.
                                            (lambda p: p.symlink_to("nowhere.toml"), "is a symbolic link to nothing "
                                             "(link it to the engine's definition, or remove it)")],
                         ids=["FIFO", "no cmd", "link to nothing"])
def test_new_names_the_engine_definition_at_fault(tmp_path: Path, make: Callable[[Path], object], says: str) -> None:
    """`new` said "tmanager: is not a regular file but a FIFO (…)", or "tmanager: cmd: missing cmd": the new
    tourney file's name is left out of its errors (it is not written yet), and the definition's went with it."""
    (tmp_path / "engines").mkdir()
    definition = tmp_path / "engines" / "dev.toml"
    make(definition)
    line = one_line(["new", tmp_path / "n.toml", "-e", "dev", "-e", "greedy-uci", "--nodes", "9"])
    assert line == f"tmanager: {definition}: {says}", line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["engines"]


LONG = "y" * 300  # a file name longer than the 255 bytes a file system allows


@pytest.mark.parametrize("arguments", [["status", f"{LONG}.toml"], ["edit", f"{LONG}.toml", "--set", "cycles=2"],
                                       ["serve", f"{LONG}.toml"], ["check", "long"],
                                       ["new", "n.toml", "-e", f"/tmp/{LONG}", "-e", "greedy-uci", "--nodes", "9"],
                                       ["new", "n.toml", "-e", "long", "-e", "greedy-uci", "--nodes", "9"],
                                       ["fastchess", "-engine", f"cmd={LONG}", "-engine", f"cmd={LONG}", "-each",
                                        "tc=1+0.1"]],
                         ids=["status", "edit", "serve", "check", "new -e PATH", "new -e DEF", "fastchess"])
def test_a_file_name_too_long_is_one_line(tmp_path: Path, arguments: list[str]) -> None:
    """pathlib's is_file(), exists() and is_symlink() raise for a name too long (Python 3.11): a traceback."""
    (tmp_path / "engines").mkdir()
    (tmp_path / "engines" / "long.toml").write_text(f'cmd = "{LONG}"\nprotocol = "uci"\n')
    before = snapshot(tmp_path)
    done = subprocess.run([sys.executable, "-m", "tmanager", *arguments], capture_output=True, text=True,
                          timeout=LIMIT, check=False, cwd=tmp_path)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr[-2000:]
    assert done.stderr.startswith("tmanager: ") and ": file name too long (a name has at most 255 bytes, a path " \
        "4,096)" in done.stderr, done.stderr
    assert snapshot(tmp_path) == before


def test_a_command_line_of_a_megabyte_is_refused_at_once(tmp_path: Path) -> None:
    """Split by shlex, whose time grows with the square of its length: 35 s for a definition's megabyte, and a
    tourney file's 30 MB line held every command that read it for ever."""
    (tmp_path / "engines").mkdir()
    (tmp_path / "engines" / "huge.toml").write_text(f'cmd = "{"x" * (1 << 20)}"\nprotocol = "uci"\n')
    line = one_line(["new", tmp_path / "n.toml", "-e", "huge", "-e", "greedy-uci", "--nodes", "9"])
    assert line == f"tmanager: {tmp_path}/engines/huge.toml: cmd: 1,048,576 characters, more than the 131,072 of a " \
        "command line (give the engine's program and its arguments)", line


def test_new_never_writes_over_another_tourneys_journal_or_lock_file(tmp_path: Path) -> None:
    """`new .t.toml.journal --force` wrote a tourney over t.toml's journal, which t.toml then read as damaged and
    set aside, with what it held; `new t.toml.lock --force` replaced the file t.toml is locked with."""
    path = tmp_path / "t.toml"
    assert run_cli("new", path, "-e", "greedy-uci:A", "-e", "random-uci:B", "--nodes", "9").returncode == 0
    assert run_cli("work", path, "--games", "1", "-q").returncode == 0
    kept = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    for name, what in ((".t.toml.journal", "the journal of t.toml"), ("t.toml.lock", "the lock file of t.toml")):
        done = run_cli("new", tmp_path / name, "-e", "greedy-uci:A", "-e", "random-uci:B", "--nodes", "9", "--force")
        assert done.returncode == 2 and done.stderr == f"tmanager: {tmp_path / name}: is {what} (choose another " \
            "name: tmanager keeps that file's state there)\n", done.stderr
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == kept
    assert run_cli("status", path).returncode == 0 and "1 played" in run_cli("status", path).stdout


def test_new_refuses_what_it_could_not_play(tmp_path: Path) -> None:
    base = [sys.executable, "-m", "tmanager", "new", str(tmp_path / "n.toml"), "-e", "stockfish:B", "--nodes", "9"]
    for extra, says in [
        (["-e", 'stockfish:A"]\n[Result "1-0"]'], "holds a quote"),
        (["-e", "stockfish:A", "--pgn", "missing/n.pgn"], "no directory"),
        (["-e", "stockfish:A", "--pgn", "n.toml"], "the tourney file itself"),
        (["-e", "stockfish:A", "--cycles", "1000000000"], "100,000,000"),
        (["-e", "stockfish:A", "--set", "move_timeout=0"], "must be positive"),
        # as in the file and from edit --set, below 1 in one wording (-1 was not told from 0)
        (["-e", "stockfish:A", "--cycles", "-1"], "tourney.cycles: must be at least 1, not -1 (the times the "
         "schedule is played: 1 or more)"),
        (["-e", "stockfish:A", "--games", "0"], "tourney.games_per_pairing: must be at least 1, not 0 (the games "
         "of each pairing: 1, or 2 for a colour-reversed pair)"),
    ]:
        done = subprocess.run([*base, *extra], capture_output=True, text=True, timeout=LIMIT, check=False)
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and says in done.stderr, done.stderr
        assert list(tmp_path.iterdir()) == []


# --- what reaches the PGN ------------------------------------------------------------------------------

HOSTILE = [
    'A"]\n[Result "0-1"]\n[X "',
    "B\\\"]\r\n[Result \"1-0\"]",
    "C\u2028[Result \"0-1\"]\u0085",
    'D\\',
    "E\x00\x1b[31m",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_tag_value_never_ends_its_tag(tmp_path: Path, name: str) -> None:
    from tmanager.formats.pgn import tag_value
    from tmanager.formats.pgnscan import scan

    line = f'[White "{tag_value(name)}"]'
    assert "\n" not in line and "\r" not in line
    assert re.fullmatch(r'\[White "(?:[^"\\]|\\.)*"\]', line)
    path = tmp_path / "g.pgn"
    path.write_text(f'[Event "e"]\n{line}\n[Black "b"]\n[Result "1-0"]\n\n1-0\n\n')
    shown = re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", " ", name)
    assert [(g.white, g.black, g.result) for g in scan(path)] == [(shown, "b", "1-0")]


def test_hostile_names_in_a_played_game_give_one_tag_each(tmp_path: Path) -> None:
    """The runner's PGN holds exactly the tags it means to, whatever the names (the tourney
    file refuses such names; the writer must be safe without that)."""
    import asyncio

    from tests.integration.test_game_runner import spec
    from tmanager.core.timecontrol import TimeControl
    from tmanager.formats import pgn
    from tmanager.tourney.adjudication import Adjudication
    from tmanager.tourney.play import GameSpec, play_game

    limits = TimeControl.parse("10+0.1")
    game = GameSpec(
        white=spec("greedy-uci", HOSTILE[0]), black=spec("random-uci", HOSTILE[1]),
        # One move each: no mate comes that early (the earliest is Black's second move), so the
        # result is always the adjudicated draw. With five, the greedy engine mated now and then.
        white_limits=limits, black_limits=limits, adjudication=Adjudication(max_moves=1),
        tags={"Event": HOSTILE[2], "Site": HOSTILE[3], "Round": "1", "GameNumber": "0"},
    )
    record = asyncio.run(play_game(game))
    tags = [line for line in record.pgn.splitlines() if line.startswith("[")]
    assert [t.split(" ", 1)[0] for t in tags].count("[Result") == 1
    assert all(re.fullmatch(r'\[\w+ "(?:[^"\\]|\\.)*"\]', t) for t in tags), tags
    path = tmp_path / "t.pgn"
    pgn.append_game(path, record.pgn)
    found = pgn.find_game(path, 0)
    assert found is not None and found.result == record.result.pgn == "1/2-1/2"


# --- new files get the user's usual mode ---------------------------------------------------------------


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_new_and_clone_create_files_with_the_users_usual_mode(tmp_path: Path, umask: int, mode: int) -> None:
    path = tmp_path / "n.toml"
    for args in (
        ["new", path, "-e", "stockfish:A", "-e", "stockfish:B", "--nodes", "9"],
        ["clone", path, tmp_path / "c.toml"],
    ):
        done = subprocess.run([sys.executable, "-m", "tmanager", *map(str, args)], capture_output=True, text=True,
                              timeout=LIMIT, check=False, umask=umask)
        assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert stat.S_IMODE((tmp_path / "c.toml").stat().st_mode) == mode
    path.chmod(0o604)
    done = subprocess.run([sys.executable, "-m", "tmanager", "edit", str(path), "--set", "cycles=2"],
                          capture_output=True, text=True, timeout=LIMIT, check=False, umask=umask)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(path.stat().st_mode) == 0o604  # a rewrite keeps the file's own mode
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_an_explicit_mode_is_exact_whatever_the_umask(tmp_path: Path) -> None:
    from tmanager.files import atomic_write

    old = os.umask(0o000)
    try:
        atomic_write(tmp_path / "secret", "x", mode=0o600)
        atomic_write(tmp_path / "plain", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "secret").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "plain").stat().st_mode) == 0o666


def test_dotted_keys_up_to_the_limit_are_read() -> None:
    from tmanager.errors import ConfigError
    from tmanager.files import MAX_KEY_PARTS, parse_toml

    key = ".".join(["a"] * MAX_KEY_PARTS)
    data = parse_toml(f"{key} = 1\nx = [{', '.join(['0.5'] * 500)}]\ny = '{'-' * 100_000}'\n", file=None)
    assert data["x"] == [0.5] * 500
    with pytest.raises(ConfigError, match="nested too deeply"):
        parse_toml(f"[{key}.a]\n", file=None)
    with pytest.raises(ConfigError, match="nested too deeply"):
        parse_toml(f'x = 1\n{key} . "a" = 1\n', file=None)


@pytest.mark.parametrize(
    ("make", "says"),
    [(fifo, "not a regular file"), (text(f"x = {nested('[', ']')}\n"), "nested too deeply"),
     (text(b"[event]\nname = '\xff'\n"), "not UTF-8"), (directory_as_file, "is a directory")],
    ids=["FIFO", "nested", "not UTF-8", "directory"],
)
def test_event_files_are_read_the_same_way(tmp_path: Path, make: Maker, says: str) -> None:
    path = make(tmp_path)
    for args in (["event", "standings", path], ["serve", path, "--port", "0"], ["event", "pair", path],
                 ["event", "add-player", path, "Smith, Ann"], ["event", "result", path, "1", "1-0"]):
        done = subprocess.run([sys.executable, "-m", "tmanager", *map(str, args)], capture_output=True, text=True,
                              timeout=LIMIT, check=False, stdin=subprocess.DEVNULL)
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and says in done.stderr, done.stderr[:2000]


# --- what is not a regular file, named where tmanager reads or writes one ---------------------------------


def one_line(args: list[str | Path], status: int = 2) -> str:
    """Run tmanager with ``args``; it must end with ``status`` and one line on stderr, which is returned."""
    try:
        done = subprocess.run([sys.executable, "-m", "tmanager", *map(str, args)], capture_output=True, text=True,
                              timeout=LIMIT, check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{args[0]} hangs")
    lines = done.stderr.splitlines()
    assert done.returncode == status and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr[:2000]
    return lines[0]


NOT_FILES = [(os.mkfifo, "FIFO"), (link_to("/dev/zero"), "character device"), (Path.mkdir, "is a directory"),
             (loop, "symbolic links")]


@pytest.mark.parametrize(("node", "says"), NOT_FILES, ids=["FIFO", "/dev/zero", "directory", "symlink loop"])
def test_pair_says_what_its_input_is_with_status_5(tmp_path: Path, node: Callable[[Path], None], says: str) -> None:
    """docs/pairing.md: status 5 when the file cannot be read (a FIFO hung, /dev/zero filled the memory)."""
    node(tmp_path / "in.trf")
    assert says in one_line(["pair", "--dutch", tmp_path / "in.trf", "-p"], status=5)


@pytest.mark.parametrize(("node", "says"), NOT_FILES, ids=["FIFO", "/dev/zero", "directory", "symlink loop"])
def test_crosstable_says_what_its_file_is(tmp_path: Path, node: Callable[[Path], None], says: str) -> None:
    node(tmp_path / "games.pgn")
    line = one_line(["crosstable", tmp_path / "games.pgn"])
    assert says in line and "no such" not in line


def test_crosstable_of_a_huge_file_without_a_line_break_ends(tmp_path: Path) -> None:
    """100 MB and no line break: it was searched again as it was read, quadratically (over 30 s)."""
    path = tmp_path / "junk.pgn"
    path.write_bytes(b"x" * (100 << 20))
    done = subprocess.run([sys.executable, "-m", "tmanager", "crosstable", str(path)], capture_output=True,
                          text=True, timeout=LIMIT, check=False)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[:2000]


@pytest.mark.parametrize("node", [DEV_NULL, DEV_FULL, os.mkfifo], ids=["/dev/null", "/dev/full", "FIFO"])
def test_what_is_not_a_regular_file_is_never_replaced(tmp_path: Path, node: Callable[[Path], None]) -> None:
    """`new --force` and `pair -p` replaced device nodes (as root) with regular files; `pair` said 0."""
    target = tmp_path / "out"
    node(target)
    before, device = snapshot(tmp_path), os.stat(target).st_rdev
    new: list[str | Path] = ["new", target, "--force", "-e", "stockfish:A", "-e", "stockfish:B", "--nodes", "9"]
    assert "not a regular file" in one_line(new)
    trf = Path(__file__).parents[1] / "data" / "bbp" / "next-round.trf"
    assert "not a regular file" in one_line(["pair", "--dutch", trf, "-p", target], status=5)
    assert snapshot(tmp_path) == before and os.stat(target).st_rdev == device


@pytest.mark.parametrize("port", ["²", "9" * 5000, "", "0", "65536"])
def test_a_dask_address_without_a_port_number_is_one_line(tmp_path: Path, port: str) -> None:
    path = text(GOOD.replace('results = "+-="', 'results = ""'))(tmp_path)
    before = snapshot(tmp_path)
    line = one_line(["run", path, "--dask", f"tcp://127.0.0.1:{port}"])  # '²': a traceback of distributed's
    assert "is not a scheduler address (e.g. tcp://10.0.0.1:8786)" in line, line
    assert snapshot(tmp_path) == before


COUNTS = [
    ("run", ("--workers", "1000000"), "--workers"),
    ("run", ("--concurrency", "1000000000"), "--concurrency"),
    ("run", ("--workers", "100", "--concurrency", "100"), "--concurrency"),
    ("run", ("--workers", "0"), "--workers"),
    ("run", ("--dask-concurrency", "0"), "--dask-concurrency"),
    ("work", ("--games", "-1"), "--games"),
    ("work", ("--games", "0"), "--games"),
    ("work", ("--concurrency", "100000"), "--concurrency"),
]


@pytest.mark.parametrize(("command", "arguments", "option"), COUNTS, ids=[" ".join(c[1]) for c in COUNTS])
def test_counts_beyond_their_bounds_are_refused_before_anything_starts(
    tmp_path: Path, command: str, arguments: tuple[str, ...], option: str
) -> None:
    path = text(GOOD.replace('results = "+-="', 'results = ""'))(tmp_path)
    before = snapshot(tmp_path)
    line = one_line([command, path, *arguments])
    assert option in line and "must be from 1 to" in line, line
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("every", ["-1", "100000001", "9" * 30])
def test_a_report_interval_beyond_any_tourney_is_refused(tmp_path: Path, every: str) -> None:
    """--report-every had no upper bound: 10**29 was taken, and never reported."""
    path = text(GOOD.replace('results = "+-="', 'results = ""'))(tmp_path)
    before = snapshot(tmp_path)
    line = one_line(["run", path, "--report-every", every])
    fix = "give 0 at least" if every == "-1" else "give 100,000,000 at most: more is a typing slip"
    assert line == f"tmanager: --report-every: must be from 0 to 100,000,000, not {int(every):,} ({fix})", line
    assert snapshot(tmp_path) == before


CLOSED = "not an open file descriptor"


@pytest.mark.parametrize(("fd", "says"), [("1000000000000", CLOSED), ("-1", CLOSED), ("99999", CLOSED),
                                         ("a pipe's read end", "open for reading only")])
def test_an_announce_fd_that_cannot_be_written_is_refused_before_anything_starts(
    tmp_path: Path, fd: str, says: str
) -> None:
    """A descriptor too large for a C int ended the worker in a traceback at its first game;
    a closed or read-only one was taken, the worker playing on silent."""
    path = text(GOOD.replace('results = "+-="', 'results = ""'))(tmp_path)
    before = snapshot(tmp_path)
    read_end, write_end = os.pipe()
    fd = str(read_end) if fd == "a pipe's read end" else fd
    try:
        done = subprocess.run([sys.executable, "-m", "tmanager", "work", str(path), "--announce-fd", fd,
                               "--games", "1"], capture_output=True, text=True, timeout=LIMIT, check=False,
                              pass_fds=(read_end,))
    finally:
        os.close(read_end)
        os.close(write_end)
    assert done.returncode == 2 and done.stderr == (
        f"tmanager: --announce-fd: {fd} is {says} (give the write end of a pipe this process inherits)\n"), done.stderr
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("timeout", ["nan", "inf", "1e300", "0"])
def test_a_check_timeout_that_is_not_a_number_of_seconds_is_refused(tmp_path: Path, timeout: str) -> None:
    """nan failed the engine's every step ("no uciok in nan s": a configuration error told as the engine's);
    inf waited for ever for an engine that does not answer."""
    line = one_line(["check", "greedy-uci", "--timeout", timeout])
    assert line == f"tmanager: --timeout: must be a positive number of seconds, not {float(timeout):g} (such as 10)"


def test_dask_concurrency_without_dask_is_refused(tmp_path: Path) -> None:
    """--dask-concurrency without --dask was ignored: the tourney was played by local workers, not the cluster."""
    path = text(GOOD.replace('results = "+-="', 'results = ""'))(tmp_path)
    before = snapshot(tmp_path)
    line = one_line(["run", path, "--dask-concurrency", "2"])
    assert line == "tmanager: --dask-concurrency: only with --dask (give the scheduler's address, or --concurrency " \
        "for games at once here)", line
    assert snapshot(tmp_path) == before


# work --log-level without --log was ignored, every info line on stderr; with -q and --log F, F kept no info line
# (-q had set the level before the file's was asked).
@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--log-level", "error"], "only with --log (name the log file it sets the level of, or -q for warnings only "
         "on stderr)"),
        (["-q", "--log", "w.log", "--log-level", "info"], "and -q both set the log's level (give one: -q keeps "
         "warnings only, --log-level keeps the level you name and above)"),
    ],
    ids=["without --log", "beside -q"],
)
def test_a_log_level_that_cannot_be_honoured_is_refused(tmp_path: Path, options: list[str], says: str) -> None:
    path = text(GOOD.replace('results = "+-="', 'results = ""'))(tmp_path)
    before = snapshot(tmp_path)
    options = [str(tmp_path / o) if o == "w.log" else o for o in options]
    line = one_line(["work", path, *options, "--games", "1"])
    assert line == f"tmanager: --log-level: {says}", line
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("command", ["run", "work"])
@pytest.mark.parametrize(("log", "says"), [("nowhere/w.log", "no directory"), (".", "directory"), ("fifo", "FIFO")],
                         ids=["missing directory", "directory", "FIFO"])
def test_a_log_that_cannot_be_written_is_refused_before_any_worker_starts(
    tmp_path: Path, command: str, log: str, says: str,
) -> None:
    """A log in a missing directory failed in every worker, each with a traceback, until run gave up (status 1)."""
    path = text(GOOD.replace('results = "+-="', 'results = ""'))(tmp_path)
    os.mkfifo(tmp_path / "fifo")
    before = snapshot(tmp_path)
    line = one_line([command, path, "--log", tmp_path / log])
    assert line.startswith(f"tmanager: {tmp_path / log}: ") and says in line, line
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("arguments", [("--anchor-elo", "nan"), ("--anchor-elo", "inf"), ("--points", "nan,0.5,0"),
                                       ("--sprt", "nan", "5", "0.05", "0.05")], ids=["anchor nan", "anchor inf",
                                                                                       "points nan", "sprt nan"])
def test_crosstable_refuses_numbers_that_are_not(tmp_path: Path, arguments: tuple[str, ...]) -> None:
    path = tmp_path / "g.pgn"
    path.write_text('[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1-0\n\n')
    assert arguments[0] in one_line(["crosstable", path, "--anchor", "A", *arguments])


@pytest.mark.parametrize("name", ["Spring\x1b]0;owned\x07", "Evil\x1b[2J, Guy", "A\nB", "C\u2028D", "Smith\u202e0-1",
                                  "Lee\u2067x"],
                         ids=["OSC", "CSI", "newline", "line separator", "right-to-left override", "isolate"])
def test_names_that_would_act_on_the_terminal_are_refused(tmp_path: Path, name: str) -> None:
    path = tmp_path / "e.toml"
    assert "control character" in one_line(["event", "new", path, "--name", name])
    assert not path.exists()
    done = subprocess.run([sys.executable, "-m", "tmanager", "event", "new", str(path), "--name", "Spring"],
                          capture_output=True, text=True, check=True)
    before = path.read_bytes()
    assert "control character" in one_line(["event", "add-player", path, name])
    assert path.read_bytes() == before, done.stdout
    path.write_text(path.read_text().replace('name = "Spring"', f"name = {json.dumps(name)}"))  # by hand
    assert "control character" in one_line(["event", "standings", path])


@contextlib.contextmanager
def mounted(directory: Path, options: str) -> Iterator[None]:
    """A small tmpfs mounted with ``options`` on ``directory`` (made) while the block runs; the test is skipped
    where no file system can be mounted."""
    directory.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(directory)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a file system here ({done.stderr.strip()})")
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(directory)], check=False)


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a read-only file system needs root (CI runs as root)")
def test_an_epd_file_that_cannot_be_written_is_refused_before_any_game(tmp_path: Path) -> None:
    """It was found only when the first game was recorded: the worker then said "nothing was recorded"
    with the game in the PGN."""
    with mounted(tmp_path / "ro", "ro,size=64k"):
        path = setting('epd_out = "ro/final.epd"')(tmp_path)
        path.write_text(path.read_text().replace('results = "+-="', 'results = ""'))
        before = snapshot(tmp_path)
        for command, status in (("status", 0), ("work", 2)):  # status looks, and warns
            line = one_line([command, path], status=status)
            assert "tourney.epd_out" in line and "cannot write" in line, line
        assert snapshot(tmp_path) == before


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a read-only file system needs root (CI runs as root)")
def test_a_tourney_on_a_read_only_file_system_can_be_looked_at_but_not_played(tmp_path: Path) -> None:
    """An archived tourney (on a read-only file system, or in a directory that is): `status` refused it as `work`
    does, since its PGN cannot be written, though a look writes nothing. It reports, warning that the games left
    cannot be played there; `crosstable` reads the PGN; `work` refuses in one line; nothing changes."""
    directory = tmp_path / "archive"
    with mounted(directory, "size=1m"):
        path = fast_tourney(directory / "t.toml", players=2, cycles=2)
        assert start_worker(path, "--games", "2").wait(timeout=120) == 0
        subprocess.run(["mount", "-o", "remount,ro", str(directory)], check=True)
        before = snapshot(directory)
        line = one_line(["status", path], status=0)
        assert line.startswith("tmanager: warning: ") and "tourney.pgn" in line and "cannot write" in line, line
        looked = subprocess.run([sys.executable, "-m", "tmanager", "status", str(path)], capture_output=True,
                                text=True, timeout=LIMIT, check=False)
        assert "2 played" in looked.stdout and "R0" in looked.stdout, looked.stdout
        table = subprocess.run([sys.executable, "-m", "tmanager", "crosstable", str(path.with_suffix(".pgn"))],
                               capture_output=True, text=True, timeout=LIMIT, check=False)
        assert table.returncode == 0 and "R1" in table.stdout, table.stderr
        line = one_line(["work", path])
        assert "tourney.pgn" in line and "cannot write" in line, line
        assert snapshot(directory) == before


USAGE = [
    (["run", "t.toml", "--workers", "abc"],
     "tmanager run: --workers: invalid int value: 'abc' (see `tmanager run --help`)"),
    (["run"], "tmanager run: the following arguments are required: file (see `tmanager run --help`)"),
    (["run", "t.toml", "--bogus"], "tmanager: unrecognized arguments: --bogus (see `tmanager run --help`)"),
    (["frob"], "tmanager: COMMAND: invalid choice: 'frob' (choose from 'new', 'run', 'work', 'status', 'pair', "
     "'reset-stale', 'edit', 'clone', 'substitute', 'check', 'import-xboard', 'crosstable', 'event', 'serve', "
     "'fastchess')"),
    (["crosstable", "g.pgn", "--format", "zz"], "tmanager crosstable: --format: invalid choice: 'zz' (choose from "
     "'text', 'html', 'markdown', 'csv', 'json')"),
    (["event", "bye", "e.toml", "x", "--round", "1x"],
     "tmanager event bye: --round: invalid int value: '1x' (see `tmanager event bye --help`)"),
    # A word no verb takes pointed at the list of verbs (`tmanager event --help`), not at the verb's options.
    (["event", "missing", "e.toml", "--round", "3"],
     "tmanager: unrecognized arguments: --round 3 (see `tmanager event missing --help`)"),
]


@pytest.mark.parametrize(("arguments", "says"), USAGE, ids=[" ".join(u[0]) for u in USAGE])
def test_a_command_line_the_parser_refuses_is_one_line(tmp_path: Path, arguments: list[str], says: str) -> None:
    """argparse printed its whole usage, four lines and more, before the line that said what was wrong; the option
    is now named by its long name, as every other refusal names its field, and the line says where help is."""
    assert one_line([tmp_path / word if word.endswith((".toml", ".pgn")) else word for word in arguments]) \
        .replace(str(tmp_path) + "/", "") == says


@pytest.mark.parametrize(
    ("make", "says"),
    [(os.mkdir, "is a directory"), (os.mkfifo, "is not a regular file but a FIFO"),
     (lambda p: p.symlink_to("nowhere.toml"), "no such"), (lambda p: None, "no such")],
    ids=["directory", "FIFO", "link to nothing", "missing"],
)
@pytest.mark.parametrize("command", [["edit", "--set", "cycles=2"], ["reset-stale"], ["event", "pair"],
                                     ["event", "undo"]])  # fmt: skip
def test_a_change_refused_for_what_its_file_is_leaves_no_lock_file(
    tmp_path: Path, make: Callable[[Path], object], says: str, command: list[str]
) -> None:
    """A change of a tourney or event file took the file's lock before it read the file: refused, it left
    `d.toml.lock` beside a directory, a FIFO or a mistyped name, or `nowhere.toml.lock` beside a link's target."""
    path = tmp_path / "d.toml"
    make(path)
    verb, *options = command
    arguments: list[str | Path] = [verb, options[0], path, *options[1:]] if verb == "event" else [verb, path, *options]
    assert says in one_line(arguments)
    assert sorted(p.name for p in tmp_path.iterdir()) == (["d.toml"] if os.path.lexists(path) else [])


def test_a_pgn_that_is_an_engines_program_or_no_pgn_at_all_is_never_written(tmp_path: Path) -> None:
    """A PGN named by mistake lost its contents at the first game: cut back to nothing (or to its last blank line
    before a bracket) and given the game. An engine's program so named is refused where the file is read, as the
    tourney's own files are; another file that ends with no game begun, before the first game and by `status`."""
    script = tmp_path / "engine.py"
    script.write_bytes((Path(__file__).parents[2] / "engines" / "pyengine.py").read_bytes())
    path = fast_tourney(tmp_path / "t.toml", players=2, cycles=1, cmd=f"{script} --protocol uci",
                        extra='pgn = "engine.py"')
    before = snapshot(tmp_path)
    for command in ("status", "work", "edit"):
        refuse(command, path, Case("program", text(""), "tourney.pgn", "is the program of engine 'R0'"))
    assert snapshot(tmp_path) == before
    notes = tmp_path / "notes.txt"
    notes.write_text("[Event \"t\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\nto do\n\n[link](x)\n")
    path.write_text(path.read_text().replace('pgn = "engine.py"', 'pgn = "notes.txt"'))
    before = snapshot(tmp_path)
    shown = subprocess.run([sys.executable, "-m", "tmanager", "status", str(path)], capture_output=True, text=True,
                           timeout=LIMIT, check=False)
    assert shown.returncode == 0 and "warning: " in shown.stderr and "not a whole game" in shown.stderr
    done = subprocess.run([sys.executable, "-m", "tmanager", "work", str(path)], capture_output=True, text=True,
                          timeout=LIMIT, check=False)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "notes.txt: ends with 10 bytes that are not a whole game (from byte 46)" in done.stderr
    assert snapshot(tmp_path) == before
