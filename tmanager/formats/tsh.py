"""tsh ``.t`` division files: one line per player, numbered from 1 in file order.

A line reads ``NAME RATING SCORE…; OPPONENT…; KEYWORD VALUE…; …``, e.g.::

    Chew, John   1850 400 450 350; 10 4 3; p12 1 2 2; board 1 1 3

John Chew, rated 1850, scored 400 against player 10 in round 1, 450 against
4 and 350 against 3; he went first in round 1 and second in rounds 2 and 3,
at boards 1, 1 and 3. Opponent 0 is a bye (its "score" is the spread
awarded); ``00`` is a score or opponent not assigned yet. A name ending in a
digit is written with a trailing comma, which is not part of the name.

The extensions ``p12``, ``board``, ``class``, ``off`` and ``team`` are read
into fields; any other (``lifeg``, ``password``, ``cume``…) is kept verbatim,
in order, so that a file read and written again loses nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tmanager.errors import ConfigError
from tmanager.files import atomic_write, read_text
from tmanager.pairing.scored import BYE, Scorecard

UNASSIGNED = "00"
#: ASCII digits only: ``\d`` also matches '٣' and other scripts' digits, which a .t file never means as numbers.
_INTEGER = re.compile(r"^-?[0-9]+$")
#: The most digits a number of a .t file has (ratings, scores, opponents, boards); more cannot be meant, and
#: ``int`` refuses some 4,300 digits with a traceback.
_MOST_DIGITS = 9
_KEYWORD = re.compile(r"^[A-Za-z_]\w*$")
#: A name ending like this is written with one more comma (tsh's escape for names ending in a digit).
_ESCAPED_END = re.compile(r"\d,*$")


@dataclass(frozen=True, slots=True)
class TPlayer:
    """One line of a ``.t`` file: the name, the record and the other extensions.

    ``card`` holds the rating, scores, opponents, ``p12`` and ``off``;
    ``card.id`` is the player's number (the line number among players).
    """

    name: str
    card: Scorecard
    boards: tuple[int, ...] = ()
    player_class: str | None = None
    team: str | None = None
    extra: tuple[tuple[str, str], ...] = ()


def _number(token: str, *, where: str, file: str | Path | None) -> int | None:
    if token == UNASSIGNED:
        return None
    if not _INTEGER.match(token):
        raise ConfigError(f"{token!r} is not a number", file=file, field=where, hint="use digits, or 00 for unassigned")
    if len(token.lstrip("-")) > _MOST_DIGITS:
        raise ConfigError(
            f"{token[:12]}… has {len(token.lstrip('-'))} digits", file=file, field=where, hint=f"at most {_MOST_DIGITS}"
        )
    return int(token)


def _integers(text: str, *, where: str, file: str | Path | None) -> tuple[int, ...]:
    values = []
    for token in text.split():
        value = _number(token, where=where, file=file)
        if value is None:
            raise ConfigError("00 is not allowed here", file=file, field=where, hint="give a number")
        values.append(value)
    return tuple(values)


def _word(text: str, *, where: str, file: str | Path | None) -> str:
    words = text.split()
    if len(words) != 1:
        raise ConfigError(f"needs one word, not {text.strip()!r}", file=file, field=where, hint="remove the spaces")
    return words[0]


def parse_line(line: str, number: int, *, file: str | Path | None = None) -> TPlayer:
    """Parse the line of player ``number``; a :class:`ConfigError` names the line and the fault."""
    where = f"line of player {number}"
    segments = [s.strip() for s in line.split(";")]
    tokens = segments[0].split()
    first_number = len(tokens)
    while first_number > 0 and (tokens[first_number - 1] == UNASSIGNED or _INTEGER.match(tokens[first_number - 1])):
        first_number -= 1
    name = " ".join(tokens[:first_number])
    if not name or first_number == len(tokens):
        raise ConfigError(
            "needs a name followed by a rating", file=file, field=where, hint="write it as 'Surname, Given 1500'"
        )
    if name.endswith(",") and _ESCAPED_END.search(name[:-1]):
        name = name[:-1]
    rating = _number(tokens[first_number], where=f"{where}: rating", file=file)
    if rating is None:
        raise ConfigError("the rating cannot be 00", file=file, field=where, hint="give a rating, 0 if unrated")
    scores = tuple(_number(t, where=f"{where}: scores", file=file) for t in tokens[first_number + 1 :])
    rest = segments[1:]
    opponents: tuple[int | None, ...] = ()
    if rest and (not rest[0] or not _KEYWORD.match(rest[0].split()[0])):
        opponents = tuple(_number(t, where=f"{where}: opponents", file=file) for t in rest[0].split())
        rest = rest[1:]
    fields: dict[str, str] = {}
    extra = []
    for segment in rest:
        if not segment:
            continue
        keyword, _, value = segment.partition(" ")
        if not _KEYWORD.match(keyword):
            raise ConfigError(
                f"{segment!r} does not start with a keyword",
                file=file,
                field=where,
                hint="extensions read 'keyword values', e.g. 'p12 1 2'",
            )
        if keyword in fields:
            raise ConfigError(f"{keyword} is given twice", file=file, field=where, hint="keep one")
        if keyword in ("p12", "board", "class", "off", "team"):
            fields[keyword] = value
        else:
            extra.append((keyword, " ".join(value.split())))
    p12 = _integers(fields.get("p12", ""), where=f"{where}: p12", file=file)
    if any(code not in range(5) for code in p12):
        raise ConfigError(
            "p12 codes are 0 to 4",
            file=file,
            field=f"{where}: p12",
            hint="1 first, 2 second, 0 neither, 3 to draw, 4 unknown",
        )
    off = None
    if "off" in fields:
        values = _integers(fields["off"], where=f"{where}: off", file=file)
        if len(values) != 1:
            raise ConfigError(
                "off takes one number",
                file=file,
                field=f"{where}: off",
                hint="the spread per missed game, e.g. 'off -50'",
            )
        off = values[0]
    return TPlayer(
        name=name,
        card=Scorecard(id=number, rating=rating, opponents=opponents, scores=scores, p12=p12, off=off),
        boards=_integers(fields.get("board", ""), where=f"{where}: board", file=file),
        player_class=_word(fields["class"], where=f"{where}: class", file=file) if "class" in fields else None,
        team=_word(fields["team"], where=f"{where}: team", file=file) if "team" in fields else None,
        extra=tuple(extra),
    )


def loads(text: str, *, file: str | Path | None = None) -> list[TPlayer]:
    """Parse a ``.t`` file (blank lines ignored) and check that the opponents agree."""
    players: list[TPlayer] = []
    for line in text.splitlines():
        if line.strip():
            players.append(parse_line(line, len(players) + 1, file=file))
    check(players, file=file)
    return players


def check(players: Sequence[TPlayer], *, file: str | Path | None = None) -> None:
    """Every opponent exists, is not the player, and lists the player back in that round; every score has its
    round's opponent."""
    count = len(players)
    for player in players:
        card = player.card
        # A score with no opponent was dropped without a word (the event has no game for it; export-t wrote the
        # line back without it), or was a column shifted by a slip.
        unpaired = [i for i, score in enumerate(card.scores) if score is not None and at(card.opponents, i) is None]
        if unpaired:
            raise ConfigError(
                f"a score ({card.scores[unpaired[0]]}) but no opponent",
                file=file,
                field=f"line of player {card.id}: round {unpaired[0] + 1}",
                hint="give the opponent, 0 for a bye, or take the score out",
            )
        for index, opponent in enumerate(card.opponents):
            where = f"line of player {card.id}: round {index + 1}"
            if opponent is None or opponent == BYE:
                continue
            if not 1 <= opponent <= count or opponent == card.id:
                raise ConfigError(
                    f"opponent {opponent} is not another player of the file",
                    file=file,
                    field=where,
                    hint=f"use 1..{count}, or 0 for a bye",
                )
            # Paired on one line alone (00 or no column on the other) was taken, and refused later naming the
            # event file to be written instead of this one.
            theirs = at(players[opponent - 1].card.opponents, index)
            if theirs != card.id:
                has = "no opponent" if theirs is None else f"opponent {theirs}"
                raise ConfigError(
                    f"player {opponent} has {has} in that round, not {card.id}",
                    file=file,
                    field=where,
                    hint="make the two lines agree",
                )


def at(values: Sequence[int | None], index: int) -> int | None:
    """The value of round ``index`` + 1, None when not given (the record is shorter, or it is ``00``)."""
    return values[index] if index < len(values) else None


def _numbers(values: Sequence[int | None]) -> str:
    return " ".join(UNASSIGNED if v is None else str(v) for v in values)


def format_line(player: TPlayer) -> str:
    """The ``.t`` line of one player (the inverse of :func:`parse_line`)."""
    card = player.card
    name = f"{player.name}," if _ESCAPED_END.search(player.name) else player.name
    head = " ".join([name, str(card.rating), *([_numbers(card.scores)] if card.scores else [])])
    segments = [head]
    extensions = [
        ("p12", _numbers(card.p12)),
        ("board", _numbers(player.boards)),
        ("class", player.player_class or ""),
        ("off", "" if card.off is None else str(card.off)),
        ("team", player.team or ""),
    ]
    if card.opponents or any(value for _, value in extensions) or player.extra:
        segments.append(_numbers(card.opponents))
    segments.extend(f"{keyword} {value}" for keyword, value in extensions if value)
    segments.extend(f"{keyword} {value}".rstrip() for keyword, value in player.extra)
    return "; ".join(segments)


def dumps(players: Sequence[TPlayer]) -> str:
    """A whole ``.t`` file, players in number order."""
    for index, player in enumerate(players):
        if player.card.id != index + 1:
            raise ConfigError(
                f"player {player.card.id} is listed in place {index + 1}", hint="number players 1, 2, 3… in file order"
            )
    return "".join(format_line(p) + "\n" for p in players)


def read(path: Path) -> list[TPlayer]:
    """Read a ``.t`` file."""
    return loads(read_text(path, kind=".t", create=None), file=path)


def write(path: Path, players: Sequence[TPlayer]) -> None:
    """Write a ``.t`` file atomically."""
    atomic_write(path, dumps(players))
