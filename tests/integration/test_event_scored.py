"""Score-based events the tsh way through the real `tmanager event` command: spreads, scores, byes, off,
Fontes timing, KOTH, Gibsonization, firsts, reports, `.t` and `.TOU` files, and refused inputs."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tmanager.errors import ConfigError, StateError
from tmanager.events import api as ev
from tmanager.events.rules import scored as sc
from tmanager.events.scorecards import bye_spread, scorecards
from tmanager.formats import tsh
from tmanager.pairing.scored import starter, tally

NAMES = ["Ace", "Baker", "Cole", "Dunn", "Eade", "Frost", "Gale", "Hart", "Ives", "Jones", "Ghost"]


def ok(*args: str | Path) -> str:
    done = run_cli("event", *args)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def refused(path: Path, *args: str | Path) -> str:
    """The command exits 2 with one line on stderr, and neither the event nor its journal changes."""
    before = path.read_bytes()
    journal = sorted((path.parent / "old").glob("*")) if (path.parent / "old").exists() else []
    done = run_cli("event", *args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert path.read_bytes() == before
    assert (sorted((path.parent / "old").glob("*")) if (path.parent / "old").exists() else []) == journal
    return done.stderr.strip()


def shell(path: Path, text: str) -> str:
    """`tmanager event shell` with ``text`` typed on standard input."""
    done = subprocess.run(
        [sys.executable, "-m", "tmanager", "event", "shell", str(path)],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "error:" not in done.stdout, done.stdout
    return done.stdout


def spread(round_number: int, first: int, second: int) -> int:
    """The spread of a game for the first player: Ace (1) wins by 300, the rest by a fixed rule (ties too)."""
    if 1 in (first, second):
        return 300 if first == 1 else -300
    return ((first * 7 + second * 13 + round_number * 5) % 41 - 20) * 10


def enter_round(path: Path, n: int) -> None:
    """Round ``n``'s spreads in the shell's result mode, by board (the one line per game of a score slip)."""
    boards = ev.load(path).division().round(n).boards
    lines = [f"{i} {spread(n, b.white, b.black)}" for i, b in enumerate(boards, 1) if b.result in ev.PENDING]
    out = shell(path, f"enter {n}\n" + "\n".join(lines) + "\n\nquit\n")
    assert out.count(f"round {n} board ") == len(lines)


def ranks(path: Path, upto: int) -> dict[int, int]:
    """Standings places (1 = top) after round ``upto``, read from the event file."""
    lines = ev.wins_standings(ev.load(path).division(), upto)
    return {line.player.number: place for place, line in enumerate(lines, 1)}


def meetings(path: Path, a: int, b: int, upto: int) -> int:
    d = ev.load(path).division()
    return sum(1 for r in d.rounds if r.number <= upto for x in r.boards if {x.white, x.black} == {a, b})


def test_twelve_round_scrabble_event(tmp_path: Path) -> None:
    path = tmp_path / "club.toml"
    settings = [
        "track_firsts=true", "assign_firsts=true", "initial=random", "session_breaks=[4,8,10,11]",
        "prize_bands=[1,2,3]",
    ]  # fmt: skip
    ok("new", path, "--name", "Club Scrabble", "--rounds", "12", "--entry", "spread", "--divisions", "A",
       *(x for s in settings for x in ("--set", s)))  # fmt: skip
    shell(path, "".join(f'add-player "{n}, X" --rating {2000 - 40 * i}\n' for i, n in enumerate(NAMES, 1)) + "quit\n")
    assert [p.name for p in ev.load(path).division().players] == [f"{n}, X" for n in NAMES]

    systems = {4: ["--system", "tsh-swiss"], 7: ["--system", "factored"], 12: ["--system", "koth", "--repeats", "12"]}
    for n in range(1, 13):
        if n == 3:
            continue  # paired and entered with round 2
        if n == 5:  # the no-show: off for two rounds, then back
            assert "Ghost, X (11) will not be paired in rounds 5-6" in ok("off", path, "Ghost", "--rounds", "5,6")
        if n == 9:  # gone for good: -40 a round from now on
            assert "gets -40 for each round missed" in ok("off", path, "Ghost", "--spread", "-40")
        out = ok("pair", path, "--seed", str(n), *systems.get(n, []))
        if n == 1:
            assert "round 1 paired (random)" in out
            board = ev.load(path).division().round(1).seat(1)
            assert board is not None
            other = board.black if board.white == 1 else board.white
            # By players, "P1 SPREAD P2": Ace won by 300, whoever went first.
            out = ok("result", path, "Ace", "300", str(other))
            assert "Ace, X (1) [1-0 +300]" in out
        if n == 2:
            # Fontes timing: round 3 is paired from round 1's standings while round 2's results are still out,
            # but round 4 (from round 2's) waits for them.
            assert "round 3 paired (chew from the standings after round 1)" in ok("pair", path, "--seed", "3")
            assert "round 4 is paired from the standings after round 2" in refused(path, "pair", path)
            enter_round(path, 2)
            enter_round(path, 3)
            continue
        if n == 10:
            after = ev.wins_standings(ev.load(path).division(), 10)
        if n == 11:
            # Gibsonization: after round 10 nobody can catch Ace with two rounds left …
            assert after[0].player.number == 1
            assert after[0].entrant.wins - after[1].entrant.wins >= 3
            assert "gibsonized (cannot be caught with 2 round(s) left): Ace, X (1)" in out
            # … so Ace plays the best-placed player outside the prize bands (1st, 2nd, 3rd) among those Ace met least.
            board = ev.load(path).division().round(11).seat(1)
            assert board is not None
            victim = board.black if board.white == 1 else board.white
            place = ranks(path, 10)
            assert place[victim] > 3
            for q, rank in place.items():
                if 3 < rank < place[victim]:
                    assert meetings(path, 1, q, 10) > meetings(path, 1, victim, 10)
        if n == 12:
            # King of the Hill from round 11's standings: 1v2, 3v4… skipping only round 11's opponent.
            assert "round 12 paired (koth from the standings after round 11)" in out
            d = ev.load(path).division()
            order = [line.player.number for line in ev.wins_standings(d, 11) if line.player.status == "active"]
            last = {x: y for b in d.round(11).boards for x, y in ((b.white, b.black), (b.black, b.white))}
            expected = []
            while order:
                top = order.pop(0)
                partner = next(q for q in order if last.get(top) != q)
                order.remove(partner)
                expected.append({top, partner})
            assert [{b.white, b.black} for b in d.round(12).boards] == expected
        enter_round(path, n)

    d = ev.load(path).division()
    assert d.paired_rounds == 12 and not ev.missing(d)
    # Byes: the odd one out got +50 in rounds 1-4 and 7-8; Ghost was off with -50 in 5-6 and -40 from round 9.
    for r in d.rounds:
        spreads = {p: bye_spread(d, r, p) for p in r.byes}
        if r.number in (5, 6):
            assert spreads == {11: -50}
        elif r.number >= 9:
            assert spreads == {11: -40}
        else:
            assert len(spreads) == 1 and set(spreads.values()) == {50}
    final = ev.wins_standings(d)
    keys = [(-line.entrant.wins, -line.entrant.spread) for line in final]
    assert keys == sorted(keys) and final[0].player.number == 1 and final[0].entrant.wins >= 11
    ghost = next(line for line in final if line.player.number == 11)
    assert ghost.player.status == "withdrawn"
    # Firsts are assigned by the balance rule on every board: fewer firsts starts, then fewer seconds, else lot.
    for r in d.rounds:
        before = {e.id: e for e in tally(scorecards(d, r.number - 1))}
        for b in r.boards:
            assert starter(before[b.white], before[b.black]) in (None, b.white), (r.number, b)

    table = ok("standings", path)
    assert table.splitlines()[0] == "Club Scrabble: standings after round 12"
    assert "Ghost, X (off)" in table and "Spread" in table and "1st" in table
    assert "no game scores" in ok("highs", path)
    out = ok("report", path, "--quiet")
    assert "wrote 6 report(s)" in out
    html = (tmp_path / "html" / "club" / "standings-r12.html").read_text(encoding="utf-8")
    assert "<th>Spread</th>" in html and "Ace, X" in html

    # .t round trip: export, import into a new event, export again: the same file and the same standings.
    ok("export-t", path, tmp_path / "a.t")
    players = tsh.read(tmp_path / "a.t")
    assert len(players) == 11 and players[10].card.off == -40 and len(players[0].card.p12) == 12
    copy = tmp_path / "copy.toml"
    ok("import-t", copy, tmp_path / "a.t", "--name", "Club Scrabble", "-d", "A", "--entry", "spread", "--rounds", "12")
    ok("export-t", copy, tmp_path / "b.t")
    assert (tmp_path / "b.t").read_text() == (tmp_path / "a.t").read_text()
    assert ok("standings", copy) == table


def test_refused_inputs_change_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    rules = ev.ScoredSettings(entry=ev.EntryMode.SPREAD)
    division = ev.Division("A", system=ev.PairingSystem.KOTH, scored=rules)
    ev.create(path, ev.Event(name="S", rounds=4, divisions=[division]))
    for i in range(1, 6):

        def enter(e: ev.Event, i: int = i) -> list[str]:
            return ev.add_player(e, e.division(), ev.Player(i, f"P{i}, X", rating=1500 - i))

        ev.apply(path, enter)
    ok("pair", path)  # KOTH by rating: 1v2, 3v4, bye 5
    ok("result", path, "1", "120")
    assert "is not a score" in refused(path, "result", path, "2", "abc")
    # int() took other scripts' digits, underscores and numbers too long for the file's TOML (even with --yes).
    for typed in ("\u0663\u0660", "1_20", "9" * 20):
        assert "is not a score (write a whole number: digits 0-9" in refused(path, "result", path, "2", typed, "--yes")
    assert "is not a board number" in refused(path, "result", path, "\u0662", "+-")
    assert "there is no board 7" in refused(path, "result", path, "7", "30")
    assert "already has +120 (`correct` changes it)" in refused(path, "result", path, "1", "30")
    assert "give BOARD SPREAD or P1 SPREAD P2" in refused(path, "result", path, "2", "10", "20", "30", "40")
    assert "do not play each other" in refused(path, "result", path, "1", "30", "3")
    assert "1 result(s) missing" in refused(path, "pair", path)
    assert "'swizz' is not a pairing system" in refused(path, "pair", path, "--system", "swizz")
    assert "no player matches 'Nobody'" in refused(path, "off", path, "Nobody")
    # A player "number" of 5000 digits was int()'s ValueError traceback (a server error on the web's forms).
    assert "no player matches '9999999999999999999999999999999999999999'… (5000 characters)" in refused(
        path, "off", path, "9" * 5000
    )
    assert "round 1 is already paired" in refused(path, "off", path, "P3", "--rounds", "1")
    assert "categories and flags rank chess divisions" in refused(path, "standings", path, "--flag", "junior")
    chess = tmp_path / "chess.toml"
    ev.create(chess, ev.Event(name="C", rounds=3, divisions=[ev.Division("A")]))
    assert "is not score-based" in refused(chess, "export-t", chess, tmp_path / "c.t")
    assert "for score-based divisions" in refused(chess, "pair", chess, "--system", "koth")
    # A hand-edited file with a bad setting names the file and the field.
    text = path.read_text().replace('entry = "spread"', 'entry = "spread"\nrepeats = -1')
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    assert "division[1].repeats: cannot be negative" in refused(bad, "standings", bad)


def test_new_with_a_bad_setting_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    done = run_cli("event", "new", path, "--name", "X", "--entry", "spread", "--set", "entry=cards")
    assert done.returncode == 2 and "division[1].entry: 'cards' is not an entry mode" in done.stderr
    assert not path.exists()


def _scores_event(tmp_path: Path, **rules: object) -> Path:
    path = tmp_path / "scores.toml"
    division = ev.Division("A", system="koth", scored=ev.ScoredSettings(entry="scores", **rules))  # type: ignore[arg-type]
    ev.create(path, ev.Event(name="Scores", rounds=3, end="2026-05-01", divisions=[division]))
    for i, name in enumerate(["Ann", "Bob", "Cat", "Dan"], 1):
        player = ev.Player(i, f"{name}, X", rating=1600 - i)

        def enter(e: ev.Event, player: ev.Player = player) -> list[str]:
            return ev.add_player(e, e.division(), player)

        ev.apply(path, enter)
    return path


def test_scores_firsts_suspicious_scores_and_lists(tmp_path: Path) -> None:
    path = _scores_event(tmp_path, track_firsts=True)
    ok("pair", path)  # KOTH: 1v2, 3v4; firsts not assigned: the entry says who went first
    # "P1 S1 P2 S2": Bob went first on board 1 and lost 380 to 452.
    out = ok("result", path, "Bob", "380", "Ann", "452")
    assert out.strip() == "round 1 board 1: Bob, X (2) [0-1 -72] 380-452 Ann, X (1) [1-0 +72]"
    assert "looks mistyped" in refused(path, "result", path, "2", "45", "390")
    assert "Dan, X (4) [1-0 +2] 392-390 Cat, X (3)" in ok("result", path, "Dan", "392", "Cat", "390")
    out = ok("correct", path, "--round", "1", "2", "45", "390", "--yes")
    assert "45-390" in out
    # The shell asks about a suspicious score: no leaves it out, yes enters it.
    ok("pair", path)  # round 2 KOTH: Cat (+345) v Ann (+72), Bob v Dan
    out = shell(path, "enter\n1 1600 300\nn\n1 1600 300\ny\n2 500 500\n\nquit\n")
    assert out.count("looks mistyped; enter it anyway?") == 2 and "not entered" in out
    d = ev.load(path).division()
    assert [(b.white, b.black, b.result, b.scores) for b in d.round(2).boards] == [
        (3, 1, "1-0", (1600, 300)),
        (2, 4, "½-½", (500, 500)),
    ]
    lines = {line.player.number: line for line in ev.wins_standings(d)}
    assert (lines[3].entrant.wins, lines[3].entrant.spread, lines[3].average) == (2.0, 1645, 995.0)
    assert (lines[2].entrant.wins, lines[2].losses, lines[2].entrant.firsts) == (0.5, 1.5, 2)
    highs = ok("highs", path, "--count", "2")
    # HighWin 1600 (Cat) and 452 (Ann); HighLoss 380 (Bob) then 300 (Ann); LowWin 390 (Cat, round 1).
    wins, losses, low = highs.split("\n\n")[1:]
    assert wins.index("1600  Cat, X (3)") < wins.index("452  Ann, X (1)") and "390" not in wins
    assert losses.index("380  Bob, X (2)") < losses.index("300  Ann, X (1)")
    assert low.splitlines()[3].split()[:3] == ["1", "2", "390"]
    ok("export-tou", path, tmp_path / "A.TOU")
    tou_lines = (tmp_path / "A.TOU").read_text().splitlines()
    # Ann beat Bob 452-380 (Bob went first), then lost 300 to Cat (Cat went first); Dan went first and lost
    # 45-390 to Cat (as corrected), then tied 500-500 with Bob, who went first.
    assert tou_lines[3] == "X Ann 2452 2 300 3"
    assert tou_lines[6] == "X Dan 45 +3 1500 2"


def test_both_entry_checks_the_spread(tmp_path: Path) -> None:
    path = _scores_event(tmp_path)
    text = path.read_text().replace('entry = "scores"', 'entry = "both"')
    path.write_text(text)
    ok("pair", path)
    assert "the spread +40 does not match the scores 400-380 (+20)" in refused(
        path, "result", path, "1", "400", "380", "40"
    )
    assert "400-380" in ok("result", path, "1", "400", "380", "20")
    # By players, read as Dan against Cat; stored in board order (Cat went first).
    out = ok("result", path, "Dan", "Cat", "+-")
    assert "Cat, X (3) [0-1 -50] -+ (-50 +50) Dan, X (4) [1-0 +50]" in out


def test_init_fontes_quads_and_round_robin_forfeits(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    rules = ev.ScoredSettings(
        entry=ev.EntryMode.SPREAD, track_firsts=True, assign_firsts=True, initial=ev.Opening.INIT_FONTES
    )
    rules.initial_snaked = True
    division = ev.Division("A", system=ev.PairingSystem.CHEW, scored=rules)
    ev.create(path, ev.Event(name="F", rounds=6, divisions=[division]))
    for i in range(1, 9):

        def enter(e: ev.Event, i: int = i) -> list[str]:
            return ev.add_player(e, e.division(), ev.Player(i, f"P{i}, X", rating=2000 - i))

        ev.apply(path, enter)
    messages = ev.apply(path, lambda e: sc.pair(e, e.division(), rng=random.Random(1)))
    assert [m.split(":")[0] for m in messages] == [f"round {n} paired (init-fontes)" for n in (1, 2, 3)]
    d = ev.load(path).division()
    met: dict[int, set[int]] = {p: set() for p in range(1, 9)}
    for r in d.rounds:
        for b in r.boards:
            met[b.white].add(b.black)
            met[b.black].add(b.white)
    # Snaked by rating: quads {1, 4, 5, 8} and {2, 3, 6, 7}, each a round robin.
    for quad in ({1, 4, 5, 8}, {2, 3, 6, 7}):
        for p in quad:
            assert met[p] == quad - {p}
    firsts = {line.player.number: line.entrant.firsts for line in ev.wins_standings(d)}
    assert sorted(firsts.values()) == [1] * 4 + [2] * 4
    with pytest.raises(StateError, match=r"only before round 1 is paired$"):
        ev.apply(path, lambda e: sc.pair(e, e.division(), system="init-fontes"))
    # Round 3 unpaired (a withdrawal): the opening cannot pair it again, and the refusal says what can.
    assert "round 3 unpaired" in ok("unpair", path)
    assert "round 3 was unpaired since: `undo` brings its pairings back, or `pair --system koth`" in refused(
        path, "pair", path
    )

    rr = tmp_path / "rr.toml"
    rr_division = ev.Division("A", system=ev.PairingSystem.ROUND_ROBIN, scored=ev.ScoredSettings())
    ev.create(rr, ev.Event(name="R", divisions=[rr_division]))
    for i in range(1, 5):

        def enter_rr(e: ev.Event, i: int = i) -> list[str]:
            return ev.add_player(e, e.division(), ev.Player(i, f"P{i}, X"))

        ev.apply(rr, enter_rr)
    ev.apply(rr, lambda e: sc.set_off(e.division(), e.division().player(4), -75, []))
    ev.apply(rr, lambda e: ev.pair(e, e.division()))
    board = next(b for b in ev.load(rr).division().round(1).boards if 4 in (b.white, b.black))
    assert board.result in ("+-", "-+") and sorted(board.scores or ()) == [-75, 50]


def test_t_file_import_of_the_seed_example(tmp_path: Path) -> None:
    lines = [
        "Chew, John   1850 400 450 350; 2 3 4; p12 1 2 2; board 1 1 2",
        "Two, A 1500 380 50 300; 1 0 3; p12 2 0 1; board 1 0 1",
        "Three, B 1400 300 420 360; 4 1 2; p12 1 1 2; board 2 1 1",
        "Four, C 1300 310 -50 370; 3 0 1; p12 2 0 1; board 2 0 2; off -50",
    ]
    source = tmp_path / "a.t"
    source.write_text("\n".join(lines) + "\n")
    path = tmp_path / "a.toml"
    ok("import-t", path, source)
    d = ev.load(path).division()
    assert d.scored is not None and d.scored.track_firsts and d.player(4).status == "withdrawn"
    r2 = d.round(2)
    assert [(b.white, b.black, b.scores) for b in r2.boards] == [(3, 1, (420, 450))]
    assert bye_spread(d, r2, 2) == 50 and bye_spread(d, r2, 4) == -50
    assert [(b.white, b.black) for b in d.round(3).boards] == [(2, 3), (4, 1)]
    ok("export-t", path, tmp_path / "b.t")
    assert tsh.read(tmp_path / "b.t") == tsh.read(source)


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("1850", "-5", "line of player 1: rating: -5 is not a rating: 0 (unrated) or 100-3500"),
        ("Chew, John", "Chew,\x1b[31m John", r"line of player 1: name: holds a control character (U+001B): 'Chew,"
                                              r"\x1b[31m John' (names hold printable characters only)"),
        ("class B", "class B; team T\x1b", "line of player 3: team: holds a control character (U+001B)"),
        # Codes of rounds the player did not play were dropped: export-t wrote the line back without them.
        ("p12 1\n", "p12 1 1 1\n", "line of player 1: p12: 1 for round 2, in which the player has no opponent "
                                   "(one p12 value per round played, or give the round's opponent, 0 for a bye)"),
        ("; p12 2\n", "; p12 2; board 1 4\n", "line of player 2: board: 4 for round 2, in which the player"),
    ],
)
def test_a_t_file_player_no_event_may_hold_is_refused_naming_its_line(
    tmp_path: Path, old: str, new: str, says: str
) -> None:
    """A rating out of range or a control character in a name was refused naming the event file import-t was to
    write, and its field ('x.toml: division[1].player[1].rating: …'), a file the arbiter never saw."""
    source = tmp_path / "x.t"
    source.write_text("Chew, John 1850 400; 2; p12 1\nTwo, A 1500 380; 1; p12 2\nThree, B 1400 50; 0; class B\n"
                      .replace(old, new))  # fmt: skip
    path = tmp_path / "x.toml"
    done = run_cli("event", "import-t", path, source)
    assert done.returncode == 2 and done.stderr.startswith(f"tmanager: {source}: {says}"), done.stderr
    assert len(done.stderr.splitlines()) == 1 and not path.exists()


def test_chess_events_refuse_scored_settings(tmp_path: Path) -> None:
    text = '[event]\nname = "C"\n\n[[division]]\nname = "A"\nbye_spread = 50\n'
    with pytest.raises(ConfigError, match="bye_spread needs entry"):
        ev.loads(text)
    with pytest.raises(ConfigError, match="'koth' is not a pairing system"):
        ev.loads('[event]\nname = "C"\n\n[[division]]\nname = "A"\nsystem = "koth"\n')


#: A division as tsh keeps it: the manual's example line (player 1, as written there), then lines in the form
#: tmanager writes. Round 2 has a forfeit between 2 and 5 (opponent 0 for both, one board), a bye (7), a forfeit
#: loss without an opponent (10) and boards 1, 2, 4, 5; round 4 is pending with p12 3 (to be drawn), 4 (not known
#: yet), 1/2 (assigned) and 0; player 10 is off with 0 from round 3; some lines carry fields tmanager only keeps.
TSH_LINES = [
    "Chew, John   1850 400 450 350; 10 4 3; p12 1 2 2; board 1 1 3",
    "Two, A 1500 380 50 300; 9 0 4 3; p12 1 0 1 3; board 2 2 1 1; lifeg 120; rcrating 1520; newr 1533",
    "Three, B 1400 420 399 360; 8 6 1 2; p12 1 1 1 3; board 3 4 3 1; password pw3",
    "Four, C 1300 410 380 500; 7 1 2 5; p12 1 1 2 4; board 4 1 1 2; class B; team NYC; newr 1400 1410 1420",
    "Five, D 1250 333 -50 390; 6 0 6 4; p12 1 0 2 4; board 5 2 2 2",
    "Six, E 1200 444 401 380; 5 3 5 7; p12 2 2 1 1; board 5 4 2 3",
    "Seven, F 1150 410 50 370; 4 0 8 6; p12 2 0 1 2; board 4 0 4 3",
    "Eight, G 1100 300 360 371; 3 9 7 9; p12 2 2 2 0; board 3 5 4 5",
    "Nine, H 1050 390 365 50; 2 8 0 8; p12 2 1 0 0; board 2 5 0 5",
    "Ten, J 1000 350 -50 0 0; 1 0 0 0; p12 2 0 0 0; board 1 0 0 0; off 0",
]


def test_t_file_round_trip_keeps_boards_forfeits_p12_and_extensions(tmp_path: Path) -> None:
    source = tmp_path / "a.t"
    source.write_text("\n".join(TSH_LINES) + "\n")
    path = tmp_path / "a.toml"
    ok("import-t", path, source, "--rounds", "6")
    ok("export-t", path, tmp_path / "b.t")
    written = (tmp_path / "b.t").read_text().splitlines()
    assert written[1:] == TSH_LINES[1:]  # the lines in tmanager's form come back byte for byte
    assert written[0] == "Chew, John 1850 400 450 350; 10 4 3; p12 1 2 2; board 1 1 3"  # spaces normalised
    assert tsh.read(tmp_path / "b.t") == tsh.read(source)

    d = ev.load(path).division()
    r2 = d.round(2)
    # The forfeit is one board between its two players, the winner first; the lone -50 is a forfeit loss.
    assert [(b.white, b.black, b.result, b.scores) for b in r2.boards] == [
        (4, 1, "0-1", (380, 450)), (2, 5, "+-", (50, -50)), (3, 6, "0-1", (399, 401)), (9, 8, "1-0", (365, 360)),
    ]  # fmt: skip
    assert r2.byes == {7: "full", 10: "forfeit"}
    assert [r2.board_number(b) for b in r2.boards] == [1, 2, 4, 5]
    assert d.player(2).extensions == [("lifeg", "120"), ("rcrating", "1520"), ("newr", "1533")]
    pairings = ok("pairings", path, "--round", "2")
    rows = [line.split()[:2] for line in pairings.splitlines()[4:8]]
    assert [r[0] for r in rows] == ["1", "2", "4", "5"]
    assert "+- (+50 -50)" in pairings and "bye: Seven, F (7), spread +50" in pairings
    assert "forfeit loss: Ten, J (10), spread -50" in pairings
    # Player 10: a lost game, a forfeit loss, then two rounds off at 0 that count neither way.
    line = next(x for x in ok("standings", path).splitlines() if "Ten, J" in x)
    assert line.split()[6:9] == ["0", "2", "-100"]

    # Round 4 by its own board numbers: board 5 is 8 v 9 (entered in board order), and there is no board 4.
    assert "there is no single board 4" in refused(path, "result", path, "4", "400", "390", "--round", "4")
    assert "round 4 board 5: Eight, G (8)" in ok("result", path, "5", "400", "390", "--round", "4")
    ok("export-t", path, tmp_path / "c.t")
    eight = tsh.read(tmp_path / "c.t")[7]
    assert eight.card.scores[3] == 400 and eight.card.p12 == (2, 2, 2, 1) and eight.boards == (3, 5, 4, 5)


def test_hand_written_t_file_comes_back_equal(tmp_path: Path) -> None:
    """Another field order and spacing: what comes back is the same data, written in tmanager's form."""
    hand = [
        "Chew, John   1850 400 450 350 ; 10 4 3 ; board 1 1 3; p12 1 2 2",
        *TSH_LINES[1:3],
        "Four, C  1300  410 380 500; 7 1 2 5; newr 1400 1410 1420; team NYC; class B; board 4 1 1 2; p12 1 1 2 4",
        *TSH_LINES[4:],
    ]
    source = tmp_path / "h.t"
    source.write_text("\n\n".join(hand) + "\n")
    path = tmp_path / "h.toml"
    ok("import-t", path, source)
    ok("export-t", path, tmp_path / "out.t")
    assert tsh.read(tmp_path / "out.t") == tsh.read(source)
    assert (tmp_path / "out.t").read_text().splitlines()[3] == (
        "Four, C 1300 410 380 500; 7 1 2 5; p12 1 1 2 4; board 4 1 1 2; class B; team NYC; newr 1400 1410 1420"
    )


def test_dry_run_pairs_the_tsh_way_and_export_trf_refuses(tmp_path: Path) -> None:
    path = tmp_path / "d.toml"
    ok("new", path, "--name", "D", "--rounds", "4", "--entry", "both", "--set", "system=koth",
       "--set", "track_firsts=true", "--set", "assign_firsts=true")  # fmt: skip
    for i in range(1, 6):
        ok("add-player", path, f"P{i}, X", "--rating", str(2000 - 100 * i))
    before = path.read_bytes()
    out = ok("dry-run", path, "--seed", "3")
    assert path.read_bytes() == before and "dry run only" in out
    # KOTH by the standings, firsts assigned, one +50 bye a round; scores-style reports (wins, losses, spread).
    assert "round 1 paired (koth from the standings after round 0): 2 board(s); byes: P5, X (5) (+50)" in out
    assert out.count("Rk  No  Name    Rtg  W  L  Spread    Avg  OppAvg  1st  2nd") == 4
    assert "Bd  No  First" in out and "White" not in out and "bye: " in out
    tables = out.split("standings after round 4")[1]
    wins = [float(line.split()[5].replace("½", ".5")) for line in tables.splitlines()[4:9]]
    assert sum(wins) == 8 + 4  # eight games and four byes of +50 were won (ties count ½ each side)
    assert out == ok("dry-run", path, "--seed", "3")  # repeatable with a seed

    # TRF is for chess: refused in one line that points to export-t, and nothing is written.
    message = refused(path, "export-trf", path, tmp_path / "d.trf")
    assert "score-based: TRF is for chess divisions" in message and "export-t" in message
    assert not (tmp_path / "d.trf").exists()
