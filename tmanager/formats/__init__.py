"""File formats read and written without a tourney or event model: PGN, TRF, tsh ``.t``."""
