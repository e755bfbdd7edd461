"""tmanager: a tournament manager for chess engines and human events."""

__version__ = "0.1.0"
