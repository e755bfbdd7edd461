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

The package itself imports nothing, so that ``import tmanager.events.model`` loads the
model alone; :mod:`~tmanager.events.api` gathers the names for working on an event in
memory and on disk (scripts and tests).
"""
