"""What a tourney may hold, checked on reading and before every write: one line naming the field at fault.

:func:`validate` checks everything that can be checked without starting an
engine (the schedule, the results, the settings, the participants, the SPRT,
the paths written); after a transaction that changed only the owned tail, only
what that can break. :func:`check_pgn` checks that no recorded game went
missing from the PGN; :func:`games_elsewhere` finds a file whose games were
never in its PGN (a copy pointed at a new one).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from typing import TYPE_CHECKING

from tmanager.core.results import Result
from tmanager.core.schedule import Schedule
from tmanager.core.spsa import Opponent, TuneSettings, TuneState
from tmanager.core.stats import SprtSettings
from tmanager.errors import ConfigError, StateError
from tmanager.files import check_access, expect_directory, expect_file, file_size, lock_path
from tmanager.formats import pgn
from tmanager.formats.pgn import COMMENT_FIELDS
from tmanager.tomlmap import check_least
from tmanager.tourney.paths import check_apart, check_directories, check_output, journal_path
from tmanager.tourney.resolution import resolve_all
from tmanager.tourney.settings import SWISS_TYPES, TourneyType
from tmanager.tourney.tuning import values_path
from tmanager.tourney.variants import check_variant

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from pathlib import Path

    from tmanager.core.timecontrol import TimeControl
    from tmanager.tourney.engines import EngineSpec
    from tmanager.tourney.model import Tourney

#: The most games a tourney may schedule: the results string is kept in memory (and in the
#: file) at its full length, one character a game.
MAX_GAMES = 100_000_000

#: Durations that must be more than zero: a zero lease or timeout would end every game at once.
POSITIVE_SETTINGS = ("handshake_timeout", "move_timeout", "lease")
#: Durations that may be left out (None) but never be zero or less.
OPTIONAL_POSITIVE_SETTINGS = ("ready_timeout", "ping_timeout")

#: Counts of moves in [adjudication], each at least one, and how their rule is turned off instead.
ADJUDICATION_COUNTS = {
    "resign_moves": "leave resign_score out to turn the resign rule off",
    "draw_moves": "leave draw_score out to turn the draw rule off",
    "max_moves": "leave it out for no move limit",
}

#: The PGN standard's limit on a string token such as a tag value (section 7).
MAX_TAG_LENGTH = 255


def validate(tourney: Tourney, *, settings: bool = True, engines: bool = False, outputs: bool = True) -> None:
    """Check everything that can be checked without starting an engine; with ``settings``
    false only what a change of the owned tail (results, claims, pairings) can break; with ``engines``
    (before a write of the settings), also what the engine classes say of the limits (:func:`check_limits`);
    with ``outputs`` false (a file read), not whether the outputs may be written (:func:`check_outputs`)."""
    if settings:  # first: the schedule is made of them (a file's were checked as it was read, new's were not)
        check_least(tourney.settings, "tourney", tourney.path)
        if tourney.openings is not None:
            check_least(tourney.openings, "openings", tourney.path)
    if settings and tourney.spsa is not None:  # first: a tune's iterations make the schedule
        _check_spsa(tourney, tourney.spsa)
    _check_progress(tourney)
    if not settings:
        return
    _check_settings(tourney)
    _check_participants(tourney)
    if tourney.sprt is not None:
        _check_sprt(tourney, tourney.sprt)
    resolved = resolve_all(tourney)
    _check_paths(tourney, [spec for spec, _limits in resolved])
    if outputs:
        check_outputs(tourney)
    if engines:
        check_limits(tourney, resolved)


def check_limits(tourney: Tourney, resolved: Sequence[tuple[EngineSpec, TimeControl]]) -> None:
    """Every participant's engine can search with its limits at all (an XBoard engine's node limit stands
    alone, and needs ``nps``): otherwise it would lose every game as a fault. Asked of the engine classes,
    which `status` and every other reader do without (they load python-chess): checked before the settings
    are written and before games are played. ``resolved``: :func:`~tmanager.tourney.resolution.resolve_all`."""
    from tmanager.tourney.engine import client_class

    for index, (spec, limits) in enumerate(resolved):
        problem = client_class(spec).limit_problem(spec, limits)
        if problem is not None:
            own = tourney.participants[index].nodes is not None
            raise ConfigError(
                f"{spec.protocol} engine {spec.name!r} {problem[0]}",
                file=tourney.path, field=f"participants[{index}].nodes" if own else "tourney.nodes", hint=problem[1],
            )


def _check_progress(tourney: Tourney) -> None:
    """The schedule can be made and is not too long, and the results, claims and pairings fit it."""
    schedule = tourney.schedule()
    total = schedule.total_games
    if total > MAX_GAMES:
        raise _too_many_games(tourney, schedule)
    if len(tourney.results) > total:
        raise ConfigError(
            f"results string has {len(tourney.results)} games but the schedule only {total}",
            file=tourney.path,
            field="progress.results",
            hint=f"remove the extra characters, or raise {'spsa.iterations' if tourney.spsa else 'cycles'}",
        )
    beyond = next((number for number in sorted(tourney.claims) if number >= total), None)
    if beyond is not None:  # a hand edit: no worker plays it, and reset-stale would not release it
        raise ConfigError(
            f"no game {beyond} in the schedule of {total} games (numbered from 0)",
            file=tourney.path, field=f"claims.{beyond}", hint="remove the section",
        )
    _check_pairings(tourney)


def _check_settings(tourney: Tourney) -> None:
    """``[tourney]``'s values that its types alone do not check."""
    s, path = tourney.settings, tourney.path
    try:
        check_variant(s.variant)
    except ConfigError as exc:
        raise exc.located(file=path) from None
    unknown = next((f for f in s.pgn_comment_fields if f not in COMMENT_FIELDS), None)
    if unknown is not None:
        raise ConfigError(
            f"unknown comment field {unknown!r}",
            file=path,
            field="tourney.pgn_comment_fields",
            hint=f"choose among {', '.join(COMMENT_FIELDS)}",
        )
    _check_type_fields(tourney)
    if not s.name.strip():  # the title of status, the pages and the PGN's Event: a blank says nothing
        raise ConfigError("is empty", file=path, field="tourney.name", hint="give the tourney a name, or leave it out")
    for key in ("name", "event", "site"):
        check_tag_value(getattr(s, key), file=path, field=f"tourney.{key}")
    for key in POSITIVE_SETTINGS + OPTIONAL_POSITIVE_SETTINGS:
        value = getattr(s, key)
        if value is not None and value <= 0:
            raise ConfigError(f"must be positive, not {value:g}", file=path, field=f"tourney.{key}")
    for key in ("wait", "late_move_wait"):
        if getattr(s, key) < 0:
            raise ConfigError(f"must not be negative, not {getattr(s, key):g}", file=path, field=f"tourney.{key}")
    for key, off in ADJUDICATION_COUNTS.items():
        count = getattr(tourney.adjudication, key)
        if count is not None and count < 1:  # 0 ended every game before its first move
            raise ConfigError(f"must be at least 1, not {count}", file=path, field=f"adjudication.{key}", hint=off)
    for pattern in s.pgn_match_lines:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ConfigError(
                f"{pattern!r} is not a regular expression ({exc})", file=path, field="tourney.pgn_match_lines"
            ) from None


def _check_type_fields(tourney: Tourney) -> None:
    """Seeds and Swiss rounds only where the type has them: elsewhere they would be kept and play no part (an
    `edit --set gauntlet_seeds=2` of a round robin said 'updated'), as `new` refuses --seeds and --rounds."""
    s, path = tourney.settings, tourney.path
    if s.gauntlet_seeds != 1 and s.type is not TourneyType.GAUNTLET:
        raise ConfigError(f"only a gauntlet has seeds, not a {s.type.value}", file=path, field="tourney.gauntlet_seeds",
                          hint='set type = "gauntlet", or gauntlet_seeds = 1')
    if s.swiss_rounds and s.type not in SWISS_TYPES:
        raise ConfigError(f"only a Swiss tourney has rounds, not a {s.type.value}", file=path,
                          field="tourney.swiss_rounds", hint='set type = "swiss", or swiss_rounds = 0')


def _check_participants(tourney: Tourney) -> None:
    """Every participant has a name of its own that a PGN tag can hold."""
    for i, p in enumerate(tourney.participants):
        if not p.name.strip():
            raise ConfigError(
                "is empty", file=tourney.path, field=f"participants[{i}].name", hint="give every participant a name"
            )
        check_tag_value(p.name, file=tourney.path, field=f"participants[{i}].name")
    duplicate = next((n for n, count in Counter(p.name for p in tourney.participants).items() if count > 1), None)
    if duplicate:
        raise ConfigError(f"two participants are named {duplicate!r}", file=tourney.path, field="participants",
                          hint="give each participant a name of its own")


def _too_many_games(tourney: Tourney, schedule: Schedule) -> ConfigError:
    """The error for a schedule beyond :data:`MAX_GAMES`, blaming the first setting that alone could fix it."""
    per_cycle = schedule.games_per_cycle
    pairings_per_cycle = per_cycle // schedule.games_per_pairing
    if tourney.spsa is not None:  # its cycles stay 1: the iterations make its length
        per_step = tourney.spsa.opponent.games_per_step
        field, hint = "spsa.iterations", f"at most {MAX_GAMES // per_step:,} iterations of {per_step} games"
    elif per_cycle <= MAX_GAMES:
        field, hint = "tourney.cycles", f"at most {MAX_GAMES // per_cycle:,} cycles of {per_cycle:,} games"
    elif pairings_per_cycle <= MAX_GAMES:
        field, hint = "tourney.games_per_pairing", f"at most {MAX_GAMES // pairings_per_cycle:,} games per pairing"
    else:
        field, hint = "participants", "fewer participants, or a Swiss"
    return ConfigError(
        f"{schedule.total_games:,} games scheduled, more than the {MAX_GAMES:,} a tourney may hold",
        file=tourney.path,
        field=field,
        hint=hint,
    )


def _check_pairings(tourney: Tourney) -> None:
    """Swiss pairings name existing participants, each at most once a round, on every board."""
    n = len(tourney.participants)
    if tourney.swiss and tourney.settings.type not in SWISS_TYPES:
        raise ConfigError(
            f"Swiss pairings in a tourney of type {tourney.settings.type.value!r}", file=tourney.path, field="swiss",
            hint="remove [swiss], or set type back to \"swiss\"",
        )
    total = tourney.schedule().total_rounds
    if len(tourney.swiss) > total:  # a round past the schedule's end has no games, and gave its bye points
        raise ConfigError(
            f"{len(tourney.swiss)} rounds are paired, but the schedule has {total} (swiss_rounds × cycles)",
            file=tourney.path, field=f"swiss.rounds[{total}]", hint="remove the rounds past the last, or raise cycles",
        )
    for r, boards in enumerate(tourney.swiss):
        seated = [p for board in boards for p in board]
        stranger = next((p for p in seated if not 0 <= p < n), None)
        if stranger is not None:
            problem = f"participant {stranger} does not exist (there are {n}, numbered from 0)"
        elif len(set(seated)) < len(seated):
            problem = "a participant plays twice in the round"
        elif len(boards) != n // 2:
            problem = f"{len(boards)} boards, not {n // 2}"
        else:
            continue
        raise ConfigError(
            problem, file=tourney.path, field=f"swiss.rounds[{r}]", hint="remove the round to pair it again"
        )


def check_pairings_kept(tourney: Tourney, recorded: object) -> None:
    """Refuse a Swiss round whose pairings were changed or removed by hand while it has results: they would be
    credited to other participants (and the next round paired on them), as a participant list changed by hand
    would. ``recorded``: the ``[swiss]`` section the results were recorded with, as its TOML was read."""
    before = recorded.get("rounds", []) if isinstance(recorded, dict) else []
    schedule = tourney.schedule()
    for r, boards in enumerate(before if isinstance(before, list) else []):
        now = [list(board) for board in tourney.swiss[r]] if r < len(tourney.swiss) else None
        games = schedule.games_of_round(r)
        if now != boards and tourney.results[games.start : games.stop].strip(" "):
            raise ConfigError(
                f"round {r + 1} has results, which were recorded with its pairings {boards}, not "
                f"{'none' if now is None else now}",
                file=tourney.path, field=f"swiss.rounds[{r}]",
                hint="put the pairings back; to pair the round again, set its results back to spaces as well",
            )


def check_outputs(tourney: Tourney) -> None:
    """The PGN, the EPD output and the engines' stderr logs can be written: before games are played. Not when a
    file is read: a look at a tourney writes nothing, and an archived one (read-only) must be readable. What
    they are was checked as the tourney was read (:func:`validate`): this asks only for the permissions."""
    for path, field, _book in _outputs(tourney):
        check_access(path, file=tourney.path, field=field)
    pgn.check_appendable(tourney.pgn_path)


def _outputs(tourney: Tourney) -> Iterator[tuple[Path, str, Path | None]]:
    """The files a tourney's games append to: each path, its field, and the opening book it must not be (none
    for the engines' logs)."""
    directory = tourney.directory
    book = directory / tourney.openings.file if tourney.openings is not None else None
    yield tourney.pgn_path, "tourney.pgn", book
    if tourney.settings.epd_out:
        yield directory / tourney.settings.epd_out, "tourney.epd_out", book
    for i, p in enumerate(tourney.participants):
        if p.stderr:
            yield directory / p.stderr, f"participants[{i}].stderr", None


def _check_paths(tourney: Tourney, engines: Sequence[EngineSpec]) -> None:
    """The PGN, the EPD output and the engines' stderr logs are files (or nothing) that could be written, and
    are not the opening book, tmanager's own files nor an engine's program (a game appended to a script left an
    engine that no longer ran); a tune's values file is a file or nothing; the tablebases are there (see
    :mod:`tmanager.tourney.paths`); the directories of the games in progress and of the engine logs, if there,
    are directories."""
    for path, field, book in _outputs(tourney):
        check_output(path, tourney=tourney.path, field=field, book=book)
    own = {journal_path(tourney.path): "the tourney's journal", lock_path(tourney.path): "the tourney's lock file"}
    for spec in engines:
        program = spec.program_file()
        if program is not None:
            own.setdefault(tourney.directory / program, f"the program of engine {spec.name!r}")
    check_apart([(path, field) for path, field, _book in _outputs(tourney)], own=own, tourney=tourney.path)
    for kept, holds in ((tourney.live_dir, "the games in progress"), (tourney.engine_logs_dir, "engine logs")):
        expect_directory(kept, hint=f"move it away: tmanager keeps {holds} of {tourney.path.name} there")
    if tourney.spsa is not None:  # written as the tune ends: a FIFO there would be found only then
        expect_file(values_path(tourney),
                    hint=f"move it away: tmanager writes the values {tourney.path.name} tunes there")
    check_directories(
        tourney.adjudication.syzygy_paths, base=tourney.directory, tourney=tourney.path, field="adjudication.syzygy"
    )


def _check_sprt(tourney: Tourney, sprt: SprtSettings) -> None:
    try:
        sprt.check()
    except ConfigError as exc:
        raise exc.relocated(file=tourney.path, field=f"sprt.{exc.field}") from None
    if len(tourney.participants) != 2:
        raise ConfigError(
            f"an SPRT needs exactly 2 participants, not {len(tourney.participants)}",
            file=tourney.path,
            field="sprt",
            hint="the first participant is tested against the second; remove [sprt] for a larger field",
        )
    if tourney.settings.type in SWISS_TYPES:
        raise ConfigError(
            "an SPRT needs a round robin, not a Swiss",
            file=tourney.path,
            field="sprt",
            hint='set tourney.type = "round-robin"',
        )


def _check_spsa(tourney: Tourney, spsa: TuneSettings) -> None:
    """A tune is well defined, and its tourney is what it plays: one colour-reversed pair a cycle of two
    participants, the first the engine under tuning, the second the same at θ − cΔ or a fixed base."""
    try:
        spsa.check()
    except ConfigError as exc:
        raise exc.relocated(file=tourney.path, field=f"spsa.{exc.field}") from None
    s = tourney.settings
    shape = (
        ("participants", len(tourney.participants) == 2, "a tune needs exactly 2 participants",
         "the engine twice, or the engine then its base"),
        ("tourney.type", s.type is TourneyType.ROUND_ROBIN, "a tune is a round robin", 'type = "round-robin"'),
        ("tourney.games_per_pairing", s.games_per_pairing == 2, "a tune plays pairs", "games_per_pairing = 2"),
        ("tourney.cycles", s.cycles == 1, "a tune's length is spsa.iterations", "cycles = 1"),
        ("tourney.noswap", not s.noswap, "each pair of a tune reverses colours", "noswap = false"),
        ("tourney.reverse", not s.reverse, "a tune plays the schedule's own colours", "reverse = false"),
        ("sprt", tourney.sprt is None, "a tune has no SPRT", "remove [sprt]"),
    )
    for field, holds, problem, fix in shape:
        if not holds:
            raise ConfigError(problem, file=tourney.path, field=field, hint=fix)
    _check_tuned_options(tourney, spsa)
    if tourney.tuning is not None:
        _check_tuning(tourney, spsa, tourney.tuning)


def _check_tuning(tourney: Tourney, spsa: TuneSettings, state: TuneState) -> None:
    """The tune's state (``[tuning]``, tmanager's, or edited by hand) fits its settings: a θ (current, of a pair
    begun, in the history) for every parameter, no more pairs applied than the tune has, whole steps kept."""
    n = len(spsa.params)
    thetas = (("tuning.theta", (state.theta,)), ("tuning.begun", tuple(state.begun.values())),
              ("tuning.history", tuple(theta for _, theta in state.history)))
    for field, values in thetas:
        wrong = next((theta for theta in values if len(theta) != n), None)
        if wrong is not None:  # the history's was shown by status, which died of an IndexError
            raise ConfigError(
                f"holds {len(wrong)} values for {n} parameters", file=tourney.path, field=field,
                hint="the parameters changed under way: put them back, or start the tune afresh",
            )
    if state.pairs > spsa.iterations:  # θ would move no more, silently
        raise ConfigError(
            f"{state.pairs} pairs applied, more than the tune's {spsa.iterations} iterations",
            file=tourney.path, field="tuning.pairs", hint="tmanager writes it: put it back as it was",
        )
    if any(len(v) != 4 * n for v in state.drawn.values()):
        raise ConfigError(
            f"a pair's step must hold 4 values for each of the {n} parameters",
            file=tourney.path, field="tuning.drawn", hint="tmanager writes it: put it back as it was",
        )


def _check_tuned_options(tourney: Tourney, spsa: TuneSettings) -> None:
    """No tuned participant has an option of its own that the tune sets in every game (in any case, as the engine
    takes it): its value would never be played, silently."""
    tuned = {param.name.casefold(): param.name for param in spsa.params}
    playing = tourney.participants if spsa.opponent is Opponent.MIRROR else tourney.participants[:1]
    for index, participant in enumerate(playing):
        given = next((name for name in participant.options if name.casefold() in tuned), None)
        if given is not None:
            raise ConfigError(
                f"{given}: the tune sets it in every game (spsa.parameters: {tuned[given.casefold()]}), so this value"
                " is never played",
                file=tourney.path, field=f"participants[{index}].options",
                hint="leave it out: the tune starts from the parameter's start",
            )


def check_tag_value(text: str, *, file: Path, field: str) -> None:
    """Refuse text that cannot stand as it is in a PGN tag value (names, event, site): control
    characters and line breaks end the tag (a name could add a ``[Result]`` tag of its own),
    quotes and backslashes need escapes that many PGN readers get wrong, and the standard
    allows at most 255 characters."""
    hint = "names and tags go into the PGN: printable characters, no quote or backslash, at most 255"
    if len(text) > MAX_TAG_LENGTH:
        raise ConfigError(
            f"{len(text):,} characters, more than the {MAX_TAG_LENGTH} of a PGN tag", file=file, field=field, hint=hint
        )
    bad = pgn.UNSAFE_IN_TAG.search(text)
    if bad is None:
        return
    char = bad.group()
    what = {'"': "a quote", "\\": "a backslash"}.get(char, f"a control character (U+{ord(char):04X})")
    raise ConfigError(f"holds {what}: {text!r}", file=file, field=field, hint=hint)


def check_pgn(tourney: Tourney, *, contents: bool = True) -> None:
    """:class:`StateError` when recorded games are missing from the PGN: it is shorter than the last game
    recorded left it (cut by hand, or an older copy put back) or, with ``contents``, the bytes before that
    mark are not those the last game ended with (replaced by another, longer file), and finished games have
    no current game there. One ``stat`` and (with ``contents``) one small read when all is well. When every
    finished game is still there (superseded games removed by hand, the missing ones set back to be played
    again, games marked superseded or corrected), the PGN as it is now is the mark from now on.
    """
    mark = tourney.pgn_mark
    if mark is None or mark.path != str(tourney.pgn_path):  # no game recorded yet, or in another file
        return
    size = file_size(tourney.pgn_path)
    if size >= mark.size and not (
        contents and mark.fingerprint
        and pgn.fingerprint_at(tourney.pgn_path, mark.size, like=mark.fingerprint) != mark.fingerprint
    ):
        return
    found = pgn.current_games(tourney.pgn_path)
    names = [p.name for p in tourney.participants]
    # A game of this number is this tourney's game only with its players and result: another tourney's PGN of as
    # many games (a test of the same engines run again, whose PGN was copied over this one) has those numbers too.
    missing = [
        game.number for game, char in tourney.finished_games()
        if pgn.TaggedGame(names[game.white], names[game.black], Result.from_xboard(char).pgn)
        not in found.get(game.number, ())
    ]
    if missing:
        shown = ", ".join(map(str, missing[:10])) + (", …" if len(missing) > 10 else "")
        where = (
            f"it has {size:,} bytes where the last game recorded left {mark.size:,}" if size < mark.size
            else f"its bytes before {mark.size:,} are not those the last game recorded ended with"
        )
        raise StateError(
            f"{tourney.pgn_path}: {len(missing)} recorded game(s) missing ({shown}): {where}, so it was cut or "
            f"replaced (put it back from a backup, or set those results back to a space in {tourney.path.name} "
            "to play the games again)"
        )
    fingerprint = pgn.last_game_fingerprint(tourney.pgn_path, size)
    tourney.pgn_mark = dataclasses.replace(mark, size=size, fingerprint=fingerprint)


def games_elsewhere(tourney: Tourney) -> str | None:
    """What to say when the results hold finished games whose games are not in the PGN: a copy made with ``cp``
    and pointed at a new PGN, whose games are in the original's. Before this file's first game, told by the
    PGN (which no game of this file went into: no mark in the journal) missing or empty, with one ``stat``;
    after, by the mark, which counts them as its first game went in (:attr:`PgnMark.elsewhere`), until they
    are set back to be played here. None when all is as it should be."""
    mark = tourney.pgn_mark
    if mark is not None:  # games were recorded here: check_pgn watches the PGN
        count = mark.elsewhere if mark.path == str(tourney.pgn_path) else 0
    else:
        count = 0 if file_size(tourney.pgn_path) else tourney.finished_count
    if not count:
        return None
    return (
        f"{tourney.pgn_path}: holds none of the {count} game(s) the results say were played before its first "
        f"game here: their games are in another PGN (a copy of another tourney's file? `tmanager clone` makes "
        f"copies; set the results back to spaces to play the games again here)"
    )
