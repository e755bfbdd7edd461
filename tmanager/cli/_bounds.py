"""Hard bounds on the counts a command is given: how many processes and games one command may start.

A count beyond them is a typing slip (``--workers 1000000`` forks until the machine gives up), refused
in one line before anything starts.
"""

from __future__ import annotations

from tmanager.errors import ConfigError

#: The most worker processes `run` starts (a machine of 256 cores runs a few processes per core at most).
MAX_WORKERS = 1024
#: The most games at once one command plays, in all its processes or lanes: each game runs two engines,
#: so this is already 8,192 engine processes.
MAX_GAMES_AT_ONCE = 4096
#: The most games `work --games` asks for: a tourney holds no more (``tourney.model.MAX_GAMES``).
MAX_GAMES = 100_000_000


def check_count(value: int | None, *, option: str, most: int, least: int = 1) -> None:
    """:class:`ConfigError` naming ``option`` unless ``value`` (if given) is from ``least`` to ``most``."""
    if value is not None and not least <= value <= most:
        way_out = f"give {most:,} at most: more is a typing slip" if value > most else f"give {least:,} at least"
        raise ConfigError(f"must be from {least:,} to {most:,}, not {value:,}", field=option, hint=way_out)
