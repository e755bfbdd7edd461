"""Parsing ``--set KEY=VALUE`` arguments, shared by new, clone and edit."""

from __future__ import annotations

from typing import Any

from tmanager.errors import ConfigError
from tmanager.tomlmap import parse_value


def parse_assignments(items: list[str]) -> list[tuple[str, Any]]:
    """``["cycles=3", "tc=10+0.1"]`` → ``[("cycles", 3), ("tc", "10+0.1")]``."""
    pairs = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set {item!r} is not KEY=VALUE", field="--set", hint="e.g. --set cycles=3")
        pairs.append((key.strip(), parse_value(value.strip())))
    return pairs
