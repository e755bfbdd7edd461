"""The pure core: schedules, standings, tie-breaks, statistics and ratings. No I/O."""
