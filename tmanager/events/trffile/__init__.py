"""A chess division as a FIDE TRF-2026 (or TRF-16) file, and back (:mod:`tmanager.formats.trf` holds the syntax).

The export is a standard TRF. Its header: ``012`` name, ``022`` city, ``032`` federation, ``042``/``052`` dates,
``062``/``072`` players and rated players, ``092`` type, ``102`` chief arbiter, ``112`` deputies, (TRF-16) ``122``
the time control, ``132`` the rounds' dates, then in TRF-2026 ``142`` rounds, ``152`` initial colour, ``162`` points
per result (when not 1-½-0), ``192`` the encoded type (``FIDE_DUTCH_2025``, ``…_BAKU``, ``FIDE_ROUNDROBIN``…),
``202`` the tie-breaks (as FIDE's TieBreakServer reads them, ``BH/C1``; a team division's: ``MP,GP,EMGSB,BH:MP``)
and ``222`` the encoded time control; in TRF-16 the pairing programs' ``XXR``, ``XXC`` and ``BBW``… lines instead.
Records: ``240`` the requested byes of rounds not in the player lines, ``250`` the Baku method's virtual points
(``XXA`` in TRF-16: a line per accelerated player with the points of each round), ``260`` players who must not meet
(``XXP`` in TRF-16). One ``001`` line per player: sex and title, name, rating, federation, FIDE ID, birth, points,
rank, rounds.

**Numbers.** A player's starting rank is their player number, the number
printed everywhere. In a division with start numbers (``event start-numbers``)
that is also the pairing order; otherwise (numbers in the order of entry) the
file says ``XXC rank`` and lists the players in pairing order, as JaVaFo and
bbpPairings read it, so that ``bbpPairings --dutch FILE -c`` and
``tmanager pair --dutch FILE -c`` re-pair every round as the event did.
Numbers with gaps (1, 2, 4: a player entered with ``--number``, an entry taken
out of the event file) are closed up to starting ranks 1..N in the same order
(:func:`~tmanager.events.trffile.writer.starting_ranks`), since pairing programs
take 1..N only: every ``001`` line, round entry and record then names players
by starting rank, the ``XTM player`` line (keyed by starting rank) gives the
number back (``XTM player 3 {"number":4}``), and the other ``XTM`` lines name
players by number, as the event does.

**A round in progress** (paired, results missing) is left out of the player
lines: every game there has its result, as pairing programs require (a blank
result makes bbpPairings refuse the file), and the points and ranks are those
after the last complete round. Its pairing and the results already in go into
``XTM`` lines, and its requested byes into ``240`` records, so that a pairing
program pairs it again from the file as the event did.

A team division adds TRF-2026's team records (``352``, ``362``, ``310``,
``320``, ``330``, ``300``, ``802``: :func:`~tmanager.events.teamtrf.trf_team_records`),
and its teams, settings, matches and lineups go into the ``XTM`` lines.

What TRF cannot hold — K factors, clubs, teams, flags, withdrawals, board order,
adjourned games, forced games, requested byes of rounds not yet paired, the
prize fund and the event's settings — goes into ``XTM`` lines, one JSON object each (``XTM event
{…}``, ``XTM player N {…}``, ``XTM round N {…}``). Pairing programs skip lines
of unknown kinds, and :func:`loads` reads them back, so an exported event
re-imported is the same event. A TRF written by another program (no ``XTM``
lines) imports too: players numbered by starting rank (the pairing order), the
results, byes and absences, the records, the header data, and the system its ``192`` code names
(:mod:`~tmanager.events.trffile.typecodes`: a system tmanager does not pair is refused, naming the code).
"""

from __future__ import annotations

from tmanager.events.trffile.reader import loads, read
from tmanager.events.trffile.writer import complete_rounds, dumps
from tmanager.formats.trf import Version

__all__ = ["Version", "complete_rounds", "dumps", "loads", "read"]
