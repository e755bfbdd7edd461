"""fastchess's command line and output over tmanager's tourneys: ``tmanager fastchess ARG…``.

Engine testers' tools (OpenBench's and fishtest's workers, their scripts) drive
fastchess by its command line and read its standard output line by line. This
package lets them drive tmanager the same way:

* :mod:`.commandline` (with :mod:`.enginekeys`, :mod:`.values` and :mod:`.checks`) reads fastchess's options,
  as its manual documents them, into typed values (:class:`~.commandline.MatchConfig`);
* :mod:`.tourneyfile` makes of them a tourney file, whose name the command
  implies, so that the same command run again resumes the test;
* :mod:`.elo` and :mod:`.scoreboard` count and estimate as fastchess does, to
  the last printed digit;
* :mod:`.output` writes fastchess's lines, or cutechess-cli's (one class per
  format, behind fastchess's ``IOutput`` interface);
* :mod:`.runner` plays the tourney with ``tmanager run``'s workers and turns
  their announcements (:mod:`tmanager.tourney.announce`) into those lines.

What differs from fastchess, and why, is in docs/fastchess.md.
"""
