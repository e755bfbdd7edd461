"""What one change of an event file did, as its callers need it: the messages, where, and its journal number.

Every function of :mod:`tmanager.events.service` returns one :class:`Change`:
the command line and the shell print its messages, the web shows them above
the arbiter's page; ``round`` is the round the change concerns (the round
just paired, unpaired, forced, given a bye or a result), so that a caller
shows that round without reading the file again for it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """One journaled change: what to tell the arbiter and what it changed.

    ``division`` is the division's name (``None``: the whole event, as undo);
    ``round`` the round the change concerns, if one; ``completed`` that a
    result gave its round the last result it lacked; ``number`` the change's
    journal number (what ``undo``'s ``expected`` takes), or for an undo the
    number undone; 0: the file was left as it was.
    """

    messages: tuple[str, ...]
    division: str | None = None
    round: int | None = None
    completed: bool = False
    number: int = 0
