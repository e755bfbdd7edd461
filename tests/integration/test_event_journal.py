"""The journal beside an event: compact (deltas between whole copies), and undo exact through all of it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tmanager.errors import ConfigError
from tmanager.events import api as ev
from tmanager.events import journal


def grow(path: Path, players: int) -> list[str]:
    """An event file after each of ``players`` additions and a rating change each; every text the file had."""
    ev.create(path, ev.Event(name="Journal Open", rounds=9, divisions=[ev.Division("main")]))
    texts = [path.read_text(encoding="utf-8")]
    for i in range(1, players + 1):
        player = ev.Player(i, f"Player{i:03d}, Test", rating=1500 + 7 * i)

        def enter(e: ev.Event, player: ev.Player = player) -> list[str]:
            return ev.add_player(e, e.division(), player)

        def rate(e: ev.Event, i: int = i) -> list[str]:
            return ev.edit_player(e.division(), e.division().player(i), {"rating": 1400 + i})

        ev.apply(path, enter)
        texts.append(path.read_text(encoding="utf-8"))
        ev.apply(path, rate)
        texts.append(path.read_text(encoding="utf-8"))
    return texts


def test_entries_are_deltas_between_whole_copies_and_undo_restores_every_version(tmp_path: Path) -> None:
    path = tmp_path / "open.toml"
    texts = grow(path, 60)
    entries = sorted(e for e in journal.journal_dir(path).iterdir() if e.suffix in (".toml", ".delta"))
    whole = [e for e in entries if e.suffix == ".toml"]
    assert len(entries) == 120
    assert [e.name for e in whole] == ["open.0001.toml", "open.0051.toml", "open.0101.toml"]
    copies = sum(len(t.encode()) for t in texts[:-1])
    kept = sum(e.stat().st_size for e in entries)
    assert kept * 10 < copies, f"the journal keeps {kept} bytes for {copies} bytes of versions"
    # Back through every version, whole copies and deltas alike: the command line's undo, then the API's.
    for _ in range(3):
        assert run_cli("event", "undo", path).returncode == 0
        texts.pop()
        assert path.read_text(encoding="utf-8") == texts[-1]
    while len(texts) > 1:
        ev.undo(path)
        texts.pop()
        assert path.read_text(encoding="utf-8") == texts[-1]
    done = run_cli("event", "undo", path)
    assert done.returncode == 2 and "nothing to undo" in done.stderr


def test_a_journal_of_whole_copies_is_compacted_at_the_next_change(tmp_path: Path) -> None:
    """A journal written before deltas (every entry a whole .toml) shrinks, and undo still goes through it."""
    path = tmp_path / "old.toml"
    texts = grow(path, 8)
    directory = journal.journal_dir(path)
    for entry in sorted(directory.glob("old.*.delta")):  # back to the old layout: every entry whole
        index = int(entry.stem.split(".")[-1]) - 1
        entry.with_suffix(".toml").write_text(texts[index], encoding="utf-8")
        entry.unlink()
    assert len(list(directory.glob("old.*.toml"))) == 16
    ev.apply(path, lambda e: ev.withdraw(e.division(), e.division().player(3)))
    texts.append(path.read_text(encoding="utf-8"))
    assert [e.name for e in sorted(directory.glob("old.*.toml"))] == ["old.0001.toml"]
    while len(texts) > 1:
        ev.undo(path)
        texts.pop()
        assert path.read_text(encoding="utf-8") == texts[-1]


def test_a_hand_edit_between_changes_is_undone_exactly(tmp_path: Path) -> None:
    path = tmp_path / "hand.toml"
    texts = grow(path, 3)
    edited = texts[-1].replace('name = "Player002, Test"', 'name = "Player002, Edited"')
    path.write_text(edited, encoding="utf-8")
    ev.apply(path, lambda e: ev.withdraw(e.division(), e.division().player(1)))
    ev.undo(path)
    assert path.read_text(encoding="utf-8") == edited
    ev.undo(path)
    assert path.read_text(encoding="utf-8") == texts[-2]


def test_a_damaged_delta_is_one_line_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    grow(path, 2)
    before = path.read_bytes()
    last = sorted(journal.journal_dir(path).glob("bad.*.delta"))[-1]
    last.write_text("not json\n", encoding="utf-8")
    done = run_cli("event", "undo", path)
    assert done.returncode == 2
    assert done.stderr.strip() == f"tmanager: {last}: is not a journal delta (restore it from a backup or remove it)"
    assert path.read_bytes() == before


def test_undo_says_what_it_undid(tmp_path: Path) -> None:
    path = tmp_path / "said.toml"
    for verb in (("new", "--name", "Said", "--rounds", "5"), ("add-player", "Kuiper, Jan", "--rating", "2100"),
                 ("add-player", "Bakker, Sanne"), ("edit-player", "Kuiper", "--rating", "2150")):  # fmt: skip
        assert run_cli("event", verb[0], path, *verb[1:]).returncode == 0
    said = run_cli("event", "undo", path).stdout.strip()
    assert said == "restored the version before change 3 (2 earlier version(s) left); it undid: changed rating of " \
        "Kuiper, Jan (1)"
    said = run_cli("event", "undo", path).stdout.strip()
    assert said.endswith("it undid: added Bakker, Sanne (2), pairing rank 2 of 2 by rating")
    # A journal entry without a note (a hand edit's, or from an older tmanager): undo says it does not know.
    (journal.journal_dir(path) / "said.0001.note").unlink()
    said = run_cli("event", "undo", path).stdout.strip()
    assert said.endswith("it undid: a change that left no note (a hand edit, or made before notes were kept)")
    assert not list(journal.journal_dir(path).glob("*.note")), "each note goes with its change"


def test_a_file_where_the_journal_or_the_reports_go(tmp_path: Path) -> None:
    """`old` or `html` being a file (or a FIFO) ended a change or a report in a traceback; now one line, the
    event unchanged."""
    path = tmp_path / "open.toml"
    ev.create(path, ev.Event(name="Journal Open", rounds=5, divisions=[ev.Division("main")]))
    (tmp_path / "old").write_text("notes\n")
    before = path.read_bytes()
    done = run_cli("event", "add-player", path.name, "Kuiper, Jan", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        "tmanager: old: is not a directory but a regular file (move it away: tmanager keeps the journal of "
        "open.toml there)"
    ], done.stderr
    assert path.read_bytes() == before and (tmp_path / "old").read_text() == "notes\n"
    (tmp_path / "old").unlink()
    (tmp_path / "html").mkdir()
    os.mkfifo(tmp_path / "html" / "open")
    done = run_cli("event", "report", path.name, "-q", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        "tmanager: html/open: is not a directory but a FIFO (move it away: tmanager writes the reports of "
        "open.toml there)"
    ], done.stderr


def test_a_symbolic_link_to_the_event_is_written_through_and_journaled_beside_the_file(tmp_path: Path) -> None:
    """A change made through a link (``current.toml`` naming this month's event) replaced the link with a
    file of its own: the event itself kept its old content, and its journal went beside the link."""
    path = tmp_path / "events" / "spring.toml"
    path.parent.mkdir()
    ev.create(path, ev.Event(name="Spring Open", rounds=5, divisions=[ev.Division("main")]))
    link = tmp_path / "current.toml"
    link.symlink_to(path)
    assert run_cli("event", "add-player", link, "Kuiper, Jan").returncode == 0
    assert link.is_symlink() and "Kuiper, Jan" in path.read_text()
    assert sorted(f.name for f in journal.journal_dir(path).iterdir()) == ["spring.0001.note", "spring.0001.toml"]
    assert not (tmp_path / "old").exists()
    assert run_cli("event", "undo", link).returncode == 0
    assert link.is_symlink() and "Kuiper" not in path.read_text()


def test_undo_brings_a_deleted_event_file_back_from_its_journal(tmp_path: Path) -> None:
    """A change of a missing event file is refused before its lock is taken, but undo of a file deleted by
    mistake restores it from the journal: the version before the last change."""
    path = tmp_path / "open.toml"
    texts = grow(path, 2)
    path.unlink()
    done = run_cli("event", "undo", path)
    assert done.returncode == 0, done.stderr
    assert path.read_text(encoding="utf-8") == texts[-2]
    refused = run_cli("event", "undo", tmp_path / "other.toml")
    assert refused.returncode == 2 and "no such event file" in refused.stderr
    assert not (tmp_path / "other.toml.lock").exists()


def test_undo_lists_the_journal_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Undo reads the journal directory once, under the lock, for a file there or deleted alike (it listed it
    twice: once before the lock, to decide whether a missing file could be restored, and again under it)."""
    path = tmp_path / "open.toml"
    texts = grow(path, 2)
    directory = journal.journal_dir(path)
    listings: list[Path] = []
    iterdir = Path.iterdir

    def counted(self: Path) -> Iterator[Path]:
        if self == directory:
            listings.append(self)
        return iterdir(self)

    monkeypatch.setattr(Path, "iterdir", counted)
    ev.undo(path)
    assert len(listings) == 1 and path.read_text(encoding="utf-8") == texts[-2]
    path.unlink()
    listings.clear()
    ev.undo(path)
    assert len(listings) == 1 and path.read_text(encoding="utf-8") == texts[-3]
    with pytest.raises(ConfigError, match="no such event file"):
        ev.undo(tmp_path / "other.toml")
    assert not (tmp_path / "other.toml.lock").exists()
