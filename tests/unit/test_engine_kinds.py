"""The engine side's kinds are enums, each read into its member once where it comes in (a tourney file's word, an
engine definition's, a fastchess option's) and written as its word: no process is started here."""

from __future__ import annotations

import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tmanager.core.schedule import RoundRobin
from tmanager.core.sprt import VerdictResult, match_state
from tmanager.core.stats import Sprt, SprtModel, SprtSettings, SprtVerdict
from tmanager.errors import ConfigError
from tmanager.fastchess.commandline import parse
from tmanager.fastchess.config import LogLevel, MatchConfig, TournamentType, Variant
from tmanager.fastchess.tourneyfile import identity
from tmanager.formats.pgn import Notation
from tmanager.tomlmap import dumps
from tmanager.tourney.adjudication import TablebaseResults
from tmanager.tourney.engines import Protocol
from tmanager.tourney.parsing import from_toml
from tmanager.tourney.resolution import resolve_engine
from tmanager.tourney.serialising import owned_sections_to_toml, settings_to_toml
from tmanager.tourney.settings import BookFormat, BookOrder, Participant, Settings

FILE = """\
[tourney]
name = "t"
nodes = 100
pgn_notation = "lan"

[openings]
file = "book.pgn"
format = "pgn"
order = "random"

[adjudication]
syzygy_adjudicate = "win_loss"

[[participants]]
name = "A"
cmd = "a"
protocol = "xboard"

[[participants]]
name = "B"
engine = "random-uci"
"""


def test_a_tourney_file_s_words_read_as_members_and_are_written_back_as_they_were(tmp_path: Path) -> None:
    tourney = from_toml(tomllib.loads(FILE), tmp_path / "t.toml")
    assert tourney.settings.pgn_notation is Notation.LAN
    assert tourney.openings is not None
    assert (tourney.openings.format, tourney.openings.order) == (BookFormat.PGN, BookOrder.RANDOM)
    assert type(tourney.openings.format) is BookFormat and type(tourney.openings.order) is BookOrder
    assert tourney.adjudication.syzygy_adjudicate is TablebaseResults.WIN_LOSS
    assert [p.protocol for p in tourney.participants] == [Protocol.XBOARD, Protocol.UNSET]
    assert all(type(p.protocol) is Protocol for p in tourney.participants)
    written = dumps(settings_to_toml(tourney))
    for line in ('pgn_notation = "lan"', 'format = "pgn"', 'order = "random"', 'syzygy_adjudicate = "win_loss"',
                 'protocol = "xboard"'):
        assert line in written
    assert written.count("protocol") == 1  # the unset protocol is left out, as "" was


@pytest.mark.parametrize(
    ("section", "key", "word", "says"),
    [
        ("participants", "protocol", "UCI", "'UCI' is not one of 'uci', 'xboard'"),
        ("openings", "format", "fen", "'fen' is not one of 'auto', 'epd', 'pgn'"),
        ("openings", "order", "shuffled", "'shuffled' is not one of 'sequential', 'random'"),
        ("tourney", "pgn_notation", "SAN", "'SAN' is not one of 'san', 'lan', 'uci'"),
        ("adjudication", "syzygy_adjudicate", "WIN_LOSS", "'WIN_LOSS' is not one of 'both', 'win_loss', 'draw'"),
    ],
)
def test_another_word_is_refused_as_before(tmp_path: Path, section: str, key: str, word: str, says: str) -> None:
    parsed: dict[str, Any] = tomllib.loads(FILE)
    table = parsed[section][0] if section == "participants" else parsed[section]
    table[key] = word
    with pytest.raises(ConfigError) as caught:
        from_toml(parsed, tmp_path / "t.toml")
    assert caught.value.message == says


@pytest.mark.parametrize(("word", "protocol"), [("uci", Protocol.UCI), ("xboard", Protocol.XBOARD)])
def test_a_definition_s_protocol_is_the_spec_s_member(tmp_path: Path, word: str, protocol: Protocol) -> None:
    (tmp_path / "engines").mkdir()
    (tmp_path / "engines" / "e.toml").write_text(f'cmd = "e"\nprotocol = "{word}"\n')
    spec = resolve_engine(Participant(name="E", engine="e"), Settings(), directory=tmp_path)
    assert spec.protocol is protocol
    own = resolve_engine(Participant(name="E", engine="e", protocol=Protocol.UCI), Settings(), directory=tmp_path)
    assert own.protocol is Protocol.UCI  # the participant's own word comes first


@pytest.mark.parametrize("word", ["", "UCI", "winboard"])
def test_a_definition_without_a_protocol_spoken_is_refused_in_its_words(tmp_path: Path, word: str) -> None:
    (tmp_path / "engines").mkdir()
    (tmp_path / "engines" / "e.toml").write_text(f'cmd = "e"\nprotocol = "{word}"\n')
    with pytest.raises(ConfigError) as caught:
        resolve_engine(Participant(name="E", engine="e"), Settings(), directory=tmp_path, where="participants[1]")
    assert caught.value.message == f'protocol must be "uci" or "xboard", not {word!r}'
    assert caught.value.field == "participants[1].protocol"


def match(line: str) -> MatchConfig:
    parsed = parse(shlex.split(line), cpus=8)
    assert isinstance(parsed, MatchConfig)
    return parsed


ENGINES = "-engine cmd=a name=A -engine cmd=b name=B -each tc=1+0.01 "


def test_fastchess_s_words_read_as_members() -> None:
    config = match(
        ENGINES + "-engine cmd=c name=C proto=xboard tc=1 -openings file=x.epd order=random -pgnout notation=lan "
        "-log file=l level=info -tournament gauntlet -variant fischerandom -tb /tables -tbadjudicate WIN_LOSS"
    )
    assert [engine.protocol for engine in config.engines] == [Protocol.UCI, Protocol.UCI, Protocol.XBOARD]
    assert all(type(engine.protocol) is Protocol for engine in config.engines)
    assert config.openings is not None
    assert config.openings.format is BookFormat.EPD and config.openings.order is BookOrder.RANDOM
    assert config.pgn.notation is Notation.LAN
    assert config.log.level is LogLevel.INFO
    assert config.type is TournamentType.GAUNTLET and config.variant is Variant.FISCHERANDOM
    assert config.tablebases.adjudicate is TablebaseResults.WIN_LOSS


def test_fastchess_s_defaults_are_members(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "book.txt").write_text("")  # a book of no format, which must be there all the same
    config = match(ENGINES + "-openings file=book.txt format=pgn")
    assert config.openings is not None and config.openings.format is BookFormat.PGN
    unsaid = match(ENGINES + "-openings file=book.txt").openings
    assert unsaid is not None and unsaid.format is BookFormat.AUTO and unsaid.order is BookOrder.SEQUENTIAL
    plain = match(ENGINES)
    assert plain.engines[0].protocol is Protocol.UCI and plain.pgn.notation is Notation.SAN
    assert plain.log.level is LogLevel.WARN and plain.tablebases.adjudicate is TablebaseResults.BOTH
    assert plain.type is TournamentType.ROUND_ROBIN and plain.variant is Variant.STANDARD
    quick = match("-quick cmd=a cmd=b book=x.pgn")
    assert quick.openings is not None
    assert quick.openings.format is BookFormat.PGN and quick.openings.order is BookOrder.RANDOM


SPRT = """
[sprt]
elo0 = 0.0
elo1 = 5.0
model = "logistic"

[verdict]
result = "undecided"
llr = 0.5
lower = -2.94
upper = 2.94
games = 2
pairs = 1

[progress]
results = "+-"
"""


def test_an_sprt_s_words_read_as_members_and_are_written_back_as_they_were(tmp_path: Path) -> None:
    tourney = from_toml(tomllib.loads(FILE + SPRT), tmp_path / "t.toml")
    assert tourney.sprt is not None and tourney.sprt.model is SprtModel.LOGISTIC
    assert tourney.verdict is not None and tourney.verdict.result is VerdictResult.UNDECIDED
    assert 'model = "logistic"' in dumps(settings_to_toml(tourney))
    assert 'result = "undecided"' in dumps(owned_sections_to_toml(tourney))
    config = match(ENGINES + "-sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 model=bayesian")
    assert config.sprt is not None and config.sprt.model is SprtModel.BAYESIAN
    assert match(ENGINES + "-sprt elo0=0 elo1=5 alpha=0.05 beta=0.05").sprt == SprtSettings(0, 5)


def test_where_an_sprt_stands_and_how_it_ended_are_members() -> None:
    assert [Sprt(llr, -2.94, 2.94).verdict for llr in (-3.0, 3.0, 0.0)] == list(SprtVerdict)
    schedule = RoundRobin(2, games_per_pairing=2, cycles=1)
    wide = SprtSettings(-200, 200, 0.01, 0.01, SprtModel.LOGISTIC)
    ended = match_state(schedule, "+-", wide).verdict
    assert ended is not None and ended.result is VerdictResult.UNDECIDED
    logistic = SprtSettings(-200, 200, 0.1, 0.1, SprtModel.LOGISTIC)  # two won pairs decide
    won = match_state(RoundRobin(2, games_per_pairing=2, cycles=10), "+-+-+-+=", logistic)
    assert won.verdict is not None and won.verdict.result is VerdictResult.H1


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("-engine cmd=a name=A proto=xboard -engine cmd=b name=B -each tc=10+0.1 -rounds 4", "c67a5142"),
        (ENGINES + "-openings file=x.pgn format=pgn order=random -pgnout file=o.pgn notation=lan -log file=l "
         "level=info -tournament gauntlet -variant fischerandom -tb /tmp -tbadjudicate WIN_LOSS "
         "-sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 model=logistic", "5c1d9158"),
        (ENGINES + "-openings file=book.txt plies=4 order=sequential -log level=trace", "0b989ad7"),
    ],
)
def test_a_fastchess_test_keeps_the_name_it_had_before_its_kinds_were_enums(
    line: str, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The test's file is named by a hash of its command's values (a test begun is resumed by running the command
    again): its kinds hash as the words they were, and -openings without format= as "" as it was."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "book.txt").write_text("")
    assert identity(match(line)) == name
