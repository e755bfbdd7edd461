"""Keeping file-system paths and engine command lines out of everything the server sends.

The pages are built from tourney data only, but some of that data is free
text written by others: a PGN comment may quote an engine's start-up error
("No such file: '/home/…/engine'"). :class:`Redactor` knows every path and
command line the tourney file leads to and blanks them out of any text.
"""

from __future__ import annotations

import html
import json
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from tmanager.errors import TManagerError
from tmanager.events.journal import journal_dir
from tmanager.events.model import Event
from tmanager.tourney.engines import engine_dirs, find_definition
from tmanager.tourney.model import Tourney
from tmanager.web.auth import password_path

#: What a redacted path or command line is replaced with.
MASK = "…"
#: The PGN tags of what each engine calls itself (fastchess's ``EngineWhiteName``…): they name the programs that
#: play, as their command lines do, which a tourney of anonymous participants keeps to itself.
_ENGINE_TAGS = re.compile(r'^(\[Engine(?:White|Black)(?:Name|Author) ")(?:[^"\\\n]|\\.)*("\])', re.MULTILINE)


class Redactor:
    """Replaces each known secret (path or command line) in a text with :data:`MASK`."""

    def __init__(self, secrets: Iterable[str], *, engine_tags: bool = True) -> None:
        # Also as a page or a JSON answer writes them: a directory "o'brien & co" was in an error message as
        # "o&#x27;brien &amp; co", which the text alone did not match, and was shown.
        forms = {
            f for s in secrets if _is_secret(s) for f in (s, html.escape(s), json.dumps(s, ensure_ascii=False)[1:-1])
        }
        kept = sorted(forms, key=len, reverse=True)
        self.secrets = tuple(kept)
        self._pattern = re.compile("|".join(map(re.escape, kept))) if kept else None
        self.engine_tags = engine_tags  #: whether the engines' own names in a PGN's tags are masked too

    def __call__(self, text: str) -> str:
        if self._pattern is not None:
            text = self._pattern.sub(MASK, text)
        if self.engine_tags and "[Engine" in text:
            text = _ENGINE_TAGS.sub(rf"\g<1>{MASK}\g<2>", text)
        return text

    @classmethod
    def nothing(cls) -> Redactor:
        """A redactor that leaves texts alone (the owner asked to show the engines)."""
        return cls((), engine_tags=False)

    @classmethod
    def for_tourney(cls, tourney: Tourney) -> Redactor:
        """Every path and command line that ``tourney`` names or leads to."""
        return cls(tourney_secrets(tourney))

    @classmethod
    def for_event(cls, path: Path, event: Event) -> Redactor:
        """Every path and command line of the event file ``path``: its directory, journal, hooks, stylesheet."""
        return cls(event_secrets(path, event))


def tourney_secrets(tourney: Tourney) -> list[str]:
    """Paths and command lines of the tourney: its files, its engines and their options, its hooks."""
    s = tourney.settings
    found = [
        *_path_forms(tourney.path),
        *_path_forms(tourney.directory),
        *_path_forms(tourney.pgn_path),
        *(form for directory in engine_dirs(tourney.directory) for form in _path_forms(directory)),
        *_path_forms(Path(sys.executable)),
        *_path_forms(Path.cwd()),
        s.after_game,
        s.after_tourney,
        s.pgn,
        tourney.adjudication.syzygy,
        *tourney.adjudication.syzygy_paths,
    ]
    if tourney.openings is not None:
        found += [tourney.openings.file, *_path_forms(tourney.directory / tourney.openings.file)]
    for index, p in enumerate(tourney.participants):
        found += [p.cmd, p.dir, p.stderr, *p.args, *(str(v) for v in p.options.values())]
        try:
            spec = tourney.engine_spec(index)
            if p.engine:
                found += _path_forms(find_definition(p.engine, tourney.directory))
        except TManagerError:
            continue  # nothing resolved, so nothing more to hide
        found += [" ".join(spec.command), *spec.command, spec.workdir or "", spec.stderr_log or ""]
        found += [str(v) for v in spec.options.values()]
    return found


def event_secrets(path: Path, event: Event) -> list[str]:
    """Paths and command lines of an event: its file, directory, journal, password file, hooks and stylesheet."""
    found = [*_path_forms(path), *_path_forms(path.parent), *_path_forms(journal_dir(path))]
    found += [*_path_forms(password_path(path)), *_path_forms(Path(sys.executable)), *_path_forms(Path.cwd())]
    return [*found, event.stylesheet, *event.hooks.values()]


def _path_forms(path: Path) -> list[str]:
    """A path as written and as resolved (symbolic links followed)."""
    return [str(path), os.path.realpath(path)]


def _is_secret(text: str) -> bool:
    """Paths (they hold a separator) and command lines with arguments; not bare words, which
    may well be an engine's name too."""
    text = text.strip()
    return len(text) >= 4 and text != os.sep and (os.sep in text or " " in text)
