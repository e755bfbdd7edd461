"""What the arbiter is told, and the longer explanation behind each kind of message.

Operations return their messages as text; a message that has more to say is
a :class:`Note` that carries its :class:`Topic`, and an error carries one in
``topic`` (:class:`~tmanager.errors.TManagerError`). The event shell's ``why``
looks the last message's topic up in :data:`EXPLANATIONS`, and ``help
messages`` lists them all: no explanation is found by reading a message's words.
"""

from __future__ import annotations

import enum


class Topic(enum.StrEnum):
    """What a message is about; the value is the words people look for in ``help messages``."""

    NO_PLAYER = "no player matches"
    AMBIGUOUS_NAME = "matches N players"
    NAME_TAKEN = "already has the name"
    ROUND_TAKEN = "already has a"
    USE_CORRECT = "use `correct`"
    NOT_A_RESULT = "is not a result"
    NO_BOARD = "there is no board"
    NOT_OPPONENTS = "do not play each other"
    HAS_BYE = "has a bye"
    RESULTS_MISSING = "result(s) missing"
    UNPAIRABLE = "cannot be paired"
    REMATCH = "already met"
    FORBIDDEN_PAIR = "forbidden pair"
    SECOND_BYE = "already had a full-point bye"
    ALREADY_PAIRED = "already paired"
    HAS_RESULTS = "has results"
    LATE_ENTRY = "late entry"
    TAKES_BYE_BOARD = "plays round"
    OLD_RESULT = "paired with the old result"
    COLOUR_BY_LOT = "initial colour drawn by lot"
    NOTHING_TO_UNDO = "nothing to undo"
    RESTORED = "restored"
    LOCKED = "another tmanager holds"
    DIVISIONS = "several divisions"
    MISTYPED_SCORE = "looks mistyped"
    SPREAD_MISMATCH = "does not match the scores"
    OFF = "is off in round"
    GIBSONIZED = "gibsonized"
    AMBIGUOUS_COMMAND = "ambiguous"


#: What each kind of message means, and what to do.
EXPLANATIONS = {
    Topic.NO_PLAYER: "Neither a number nor a part of any player's name: check the spelling or `players`.",
    Topic.AMBIGUOUS_NAME: "A part of a name found several players: type more of it, or the number.",
    Topic.NAME_TAKEN: "Two players may not share a name: add an initial or a city to tell them apart.",
    Topic.ROUND_TAKEN: (
        "The player has a bye, a forced game or a board in that round already; `bye --cancel` takes back a bye."
    ),
    Topic.USE_CORRECT: "Results are entered once; `correct` changes them and warns if later rounds used the old one.",
    Topic.NOT_A_RESULT: "Results: 1-0, 0-1, = or ½-½, +- / -+ (forfeit), -- (both forfeit), adj (adjourned), *.",
    Topic.NO_BOARD: "The board number is beyond the round's boards; `pairings` lists them.",
    Topic.NOT_OPPONENTS: "The two players are not opponents in that round; check the numbers.",
    Topic.HAS_BYE: "The player has no game in that round, only a bye; there is no result to enter.",
    Topic.RESULTS_MISSING: "A round is paired only when every earlier result is in; `missing` lists them.",
    Topic.UNPAIRABLE: "No pairing satisfies the rules; the message names the rule (rematches, byes, colours).",
    Topic.REMATCH: "FIDE rules forbid rematches; forcing one is refused.",
    Topic.FORBIDDEN_PAIR: "The two were declared with `forbid` (or share a team with --teams on).",
    Topic.SECOND_BYE: "Nobody gets the pairing-allocated bye twice.",
    Topic.ALREADY_PAIRED: "Byes, withdrawals and forced games must come before the round is paired; unpair first.",
    Topic.HAS_RESULTS: "Unpair only a round without results; correct them to * or use undo.",
    Topic.LATE_ENTRY: "The newcomer's missed rounds are recorded as zero- or half-point byes (event late_entry).",
    Topic.TAKES_BYE_BOARD: (
        "A late entry took the board of the player who had the pairing-allocated bye (Chaos's rule)."
    ),
    Topic.OLD_RESULT: "Later rounds were paired with the old result; unpair and pair again if it matters.",
    Topic.COLOUR_BY_LOT: "Round 1: the top-ranked player's colour was drawn and is kept in the file.",
    Topic.NOTHING_TO_UNDO: "The journal (old/ beside the event) holds no earlier version.",
    Topic.RESTORED: "undo put back the version before the last change; the undone one stays in old/.",
    Topic.LOCKED: "Another command is changing the event; try again in a moment.",
    Topic.DIVISIONS: "Choose a division with `division NAME` (or -d NAME).",
    Topic.MISTYPED_SCORE: "A score below 100 or above 1500 is entered only when confirmed (--yes, y at the prompt, or "
    "the box 'unusual score is right' on the arbiter's page).",
    Topic.SPREAD_MISMATCH: "With entry = 'both' the spread typed must equal the difference of the scores.",
    Topic.OFF: "A player set off (or withdrawn) gets their off spread for each round they miss.",
    Topic.GIBSONIZED: "The leader cannot be caught any more: Chew pairings give them a non-contender, not a rival.",
    Topic.AMBIGUOUS_COMMAND: "The abbreviation fits several commands: type more letters.",
}


class Note(str):
    """A message that knows its topic."""

    topic: Topic | None

    def __new__(cls, text: str, topic: Topic | None = None) -> Note:
        note = super().__new__(cls, text)
        note.topic = topic
        return note


def topic_of(message: object) -> Topic | None:
    """The topic of a message or an error, if it has one."""
    topic = getattr(message, "topic", None)
    return Topic(topic) if topic is not None else None
