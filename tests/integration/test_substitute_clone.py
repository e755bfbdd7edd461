"""Substitute (upgrade, replace), clone, edit and import-xboard, also while workers run."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import chess.pgn

from tests.conftest import ROOT, assert_consistent, pgn_games, run_cli
from tests.integration.test_workers import claims_of, slow_tourney, start_worker, wait_for
from tmanager.tourney import store
from tmanager.tourney.editing import games_of


def test_upgrade_mid_run_keeps_the_name_everywhere(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "u.toml", players=3, games=2, delay=0.02, max_moves=15)
    assert run_cli("edit", path, "--set", "participants.E2.time_margin=0.5").returncode == 0
    worker = start_worker(path)
    wait_for(lambda: sum(c in "+-=" for c in store.read(path).results) >= 2)
    done = run_cli("substitute", path, "E2", "random-uci", "--upgrade", "--option", "Hash=8")
    assert done.returncode == 0, done.stderr
    assert "E2 now plays with random-uci in all future games" in done.stdout
    assert worker.wait(timeout=120) == 0  # the running worker picked the change up
    games = assert_consistent(path)  # the PGN names the scheduled participants, E2 included
    tourney = store.read(path)
    e2 = tourney.participants[2]
    assert (e2.name, e2.engine, e2.cmd, dict(e2.options)) == ("E2", "random-uci", "", {"Hash": 8})
    assert e2.time_margin == 0.5  # the slot's conditions stay
    # One player per slot in the PGN's cross-table, as in status and the dashboard.
    table = run_cli("crosstable", tourney.pgn_path, "--format", "json")
    assert table.returncode == 0, table.stderr
    assert sorted(p["name"] for p in json.loads(table.stdout)["players"]) == ["E0", "E1", "E2"]
    assert len(games) == 6
    refused = run_cli("substitute", path, "E2", "greedy-uci", "--upgrade", "--name", "E2-new")
    assert refused.returncode == 2 and "an upgrade keeps the name 'E2'" in refused.stderr


def test_replace_resets_finished_games_and_supersedes_them(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "r.toml", players=3, games=2)
    assert run_cli("run", path).returncode == 0
    tourney = store.read(path)
    e1_games = games_of(tourney, 1, "+-=")
    assert len(e1_games) == 4
    done = run_cli("substitute", path, "E1", "greedy-uci", "--name", "Greedy", "--replace")
    assert done.returncode == 0, done.stderr
    assert "4 game(s) to replay, 4 PGN game(s) superseded" in done.stdout
    tourney = store.read(path)
    assert all(tourney.result(n) == " " for n in e1_games)
    superseded = [g for g in pgn_games(tourney.pgn_path) if "Superseded" in g]
    assert sorted(int(g["GameNumber"]) for g in superseded) == e1_games
    assert all("E1" in (g["White"], g["Black"]) for g in superseded)
    assert run_cli("run", path).returncode == 0
    games = assert_consistent(path)  # counts only current games
    assert len(games) == 6 and sum(1 for g in games if "Greedy" in (g["White"], g["Black"])) == 4


def test_replace_refuses_the_name_of_an_engine_replaced_earlier(tmp_path: Path) -> None:
    """E1 replaced by Greedy, then E2 by an engine named E1: taken, the new E1 was given the PGN's superseded
    games and the faults of the engine that E1 had named."""
    path = slow_tourney(tmp_path / "n.toml", players=3, games=2)
    assert run_cli("run", path).returncode == 0
    assert run_cli("substitute", path, "E1", "greedy-uci", "--name", "Greedy", "--replace").returncode == 0
    before, games = path.read_bytes(), path.with_suffix(".pgn").read_bytes()
    for name in ("E1", "Greedy"):  # the replaced one's; a participant's (refused already)
        done = run_cli("substitute", path, "E2", "random-uci", "--name", name, "--replace")
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert path.read_bytes() == before and path.with_suffix(".pgn").read_bytes() == games
    assert done.stderr == f"tmanager: {path}: a participant is already named 'Greedy' (choose --name)\n"
    first = run_cli("substitute", path, "E2", "random-uci", "--name", "E1", "--replace")
    assert first.stderr == (f"tmanager: {path}: 'E1' named an engine replaced earlier (in the PGN's games or the "
                            "faults), whose record would be taken for the new engine's (choose another --name)\n")
    # Its own name stays a participant's: the replaced engine's games are superseded, the slot's name the same.
    assert run_cli("substitute", path, "E2", "random-uci", "--replace").returncode == 0
    assert run_cli("substitute", path, "random-uci", "greedy-uci", "--name", "random-uci", "--replace").returncode == 0


def test_replace_refused_while_playing(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "p.toml", players=2, games=2, delay=0.1, max_moves=30)
    worker = start_worker(path)
    wait_for(lambda: bool(claims_of(path, worker.pid)))
    game = claims_of(path, worker.pid)[0]
    before = path.read_text()
    done = run_cli("substitute", path, "E0", "random-uci", "--replace")
    worker.send_signal(signal.SIGTERM)
    worker.wait(timeout=20)
    assert done.returncode == 2
    assert f"'E0' is playing game(s) {game} now" in done.stderr
    assert "E0" in store.read(path).participants[0].name
    assert "random-uci" not in before


def test_substitute_bad_input(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "b.toml", players=2)
    for args, message in [
        (("Nobody", "random-uci", "--upgrade"), "no participant named 'Nobody'"),
        (("E0", "no-such-definition", "--upgrade"), "unknown engine 'no-such-definition'"),
        (("E0", "E1", "--cmd", "stockfish", "--protocol", "uci", "--replace"), "already named 'E1'"),
        (("E0", "random-uci", "--name", "E9", "--upgrade"), "an upgrade keeps the name 'E0'"),
        (("E0", "random-uci", "--upgrade", "--option", "Hash"), "--option 'Hash' is not KEY=VALUE"),
        (("E0", "X", "--cmd", "no-such-binary", "--protocol", "uci", "--upgrade"), "not on PATH"),
    ]:
        before = path.read_bytes()
        done = run_cli("substitute", path, *args)
        assert done.returncode == 2 and message in done.stderr, done.stderr
        assert path.read_bytes() == before


def test_clone_copies_settings_not_results(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "c.toml", players=2, extra='after_game = "true"')
    assert run_cli("run", path).returncode == 0
    clone = tmp_path / "sub" / "clone.toml"
    clone.parent.mkdir()
    done = run_cli("clone", path, clone, "--set", "cycles=2", "--set", 'name="Second"')
    assert done.returncode == 0, done.stderr
    original, copy = store.read(path), store.read(clone)
    assert copy.results == "" and copy.claims == {}
    assert copy.participants == original.participants
    assert copy.settings.after_game == "true" and copy.settings.cycles == 2 and copy.settings.name == "Second"
    assert copy.pgn_path == clone.with_suffix(".pgn")
    assert run_cli("run", clone).returncode == 0
    assert len(assert_consistent(clone)) == 4


def test_clone_onto_itself_is_refused_and_a_used_pgn_is_told(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "c.toml", players=2)
    assert run_cli("run", path).returncode == 0
    before, games = path.read_bytes(), path.with_suffix(".pgn").read_bytes()
    for target in (path, tmp_path / "sub" / ".." / "c.toml"):  # --force would have wiped c's results
        done = run_cli("clone", path, target, "--force")
        assert done.returncode == 2 and "is the tourney being cloned (give the clone a name of its own)" in done.stderr
        assert path.read_bytes() == before
    done = run_cli("clone", path, tmp_path / "d.toml", "--set", "pgn=c.pgn")
    assert done.returncode == 0
    assert f"note: {path.with_suffix('.pgn')} already holds {len(games):,} bytes" in done.stderr
    assert "note:" not in run_cli("clone", path, tmp_path / "e.toml").stderr  # e.pgn: none yet


def test_edit_adds_a_cycle_to_a_finished_tourney(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "e.toml", players=2, games=2)
    assert run_cli("run", path).returncode == 0
    done = run_cli("edit", path, "--set", "cycles=2", "--set", "adjudication.max_moves=8")
    assert done.returncode == 0, done.stderr
    assert run_cli("run", path).returncode == 0
    assert len(assert_consistent(path)) == 4
    assert store.read(path).adjudication.max_moves == 8


def test_a_text_setting_typed_as_a_number_is_the_text(tmp_path: Path) -> None:
    """--set tc=10 (ten seconds) and tc=inf, the README's own values, were refused, 'must be str (text), not 10':
    TOML read them as numbers; so were --each tc=60 and event=2026."""
    path = tmp_path / "n.toml"
    made = run_cli("new", path, "-e", "random-uci:A", "-e", "random-uci:B", "--each", "tc=60", "--set", "event=2026")
    assert made.returncode == 0, made.stderr
    done = run_cli("edit", path, "--set", "tc=10", "--set", "participants.B.tc=inf", "--set", "participants.B.nodes=5")
    assert done.returncode == 0, done.stderr
    tourney = store.read(path)
    assert (tourney.settings.tc, tourney.settings.event) == ("10", "2026")
    assert [p.tc for p in tourney.participants] == ["60", "inf"]
    refused = run_cli("edit", path, "--set", "name=true")  # a boolean is no text: still refused
    assert refused.returncode == 2 and "tourney.name: must be str (text), not True" in refused.stderr


def test_edit_refuses_changes_that_change_recorded_meaning(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "f.toml", players=3, games=2)
    assert run_cli("work", path, "--games", "3").returncode == 0
    before = path.read_bytes()
    for setting, message in [
        ("games_per_pairing=4", "cannot change games_per_pairing once games are recorded"),
        ('type="gauntlet"', "cannot change type"),
        ("cycles=0", "must be at least 1"),
        ("tc=fast", "bad time control"),
        ("bogus=1", "unknown key 'bogus'"),
    ]:
        done = run_cli("edit", path, "--set", setting)
        assert done.returncode == 2 and message in done.stderr, (setting, done.stderr)
        assert path.read_bytes() == before


def test_edit_reaches_a_running_worker(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "g.toml", players=2, games=2, cycles=3, delay=0.02, max_moves=40)
    worker = start_worker(path)
    wait_for(lambda: bool(claims_of(path, worker.pid)))
    assert run_cli("edit", path, "--set", "adjudication.max_moves=2").returncode == 0
    assert worker.wait(timeout=120) == 0
    games = assert_consistent(path)
    assert int(games[-1]["PlyCount"]) == 4  # later games used the new limit


def define_engines(directory: Path, *names: str) -> None:
    """Engine definitions NAME.toml (Stockfish) in DIRECTORY/engines, where import-xboard looks for them."""
    engines = directory / "engines"
    engines.mkdir()
    for name in names:
        (engines / f"{name}.toml").write_text('cmd = "stockfish"\nprotocol = "uci"\n')


def assert_imports_refused(directory: Path, header: str, cases: Iterable[tuple[str, str]]) -> None:
    """Each .trn of ``header`` and a case's options is refused in the case's one line, and nothing written."""
    trn = directory / "x.trn"
    for options, error in cases:
        trn.write_text(header + options + "\n")
        done = run_cli("import-xboard", trn)
        assert (done.returncode, done.stderr) == (2, f"tmanager: {trn}: {error}\n"), options
        assert not (directory / "x.toml").exists()


def test_import_xboard_manual_example(tmp_path: Path) -> None:
    define_engines(tmp_path, "glaurung", "fruit-2-1", "fairy-max-4-8", "crafty-20-14")
    trn = tmp_path / "manual.trn"
    trn.write_text((ROOT / "tests" / "data" / "xboard-manual.trn").read_text())
    done = run_cli("import-xboard", trn, tmp_path / "manual.toml")
    assert done.returncode == 0, done.stderr
    tourney = store.read(tmp_path / "manual.toml")
    assert [p.name for p in tourney.participants] == ["glaurung", "Fruit 2.1", "Fairy-Max 4.8", "Crafty 20.14"]
    assert [p.engine for p in tourney.participants] == ["glaurung", "fruit-2-1", "fairy-max-4-8", "crafty-20-14"]
    s = tourney.settings
    assert (s.type, s.cycles, s.games_per_pairing, s.sync_after_round, s.sync_after_cycle) == (
        "round-robin", 1, 2, True, True)
    assert s.pgn == "tm.pgn"
    assert tourney.results == "=-+"  # the game in progress is not played
    assert tourney.openings is None


def test_import_xboard_unknown_engine_lists_what_to_define(tmp_path: Path) -> None:
    trn = tmp_path / "manual.trn"
    trn.write_text((ROOT / "tests" / "data" / "xboard-manual.trn").read_text())
    done = run_cli("import-xboard", trn)
    assert done.returncode == 2
    assert "no engine definition for 'glaurung', 'Fruit 2.1', 'Fairy-Max 4.8', 'Crafty 20.14'" in done.stderr
    assert not (tmp_path / "manual.toml").exists()


def test_import_xboard_refuses_a_bad_option_naming_it_in_the_trn(tmp_path: Path) -> None:
    """A bad index was a traceback; a value refused by the checks named the .toml that was never written, and
    our field (progress.results, tourney.cycles) rather than the XBoard option to fix."""
    define_engines(tmp_path, "a", "b")
    cases = [
        ('-loadPositionFile "o.epd" -loadPositionIndex abc', "-loadPositionIndex: 'abc' is not a number"),
        ("-tourneyCycles 0", "-tourneyCycles: must be at least 1, not 0 (the times the schedule is played: 1 or more)"),
        ("-defaultMatchGames 2.5", "-defaultMatchGames: '2.5' is not a whole number"),
        ("-tc 5 -inc x", "-inc: 'x' is not a number"),
        ("-tc 1e400", "-tc: '1e400' is not a finite number"),
        # Was told as '-seconds', an option XBoard has not.
        ("-tc 1:2:3", "-tc: '1:2:3' is not minutes[:seconds] (e.g. 5 for five minutes, 0:30 for thirty seconds)"),
        ("-st x", "-st: 'x' is not minutes[:seconds] (e.g. 5 for five minutes, 0:30 for thirty seconds)"),
        # A character XBoard never writes was written into the new file, and counted as a game played.
        ('-results "+x"', "-results: 'x' at game 1 is no result (XBoard writes \"+\", \"-\", \"=\", \"*\" and space)"),
        ("-participants {b\nb\n}",
         "-participants: two participants are named 'b' (give each participant a name of its own)"),
        ("-syncAfterRound\n-syncAfterCycle true", 'line 6: expected -option value (as XBoard writes them: -name value, '
         '-name "text" or -name {lines})'),
        # Anything but true was taken for false, 'on' too; XBoard refuses what is neither (and reads 't…' as true).
        ("-syncAfterRound on", "-syncAfterRound: 'on' is neither true nor false (true or false)"),
        # A Polyglot book was ignored: every game from the start position. One named but not used is no matter.
        ('-usePolyglotBook true -polyglotBook "b.bin"', "-usePolyglotBook: a Polyglot book ('b.bin') cannot be "
         "played from (give the openings as an EPD or PGN book (-loadPositionFile, -loadGameFile), or set "
         "-usePolyglotBook false)"),
        ('-results "+-=+-"', "-results: results string has 5 games but the schedule only 2 (remove the extra "
                            "characters, or raise cycles)"),
    ]
    assert_imports_refused(tmp_path, "-participants {a\nb\n}\n-defaultMatchGames 2\n", cases)


def test_import_xboard_takes_pondering_and_says_what_a_trn_lacks(tmp_path: Path) -> None:
    """-ponderNextMove (which XBoard writes in every .trn) was ignored: a tourney XBoard played pondering was
    imported without. A .trn with fewer than two participants said so with no way out."""
    from tmanager.tourney.trn import import_trn

    define_engines(tmp_path, "a", "b")
    trn = tmp_path / "x.trn"
    for options, ponder in (("-ponderNextMove true", True), ("-ponderNextMove false", False), ("", False),
                            ('-usePolyglotBook false -polyglotBook "b.bin"', False)):
        trn.write_text("-participants {a\nb\n}\n" + options + "\n")
        assert import_trn(trn, tmp_path / "x.toml").settings.ponder is ponder, options
    trn.write_text("-participants {a\n}\n")
    done = run_cli("import-xboard", trn)
    assert (done.returncode, done.stderr) == (2, f"tmanager: {trn}: -participants: fewer than 2 participants (list "
                                                 "the engines in -participants {…}, one a line)\n")


def test_import_xboard_says_what_to_do_of_a_path_that_is_no_file(tmp_path: Path) -> None:
    """A .trn or a new tourney file that was a directory was refused without a way out, and a new file that was
    there said its fix outside the parentheses of every other refusal."""
    define_engines(tmp_path, "a", "b")
    trn = tmp_path / "x.trn"
    trn.write_text("-participants {a\nb\n}\n")
    (tmp_path / "taken.toml").write_text("")
    for arguments, says in (
        ((tmp_path,), f"{tmp_path}: is a directory (give the path of the XBoard tourney file)"),
        ((trn, tmp_path / "engines"),
         f"{tmp_path / 'engines'}: is a directory (choose another name for the new tourney file)"),
        ((trn, tmp_path / "taken.toml"),
         f"{tmp_path / 'taken.toml'}: file exists (choose another name, or --force to write over it)"),
    ):
        done = run_cli("import-xboard", *arguments)
        assert (done.returncode, done.stdout, done.stderr) == (2, "", f"tmanager: {says}\n"), arguments
    assert (tmp_path / "taken.toml").read_text() == ""


def test_import_xboard_never_writes_over_the_trn_it_reads(tmp_path: Path) -> None:
    """With --force, a new file that was the .trn itself (named twice, or a .trn called x.toml, whose default new
    file is itself) was replaced by the new tourney: the XBoard tourney lost, while XBoard may still run it."""
    define_engines(tmp_path, "a", "b")
    text = "-participants {a\nb\n}\n"
    for name, arguments in (("x.trn", ("x.trn",)), ("y.toml", ())):
        trn = tmp_path / name
        trn.write_text(text)
        done = run_cli("import-xboard", trn, *(tmp_path / a for a in arguments), "--force")
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == (f"tmanager: NEW_FILE: {str(trn)!r} is the XBoard tourney file read (give the new "
                               f"tourney file a name of its own: {trn.stem}-xboard.toml)\n")
        assert trn.read_text() == text


def test_import_xboard_refuses_a_book_it_cannot_find(tmp_path: Path) -> None:
    """A book not found beside the new tourney file was taken, and the tourney written, for `run` to refuse it;
    `new` refuses it at once. Now the .trn's option is named and nothing is written."""
    define_engines(tmp_path, "a", "b")
    hint = f"(give the book's path from {str(tmp_path)!r}, where the new tourney file goes)"
    cases = [
        ('-loadPositionFile "book.epd" -loadPositionIndex -2',
         f"-loadPositionFile: no book {str(tmp_path / 'book.epd')!r} {hint}"),
        ('-loadGameFile "games" -loadGameIndex -2',
         f"-loadGameFile: {str(tmp_path / 'games')!r} is a directory {hint}"),
    ]
    (tmp_path / "games").mkdir()
    assert_imports_refused(tmp_path, "-participants {a\nb\n}\n", cases)


def test_workers_see_substitution_without_restart(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "w.toml", players=2, games=2, cycles=3, delay=0.02, max_moves=10)
    run = subprocess.Popen([sys.executable, "-m", "tmanager", "run", str(path)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    wait_for(lambda: sum(c in "+-=" for c in store.read(path).results) >= 1)
    # An engine that cannot start: each game it plays from now on shows it, under E1's name.
    assert run_cli("substitute", path, "E1", "fault-crash-start", "--upgrade").returncode == 0
    assert run.wait(timeout=120) == 0, run.stderr.read() if run.stderr else ""
    assert_consistent(path)
    with open(store.read(path).pgn_path) as f:
        reasons = [g.end().comment for g in iter(lambda: chess.pgn.read_game(f), None)]
    assert any("engine failed to start" in reason for reason in reasons)
    assert store.read(path).faults["E1"]["crash"] >= 1


def test_xboard_time_controls_and_books_map_to_ours(tmp_path: Path) -> None:
    from tmanager.tourney.trn import import_trn

    define_engines(tmp_path, "a", "b")
    cases = [
        ("-tc 5 -inc 2", ("300+2", None, None)),
        ("-tc 0:30 -inc 0.1", ("30+0.1", None, None)),
        ("-mps 40 -tc 5", ("40/300", None, None)),
        # XBoard reads -st as -tc, in minutes[:seconds], and writes a .trn's time per move as -searchTime "m:ss";
        # -st 1 was taken for one second, -searchTime ignored (40 moves in 5 minutes), -depth too.
        ("-st 1 -searchDepth 8", ("inf", 60.0, 8)),
        ('-searchTime "0:05"', ("inf", 5.0, None)),
        ("-depth 6", ("inf", None, 6)),
        # A period has XBoard's 40 moves unless -mps says otherwise (-tc 5 alone was sudden death); an -mps of 0 or
        # below without -inc is XBoard's storage of an increment.
        ("-tc 5", ("40/300", None, None)),
        ("-tc 5 -mps 0", ("300+0", None, None)),
        ("-tc 5 -mps -2000", ("300+2", None, None)),
        ("-tc 5 -mps 0 -inc -1", ("40/300", None, None)),
        ("", ("40/300", None, None)),
        # Without -tc, XBoard's 5 minutes with the -inc or -mps given: both were ignored (40/300).
        ("-inc 2", ("300+2", None, None)),
        ("-mps 60", ("60/300", None, None)),
    ]
    (tmp_path / "book.epd").write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n")
    for options, (tc, st, depth) in cases:
        trn = tmp_path / "x.trn"
        trn.write_text("-participants {a\nb\n}\n" + options + '\n-loadPositionFile "book.epd" -loadPositionIndex -2\n')
        tourney = import_trn(trn, tmp_path / "x.toml")
        assert (tourney.settings.tc, tourney.settings.st, tourney.settings.depth) == (tc, st, depth), options
        assert tourney.openings is not None
        # -2 is XBoard's walk by pairs (each opening twice, colours reversed), in file order: it was read as random.
        assert (tourney.openings.file, tourney.openings.order, tourney.openings.start) == ("book.epd", "sequential", 1)


def test_import_xboard_refuses_an_opening_index_no_book_of_ours_plays(tmp_path: Path) -> None:
    """An index of 0 or more (XBoard: every game from that one opening; 1 is -loadPositionIndex's default) was
    read as the first opening of a walk through the whole book, and -rewindIndex ignored; -1 and -2 walk it."""
    from tmanager.tourney.trn import import_trn

    define_engines(tmp_path, "a", "b")
    (tmp_path / "book.epd").write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n")
    (tmp_path / "book.pgn").write_text("1. e4 e5 *\n")
    hint = "(-2 walks the book, each opening twice with colours reversed; or give a book of that one opening)"
    assert_imports_refused(tmp_path, "-participants {a\nb\n}\n", [
        ('-loadPositionFile "book.epd"', f"-loadPositionIndex: 1: every game from opening 1 alone, which no tmanager "
                                         f"book plays {hint}"),
        ('-loadGameFile "book.pgn" -loadGameIndex 3', f"-loadGameIndex: 3: every game from opening 3 alone, which no "
                                                      f"tmanager book plays {hint}"),
        ('-loadPositionFile "book.epd" -loadPositionIndex -2 -rewindIndex 1', "-rewindIndex: 1: the book's first 1 "
         "opening(s) only, which no tmanager book plays (give a book of those 1 openings, and -rewindIndex 0)"),
    ])
    trn = tmp_path / "x.trn"
    # XBoard loads the game file when both are given; -1 walks the book too (tmanager shares each opening by pairs).
    trn.write_text('-participants {a\nb\n}\n-loadPositionFile "book.epd" -loadPositionIndex -2\n'
                   '-loadGameFile "book.pgn" -loadGameIndex -1\n')
    openings = import_trn(trn, tmp_path / "x.toml").openings
    assert openings is not None and (openings.file, openings.format, openings.order) == ("book.pgn", "pgn",
                                                                                         "sequential")
