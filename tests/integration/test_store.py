"""The tourney file and its journal: changes in place, checkpoints, stale saves, hand edits, old layouts."""

from __future__ import annotations

import dataclasses
import errno
import fcntl
import json
import logging
import os
import random
import re
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.integration.test_tourney_file import PARTICIPANTS
from tmanager import files
from tmanager.core.schedule import SwissSchedule
from tmanager.errors import ConfigError, FileExists
from tmanager.tourney import store
from tmanager.tourney.engines import Protocol
from tmanager.tourney.journal import JournalReader
from tmanager.tourney.model import DRAW, WHITE_WINS, Claim, Participant, PendingHook, Settings, Tourney, TourneyType
from tmanager.tourney.resultchanges import changed_results
from tmanager.tourney.tallies import game_results, pair_counts

GOOD = '# my comment\n[tourney]\nname = "t"\nnodes = 100\ncycles = 3\n' + PARTICIPANTS


def claim(number: int) -> Claim:
    return Claim(host="h", pid=1, started=1.0, claimed=2.0, heartbeat=3.0, pgn_offset=7)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(GOOD)
    with store.transaction(path):
        pass  # the first transaction gives the file its layout and its journal
    return path


def journal_lines(path: Path) -> int:
    return len(store.journal_path(path).read_bytes().splitlines())


def test_a_claim_and_a_record_change_the_file_in_place(path: Path) -> None:
    before = path.stat()
    lines = journal_lines(path)
    with store.transaction(path) as tourney:
        tourney.set_result(4, "*")
        tourney.claims[4] = claim(4)
    with store.transaction(path) as tourney:
        tourney.set_result(4, "=")
        tourney.hooks["after_game:4"] = PendingHook("after_game", "echo", {"TMANAGER_GAME": "4"}, game=4)
    after = path.stat()
    assert (after.st_ino, after.st_size) == (before.st_ino, before.st_size)  # rewritten in place, not replaced
    assert journal_lines(path) == lines + 2
    text = path.read_text()
    assert text.startswith("# my comment\n")
    assert re.search(r'^results = "    = *"\n$', text, re.MULTILINE)
    tourney = store.read(path)
    assert tourney.results == "    =" and tourney.claims == {}
    assert tourney.hooks["after_game:4"].env == {"TMANAGER_GAME": "4"}
    assert tourney.version == 3


@pytest.mark.parametrize("recorded", ["nothing", "a result", "a claim", "a hook"])
def test_only_a_file_where_nothing_was_recorded_is_removed(path: Path, recorded: str) -> None:
    with store.transaction(path) as tourney:
        if recorded == "a result":
            tourney.set_result(2, "=")
        elif recorded == "a claim":
            tourney.set_result(2, "*")
            tourney.claims[2] = claim(2)
        elif recorded == "a hook":
            tourney.hooks["after_game:2"] = PendingHook("after_game", "echo", {}, game=2)
    removed = store.remove_unplayed(path)
    assert removed == (recorded == "nothing")
    assert path.exists() != removed and store.journal_path(path).exists() != removed
    assert files.lock_path(path).exists() != removed


def test_a_file_system_without_flock_is_told_in_one_line(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lustre mounted noflock answers flock with ENOSYS. No such file system mounts here, so flock answers as it
    would: filelock's soft fallback is off with on_acquired (filelock 4.3), and the line says what to do, not
    merely "function not implemented"."""
    def no_flock(fd: int, operation: int) -> None:
        raise OSError(errno.ENOSYS, os.strerror(errno.ENOSYS))

    monkeypatch.setattr(fcntl, "flock", no_flock)
    with pytest.raises(ConfigError) as raised, files.lock(path):
        pass
    assert str(raised.value) == (
        f"{files.lock_path(path)}: cannot take the lock: this file system does not lock files (function not "
        "implemented) (tmanager locks with flock: keep the tourney's directory on a local disk, or on a network "
        "file system mounted with locking)"
    )


def test_a_lock_file_removed_while_another_waits_leaves_it_the_lock_of_the_file_now_there(path: Path) -> None:
    """The waiter takes the lock on the file the path names afterwards, not on the removed one: a third process
    opening the path must find it locked."""
    lock_file = files.lock_path(path)
    waiting, held, done = threading.Event(), threading.Event(), threading.Event()
    found: list[bool] = []

    def waiter() -> None:
        waiting.set()
        with files.lock(path):
            with lock_file.open("a") as third:
                try:
                    fcntl.flock(third, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    found.append(False)
                except BlockingIOError:
                    found.append(True)
            held.set()
            done.wait()

    with files.lock(path):
        thread = threading.Thread(target=waiter)
        thread.start()
        waiting.wait()
        files.remove_lock_file(path)
    held.wait()
    done.set()
    thread.join()
    assert found == [True] and lock_file.exists()


def test_claims_and_hooks_live_in_the_journal(path: Path) -> None:
    with store.transaction(path) as tourney:
        tourney.set_result(0, "*")
        tourney.claims[0] = claim(0)
    assert "claims" not in path.read_text()
    assert store.read(path).claims == {0: claim(0)}


def test_a_settings_change_is_a_checkpoint(path: Path) -> None:
    inode = path.stat().st_ino
    with store.transaction(path) as tourney:
        tourney.set_result(0, "+")
        tourney.count_fault("A", "crash")
    assert path.stat().st_ino != inode
    assert journal_lines(path) == 1
    tourney = store.read(path)
    assert tourney.faults == {"A": {"crash": 1}} and tourney.results == "+"


def test_an_editor_saving_a_stale_copy_is_merged_not_obeyed(path: Path, caplog: pytest.LogCaptureFixture) -> None:
    stale = path.read_text()
    for number, result in [(0, "+"), (1, "="), (2, "*")]:
        with store.transaction(path) as tourney:
            tourney.set_result(number, result)
            if result == "*":
                tourney.claims[number] = claim(number)
    # The editor saves its whole buffer: the user's change above, the owned part as it was.
    path.write_text(stale.replace("nodes = 100", "nodes = 200 # faster"))
    with caplog.at_level(logging.WARNING), store.transaction(path) as tourney:
        assert tourney.results == "+=*" and 2 in tourney.claims
        assert tourney.settings.nodes == 200
    assert "stale copy" in caplog.text
    text = path.read_text()
    assert "nodes = 200 # faster" in text and re.search(r'^results = "\+=\* *"$', text, re.MULTILINE)
    assert store.read(path).results == "+=*"


def test_a_stale_copy_from_before_a_checkpoint_is_merged_too(path: Path) -> None:
    stale = path.read_text()
    with store.transaction(path) as tourney:
        tourney.set_result(0, "+")
        tourney.count_fault("B", "stall")  # a checkpoint
    with store.transaction(path) as tourney:
        tourney.set_result(1, "-")
    path.write_text(stale)
    tourney = store.read(path)
    assert tourney.results == "+-" and tourney.faults == {"B": {"stall": 1}}


def test_a_hand_edit_of_the_results_stands(path: Path) -> None:
    for number in range(3):
        with store.transaction(path) as tourney:
            tourney.set_result(number, "+")
    text = path.read_text()
    path.write_text(text.replace('results = "+++', 'results = "+ +', 1))  # replay game 1, as in XBoard
    with store.transaction(path) as tourney:
        assert tourney.results == "+ +"
        tourney.set_result(3, "=")
    assert store.read(path).results == "+ +="


def test_a_write_cut_off_between_journal_and_file_is_completed(path: Path) -> None:
    before = path.read_bytes()
    with store.transaction(path) as tourney:
        tourney.set_result(0, "=")
    path.write_bytes(before)  # as if killed after the journal line, before the file was changed
    assert store.read(path).results == "="


def test_the_participants_cannot_be_changed_by_hand_once_results_exist(path: Path) -> None:
    with store.transaction(path) as tourney:
        tourney.set_result(0, "+")
    text = path.read_text()
    path.write_text(text.replace('name = "B"', 'name = "B2"', 1))
    done = run_cli("status", path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "participants: the participants differ from those the results were recorded with (A, B, C)" in done.stderr
    assert "tmanager substitute" in done.stderr


def test_a_file_of_an_older_layout_is_read_and_rewritten_once(tmp_path: Path) -> None:
    path = tmp_path / "old.toml"
    path.write_text(
        GOOD + '\n[claims]\n1 = { host = "h", pid = 1, started = 1.0, claimed = 2.0, heartbeat = 3.0 }\n'
        '\n[progress]\nresults = "+*"\n'
    )
    tourney = store.read(path)
    assert tourney.results == "+*" and tourney.claims[1].pid == 1
    with store.transaction(path) as tourney:
        tourney.set_result(2, "=")
    text = path.read_text()
    assert "[claims]" not in text and "version = " in text
    tourney = store.read(path)
    assert tourney.results == "+*=" and tourney.claims[1].pid == 1


def test_a_lost_journal_leaves_the_file_in_charge(path: Path) -> None:
    with store.transaction(path) as tourney:
        tourney.set_result(0, "-")
    store.journal_path(path).unlink()
    assert store.read(path).results == "-"
    with store.transaction(path) as tourney:
        tourney.set_result(1, "+")
    assert store.read(path).results == "-+" and store.journal_path(path).exists()


def test_results_changed_are_found_wherever_they_are() -> None:
    rng = random.Random(7)
    for _ in range(300):
        before = "".join(rng.choice("+-=* ") for _ in range(rng.randint(0, 5000))).rstrip()
        after = list(before.ljust(len(before) + rng.randint(0, 40)))
        for _ in range(rng.randint(0, 4)):
            if after:
                after[rng.randrange(len(after))] = rng.choice("+-=* ")
        changed = "".join(after).rstrip()
        length = max(len(before), len(changed))
        expected = {
            i: b for i, (a, b) in enumerate(zip(before.ljust(length), changed.ljust(length), strict=True)) if a != b
        }
        assert changed_results(before, changed) == expected


def test_results_changed_in_a_long_string_are_found_in_every_block() -> None:
    # Long enough for several blocks of the comparison; changes at block edges, claims after the last
    # game played and releases of it (told apart by one comparison), and strings that shrink or grow.
    rng = random.Random(11)
    length = 3 * (1 << 16) + 5
    for _ in range(40):
        before = "".join(rng.choices("+-=* ", k=length)).rstrip()
        after = list(before)
        edges = [(1 << 16) - 1, 1 << 16, (1 << 16) + 1, 2 << 16, len(before) - 1, 0]
        for number in rng.sample(edges, rng.randint(0, 3)) + [rng.randrange(length) for _ in range(rng.randint(0, 3))]:
            if number < len(after):
                after[number] = rng.choice("+-=* ")
        change = rng.choice(["claim", "release", "none"])
        if change == "claim":
            after += [" "] * rng.randint(0, 3) + [rng.choice("+-=*")]
        elif change == "release" and after:
            after.pop()
        changed = "".join(after).rstrip()
        length_both = max(len(before), len(changed))
        expected = {
            i: b for i, (a, b) in enumerate(zip(before.ljust(length_both), changed.ljust(length_both), strict=True))
            if a != b
        }
        assert changed_results(before, changed) == expected


def test_set_result_pads_replaces_and_trims_the_results_string() -> None:
    tourney = Tourney(Path("t.toml"), Settings(), [])
    rng = random.Random(5)
    for _ in range(3000):
        results = "".join(rng.choices("+-=* ", k=rng.randint(0, 12)))
        number, char = rng.randint(0, 15), rng.choice("+-=* ")
        padded = results.ljust(number + 1)
        tourney.results = results
        tourney.set_result(number, char)
        assert tourney.results == (padded[:number] + char + padded[number + 1 :]).rstrip()
    for wrong in ("", "+-", "x"):  # neither nothing nor two results: every later game would move
        with pytest.raises(ValueError):
            tourney.set_result(2, wrong)


@pytest.mark.parametrize("kind", ["round-robin", "gauntlet", "swiss"])
def test_pair_counts_equal_counting_game_by_game(kind: TourneyType) -> None:
    rng = random.Random(kind)
    for _ in range(60):
        players = rng.randint(3, 7)
        games = rng.randint(1, 3)
        settings = Settings(type=kind, games_per_pairing=games, cycles=rng.randint(1, 4),
                            gauntlet_seeds=rng.randint(1, players - 1), swiss_rounds=players - 1)
        tourney = Tourney(Path("t.toml"), settings, [Participant(f"p{i}", cmd="x", protocol=Protocol.UCI)
                                                     for i in range(players)])
        schedule = tourney.schedule()
        if isinstance(schedule, SwissSchedule):  # pair every round at random
            for _round in range(schedule.total_rounds):
                order = rng.sample(range(players), players)
                tourney.swiss.append([(order[i], order[i + 1]) for i in range(0, players - 1, 2)])
        total = tourney.schedule().total_games
        tourney.results = "".join(rng.choice("+-=* ") for _ in range(rng.randint(0, total))).rstrip()
        expected: dict[tuple[int, int], list[int]] = {}
        for game, char in tourney.finished_games():
            counts = expected.setdefault((game.white, game.black), [0, 0, 0])
            counts[0 if char == WHITE_WINS else 1 if char == DRAW else 2] += 1
        assert {k: list(v) for k, v in pair_counts(tourney).items() if sum(v)} == expected


def test_write_at_leaves_a_file_changed_since_it_was_read_alone(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"version = 1 \nresults = \"  \"\n")
    assert files.write_at(path, [(10, b"1", b"2"), (24, b" ", b"*")], durable=False)
    assert path.read_bytes() == b"version = 2 \nresults = \"* \"\n"
    path.write_bytes(b"# an edit\nversion = 2 \nresults = \"* \"\n")  # saved in place: the offsets moved
    assert not files.write_at(path, [(10, b"2", b"3"), (24, b"*", b"=")], durable=False)
    assert path.read_bytes() == b"# an edit\nversion = 2 \nresults = \"* \"\n"


def test_a_large_tourneys_crosstable_counted_per_pair_equals_the_game_by_game_one() -> None:
    from tmanager.core import crosstable
    from tmanager.tourney.tallies import GAME_BY_GAME

    rng = random.Random(17)
    for players in (2, 5):
        settings = Settings(games_per_pairing=2, cycles=GAME_BY_GAME // (players * (players - 1)) + 50)
        tourney = Tourney(Path("big.toml"), settings, [Participant(f"p{i}", cmd="x", protocol=Protocol.UCI)
                                                       for i in range(players)])
        weights = [0.45, 0.35, 0.2] if players == 2 else [0.4, 0.2, 0.4]
        tourney.results = "".join(rng.choices("+=-", weights, k=tourney.schedule().total_games - 7))
        assert tourney.finished_count > GAME_BY_GAME
        counted = tourney.crosstable()
        by_game = crosstable.build(game_results(tourney), title=tourney.settings.name)
        assert [(line.standing.name, line.standing.points, line.standing.total) for line in counted.lines] == [
            (line.standing.name, line.standing.points, line.standing.total) for line in by_game.lines
        ]
        assert [line.elo for line in counted.lines] == pytest.approx([line.elo for line in by_game.lines])
        if players == 2:
            assert counted.match is not None and by_game.match is not None
            assert (counted.match.first, counted.match.stats.penta, counted.match.unpaired) == (
                by_game.match.first, by_game.match.stats.penta, by_game.match.unpaired)


def test_edit_and_substitute_keep_the_comments_of_the_settings(path: Path) -> None:
    text = path.read_text().replace("cycles = 3", "cycles = 3  # three times around")
    path.write_text(text.replace('[[participants]]\nname = "C"', '# the newcomer\n[[participants]]\nname = "C"', 1))
    assert run_cli("edit", path, "--set", "cycles=4").returncode == 0
    done = run_cli("substitute", path, "C", "random-uci", "--upgrade")
    assert done.returncode == 0, done.stderr
    text = path.read_text()
    assert text.startswith("# my comment\n") and "cycles = 4  # three times around\n" in text
    assert "# the newcomer\n" in text and 'engine = "random-uci"' in text


def test_a_journal_that_reuses_the_inode_of_the_one_it_replaced_is_read_afresh(
    path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A checkpoint replaces the journal and the file (new files renamed over them), and file systems such
    # as ext4 give new files the inode numbers just freed: after three checkpoints by another process,
    # the journal has the inode this process read last, here. It is told by its first line too.
    other = textwrap.dedent(f"""
        from pathlib import Path
        from tmanager.tourney import store
        from tmanager.tourney.model import Claim
        path = Path({str(path)!r})
        for _ in range(3):
            with store.transaction(path) as tourney:
                tourney.count_fault("A", "crash")  # a checkpoint: a new journal
        for beat in range(20):  # past where the first process stopped reading the journal before
            with store.transaction(path) as tourney:
                tourney.set_result(1, "*")
                tourney.claims[1] = Claim(host="h", pid=1, started=1.0, claimed=2.0, heartbeat=beat, pgn_offset=7)
    """)
    for _ in range(3):
        with store.transaction(path) as tourney:
            tourney.set_result(0, "*")
            tourney.claims[0] = claim(0)
        assert store.read(path).claims == {0: claim(0)}  # this process has read the journal to its end
        subprocess.run([sys.executable, "-c", other], check=True)
        tourney = store.read(path)
        assert tourney.claims == {0: claim(0), 1: dataclasses.replace(claim(1), heartbeat=19.0)}
        assert not caplog.records, caplog.text  # neither an unreadable line nor a "hand edit"
        assert tourney.faults["A"]["crash"] % 3 == 0
        with store.transaction(path) as tourney:
            tourney.claims.clear()
            tourney.set_result(0, " ")
            tourney.set_result(1, " ")


FRESH_READ = """
import json, sys
from pathlib import Path
from tmanager.tourney import store
from tmanager.tourney.journal import JournalReader
tourney = store.read(Path(sys.argv[1]))
print(json.dumps([tourney.results, sorted(tourney.claims), tourney.version]))
"""


def fresh_read(path: Path) -> list[object]:
    """What a process that has read nothing before makes of the file and its journal."""
    done = subprocess.run([sys.executable, "-c", FRESH_READ, str(path)], capture_output=True, text=True, check=True)
    return list(json.loads(done.stdout))


def test_processes_taking_turns_read_each_others_changes(path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # This process folds the journal lines it appends into what it has read, results string included;
    # the lines of another process must still be read, and the results decoded again when they change.
    other = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from tmanager.tourney import store
        from tmanager.tourney.model import Claim
        path, number, char = Path({str(path)!r}), int(sys.argv[1]), sys.argv[2]
        with store.transaction(path) as tourney:
            tourney.set_result(number, char)
        with store.transaction(path) as tourney:  # a line of claims only: the results string stands
            tourney.claims[number] = Claim(host="o", pid=2, started=1.0, claimed=2.0, heartbeat=3.0, pgn_offset=0)
    """)
    expected = [" "] * 18
    for turn in range(6):
        mine, theirs = 3 * turn, 3 * turn + 1
        with store.transaction(path) as tourney:
            tourney.set_result(mine, "+")
            tourney.set_result(mine + 2, "*")
            tourney.claims[mine + 2] = claim(mine + 2)
            if turn:
                tourney.set_result(mine - 1, " ")  # the game claimed last turn, released (its claim dropped)
        expected[mine], expected[mine + 2] = "+", "*"
        if turn:
            expected[mine - 1] = " "
        assert store.read(path).results == "".join(expected).rstrip()
        subprocess.run([sys.executable, "-c", other, str(theirs), "=-"[turn % 2]], check=True)
        expected[theirs] = "=-"[turn % 2]
        tourney = store.read(path)
        claimed = sorted({mine + 2, *range(1, theirs + 1, 3)})
        assert [tourney.results, sorted(tourney.claims), tourney.version] == fresh_read(path)
        assert tourney.results == "".join(expected).rstrip() and sorted(tourney.claims) == claimed
        assert re.search(f'^results = "{re.escape(tourney.results)} *"$', path.read_text(), re.MULTILINE)
    assert not caplog.records, caplog.text


def test_a_line_cut_off_in_the_journal_is_cut_off_before_the_next(
    path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A writer cut off mid-line (a power cut) leaves a fragment. Glued to it, the next line would be
    # unreadable, and its claim, which lives only in the journal, lost; this process, which folds its
    # own lines in without reading them back, would not even see it.
    with store.transaction(path) as tourney:
        tourney.set_result(0, "+")
    with store.journal_path(path).open("ab") as journal:
        journal.write(b'{"v": 3, "results": {"5": "=')
    with store.transaction(path) as tourney:
        tourney.set_result(1, "*")
        tourney.claims[1] = claim(1)
    tourney = store.read(path)
    assert [tourney.results, sorted(tourney.claims), tourney.version] == fresh_read(path) == ["+*", [1], 3]
    assert store.journal_path(path).read_bytes().endswith(b"\n") and not caplog.records, caplog.text


def test_a_symbolic_link_is_written_through_and_shares_the_files_lock_and_journal(path: Path, tmp_path: Path) -> None:
    """An edit through a link replaced the link with a file of its own, and the tourney kept its old settings;
    with a lock of its own, a process using the link and one using the file could change it at once."""
    elsewhere = tmp_path / "links"
    elsewhere.mkdir()
    link = elsewhere / "current.toml"
    link.symlink_to(path)
    assert files.lock_path(link) == files.lock_path(path) and store.journal_path(link) == store.journal_path(path)
    assert run_cli("edit", link, "--set", "cycles=4").returncode == 0
    assert link.is_symlink() and store.read(path).settings.cycles == 4
    with store.transaction(link) as tourney:
        tourney.set_result(0, "+")
    assert link.is_symlink() and store.read(path).results.startswith("+")
    assert list(elsewhere.iterdir()) == [link]  # no lock nor journal beside the link


def test_a_journal_cut_by_hand_below_what_a_process_read_is_read_afresh(path: Path) -> None:
    # A heartbeat's line cut off by hand: the writer, which had read past the cut, went on after it (the
    # results are as the file has them, so that nothing else tells the cut). A reader that had read past it
    # too went on reading at its old offset, from the middle of a line: a claim made since was skipped as
    # unreadable (another worker took the game for free and played it again), and a claim given back since
    # stayed (`status` showed it, a test of CI saw it). It must read the journal afresh, as a new process does.
    with store.transaction(path) as tourney:
        tourney.set_result(0, "*")
        tourney.claims[0] = claim(0)
    cut = store.journal_path(path).stat().st_size
    with store.transaction(path) as tourney:
        tourney.claims[0] = dataclasses.replace(claim(0), heartbeat=4.0)
    other = JournalReader()  # another process's reading: a status, another worker
    assert other.read(path) is not None
    with files.lock(path), store.journal_path(path).open("r+b") as journal:
        journal.truncate(cut)
    for number in range(1, 6):
        with store.transaction(path) as tourney:
            tourney.set_result(number, "*")
            tourney.claims[number] = claim(number)
    seen, fresh = other.read(path), JournalReader().read(path)
    assert seen is not None and fresh is not None
    assert (seen.version, seen.parsed(path).results, seen.claims) == (
        fresh.version, fresh.parsed(path).results, fresh.claims
    )
    assert sorted(seen.claims) == [0, 1, 2, 3, 4, 5] and seen.parsed(path).results == "******"


def test_a_new_file_replaces_only_the_file_its_writer_saw(path: Path, tmp_path: Path) -> None:
    # `tmanager fastchess` writes a new test over its played-out one, and wrote it over whatever was there by
    # then: also over the test another run of the command had begun there since, and was playing.
    seen, tourney = store.Seen.now(path), store.read(path)
    with store.transaction(path) as other:  # another process records a game: in place, the same inode
        other.set_result(0, "=")
    with pytest.raises(FileExists, match=r"t\.toml: written by another process since it was read; run the"):
        store.write_new(tourney, overwrite=seen)
    assert store.read(path).results.rstrip() == "="
    store.write_new(tourney, overwrite=store.Seen.now(path))
    assert store.read(path).results.rstrip() == ""
    other_path = tmp_path / "other.toml"
    none_there = store.Seen.now(other_path)
    other_path.write_text(GOOD)
    with pytest.raises(FileExists):
        store.write_new(dataclasses.replace(tourney, path=other_path), overwrite=none_there)
    assert other_path.read_text() == GOOD
