"""Engine tourneys: the tourney file, its workers, the game runner and the engines they start."""
