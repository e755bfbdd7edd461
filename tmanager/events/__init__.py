"""Human events: players, rounds, pairing, results and reports, kept in one TOML file per event.

The package, from the bottom up:

* :mod:`~tmanager.events.model`: the event as plain data (dataclasses whose
  fields are the file's keys); :mod:`~tmanager.events.messages`: what the
  arbiter is told and why;
* :mod:`~tmanager.events.games`, :mod:`~tmanager.events.scorecards`,
  :mod:`~tmanager.events.ranking`: what a division's rounds give (TRF round
  entries and points, tsh scorecards, standings);
* :mod:`~tmanager.events.operations`: changes common to every division
  (players, byes, forced games, unpairing);
* :mod:`~tmanager.events.reports`: reports as data, rendered as text and HTML;
* :mod:`~tmanager.events.rules`: each kind of division's rules (chess,
  score-based), chosen once per division: pairing, result entry, checks;
* :mod:`~tmanager.events.eventfile` and :mod:`~tmanager.events.journal`: the
  file, its checks, and each change as one locked, journaled write (undo);
* :mod:`~tmanager.events.service`: what the arbiter can do, one change each,
  for the command line and the web alike; :mod:`~tmanager.events.hooks` runs
  the event's hooks after results;
* :mod:`~tmanager.events.trffile`, :mod:`~tmanager.events.tshfile`,
  :mod:`~tmanager.events.dryrun`: TRF and ``.t`` files of a division, and dry runs.

The names below are the API for working on an event in memory and on disk.
"""

from tmanager.core.results import PENDING, format_points
from tmanager.events.eventfile import check, dumps, loads
from tmanager.events.games import history, round_games, score, scores
from tmanager.events.journal import apply, change, create, journal_dir, last_change, load, undo
from tmanager.events.model import (
    Board,
    Division,
    EntryMode,
    Event,
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
from tmanager.events.rules.chess import parse_result, set_result

__all__ = [
    "PENDING",
    "Board",
    "Division",
    "EntryMode",
    "Event",
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
