"""The names for working on an event in memory and on disk, in one place (scripts and tests:
``from tmanager.events import api as ev``). Importing it loads the whole events package."""

from tmanager.core.results import PENDING, format_points
from tmanager.events.eventfile import check, dumps, loads
from tmanager.events.games import history, round_games, score, scores
from tmanager.events.journal import apply, change, create, journal_dir, last_change, load, undo
from tmanager.events.model import (
    Acceleration,
    Board,
    Division,
    EntryMode,
    Event,
    LateEntry,
    Opening,
    PairingSystem,
    Player,
    PlayerStatus,
    Round,
    ScoredSettings,
    label,
    missing,
)
from tmanager.events.operations import (
    add_player,
    board_at,
    edit_player,
    find_player,
    forbid,
    force,
    force_named,
    locate,
    reinstate,
    request_bye,
    unpair,
    withdraw,
)
from tmanager.events.ranking import tiebreak_standings, wins_standings
from tmanager.events.registration import enter_player
from tmanager.events.rules import pair, rules_for
from tmanager.events.rules.base import parse_result
from tmanager.events.rules.chess import set_result

__all__ = [
    "PENDING",
    "Acceleration",
    "Board",
    "Division",
    "EntryMode",
    "Event",
    "LateEntry",
    "Opening",
    "PairingSystem",
    "Player",
    "PlayerStatus",
    "Round",
    "ScoredSettings",
    "add_player",
    "apply",
    "board_at",
    "change",
    "check",
    "create",
    "dumps",
    "edit_player",
    "enter_player",
    "find_player",
    "forbid",
    "force",
    "force_named",
    "format_points",
    "history",
    "journal_dir",
    "label",
    "last_change",
    "load",
    "loads",
    "locate",
    "missing",
    "pair",
    "parse_result",
    "reinstate",
    "request_bye",
    "round_games",
    "rules_for",
    "score",
    "scores",
    "set_result",
    "tiebreak_standings",
    "undo",
    "unpair",
    "wins_standings",
    "withdraw",
]
