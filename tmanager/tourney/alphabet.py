"""XBoard's results alphabet: one character a game in a tourney's results string, as XBoard's ``-results``.

``+`` white won, ``-`` black won, ``=`` a draw, ``*`` being played, and a space
(or beyond the string's end) not played yet.
"""

from __future__ import annotations

import re

WHITE_WINS, BLACK_WINS, DRAW, PLAYING, UNPLAYED = "+", "-", "=", "*", " "
RESULT_CHARS = WHITE_WINS + BLACK_WINS + DRAW + PLAYING + UNPLAYED
FINISHED_CHARS = WHITE_WINS + BLACK_WINS + DRAW
#: A finished game's character, to find them all in a results string at C speed.
FINISHED = re.compile(r"[-+=]")
