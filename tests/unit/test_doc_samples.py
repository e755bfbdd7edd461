"""The sample output lines the docs show are the lines tmanager prints for the counts they show: the match
lines of docs/sprt.md, crosstable.md and fastchess.md (two were written before LOS, DrawRatio, PairsRatio and
WL/DD joined them) are regenerated here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tmanager.core import stats
from tmanager.core.crosstableformats import match_line

DOCS = Path(__file__).resolve().parents[2] / "docs"
_START = re.compile(r"^\s*\S+ vs \S+: \d+ games, W-D-L ")
_MATCH_LINE = re.compile(
    r"^\s*(?P<first>\S+) vs (?P<second>\S+): \d+ games, W-D-L (?P<w>\d+)-(?P<d>\d+)-(?P<l>\d+), .*"
    r"Ptnml\(0-2\) \[(?P<penta>[\d, ]+)\].*\[(?P<elo0>-?[\d.]+), (?P<elo1>-?[\d.]+)\]$"
)


def _sample_match_lines(page: Path) -> list[str]:
    """The page's match lines, each joined up where the page wraps it (an indented block's lines)."""
    samples: list[str] = []
    lines = iter(page.read_text(encoding="utf-8").splitlines())
    for line in lines:
        if _START.match(line):
            text = line.strip()
            while not text.endswith("]"):
                text += " " + next(lines).strip()
            samples.append(text)
    return samples


def _printed(sample: str) -> str:
    """What tmanager prints for the sample's counts; the double draws are what the W-D-L leaves for them."""
    m = _MATCH_LINE.match(sample)
    assert m is not None
    wins, draws, losses = int(m["w"]), int(m["d"]), int(m["l"])
    penta = [int(n) for n in m["penta"].split(",")]
    double_draws = (draws - penta[1] - penta[3]) // 2
    settings = stats.SprtSettings(elo0=float(m["elo0"]), elo1=float(m["elo1"]))
    match = stats.match_stats(wins, losses, draws, penta=penta, sprt_settings=settings, double_draws=double_draws)
    return match_line(m["first"], m["second"], match, settings)


@pytest.mark.parametrize(("page", "count"), [("sprt.md", 2), ("crosstable.md", 1), ("fastchess.md", 1)])
def test_the_match_lines_shown_are_what_run_prints(page: str, count: int) -> None:
    samples = _sample_match_lines(DOCS / page)
    assert len(samples) == count
    assert [_printed(s) for s in samples] == samples


def _python_blocks(page: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", page.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)


#: Files the examples read, as a reader has them beside the code: a ``.t`` file of two players.
_TSH_FILE = "Chew, John   1850 400 450; 2 2; p12 1 2\nKing, Anna   1700 380 460; 1 1; p12 2 1\n"


@pytest.mark.parametrize(("page", "count"), [("scored-events.md", 3), ("pairing.md", 1), ("crosstable.md", 1)])
def test_the_python_examples_run(page: str, count: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each page's examples run in order in one namespace, as a reader pastes them: scored-events.md imported
    a module ``tmanager.tfile`` that is not there (it is ``tmanager.formats.tsh``), and ``fontes_basis`` and
    ``chew`` from nowhere."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.t").write_text(_TSH_FILE)
    (tmp_path / "games.pgn").write_text(
        '[White "Stockfish"]\n[Black "Fairy-Max"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n\n'
        '[White "Fairy-Max"]\n[Black "Stockfish"]\n[Result "1/2-1/2"]\n\n1. d4 d5 1/2-1/2\n'
    )
    blocks = _python_blocks(DOCS / page)
    assert len(blocks) == count
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, f"{page} example", "exec"), namespace)
