"""The settings part of a tourney file rewritten for a changed model, keeping what the user wrote.

``edit`` and ``substitute`` change a few settings or one participant. Everything
else in the part of the file above the owned tail must come back exactly as the
user wrote it: comments, blank lines, the order of keys and sections, how numbers
and strings are written, inline tables. :func:`updated` applies the difference
between two versions of the settings data (as
:func:`~tmanager.tourney.model.settings_to_toml` gives them) to the old text with
tomlkit, a format-preserving TOML library:

- a changed value is replaced where it stands, and a comment on its line stays;
- a value gone (back to its default, for most keys) is removed with its line;
- a new value goes after the last key of its table, before the comments and
  blank lines that end the table, since they usually introduce the next section;
- a new section, or a new participant, goes at the end.

It knows nothing of files, locks, the owned tail or what the settings mean.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import tomlkit
import tomlkit.container
import tomlkit.items

Data = Mapping[str, Any]


def updated(text: str, *, before: Data, after: Data) -> str:
    """``text``, the settings part of a tourney file that ``before`` describes, changed to describe ``after``.

    A section is a table (``tourney``, ``openings``, ``adjudication``) or an array of tables
    (``participants``), compared entry by entry and key by key; only what differs is touched.
    """
    if before == after:
        return text
    document = tomlkit.parse(text)
    for section in [*before, *(s for s in after if s not in before)]:
        old, new = before.get(section), after.get(section)
        if old == new:
            continue
        if isinstance(old, list) or isinstance(new, list):
            _update_array(document, section, old or [], new or [])
        else:
            if section not in document:
                document.add(section, tomlkit.table())
            _update_table(document[section], old or {}, new or {})
    return document.as_string()


def _update_array(document: tomlkit.TOMLDocument, section: str, old: Sequence[Data], new: Sequence[Data]) -> None:
    if section not in document:
        document.add(section, tomlkit.aot())
    array = document[section]
    for index, (was, now) in enumerate(zip(old, new, strict=False)):
        if was != now:
            _update_table(array[index], was, now)
    for now in new[len(old) :]:
        array.append(_table(now))
    for index in reversed(range(len(new), len(old))):
        del array[index]


def _update_table(table: Any, old: Data, new: Data) -> None:
    """Change ``table`` (a tomlkit table or inline table, as parsed) from ``old`` to ``new`` in place."""
    for key in old:
        if key not in new and key in table:
            del table[key]
    for key, value in new.items():
        if key in old and old[key] == value:
            continue  # unchanged: as the user wrote it, or absent as a default
        if key in table and isinstance(value, Mapping) and isinstance(old.get(key), Mapping):
            _update_table(table[key], old[key], value)  # options: key by key, in the user's style
        elif key in table:
            table[key] = _value(value)
        else:
            _add(table, key, _value(value))


def _add(table: Any, key: str, value: Any) -> None:
    """Put a new key after the last plain key of ``table``, before the comments and blank lines
    that end it. tomlkit appends after them and has no public way to insert at a position (its
    issue #7; the private ``_insert_after`` this used went in tomlkit 0.15.3): the trailing
    comments and blank lines are taken off the table's body, the key appended, and they are put
    back after it. After a sub-table, or in an inline table, tomlkit's own append already puts
    the key where it belongs."""
    container = table.value if isinstance(table, tomlkit.items.Table) else None
    last = None
    if isinstance(container, tomlkit.container.Container):
        last = next(((k, item) for k, item in reversed(container.body) if k is not None), None)
    # (``body`` is the container's own list, not a copy; were it one, the key is appended as tomlkit does.)
    if (container is None or last is None or isinstance(last[1], tomlkit.items.Table | tomlkit.items.AoT)
            or container.body is not container.body):
        table[key] = value
        return
    trailing = []
    while container.body[-1][0] is None:  # keyless: comments and blank lines, after the last key
        trailing.append(container.body.pop()[1])
    container.append(key, value)
    for item in reversed(trailing):
        container.append(None, item)


def _value(value: Any) -> Any:
    """A tomlkit item for ``value``: tables become inline tables (participants' options), as written by hand."""
    if isinstance(value, Mapping):
        table = tomlkit.inline_table()
        table.update({k: _value(v) for k, v in value.items()})
        return table
    return value


def _table(data: Data) -> tomlkit.items.Table:
    table = tomlkit.table()
    for key, value in data.items():
        table[key] = _value(value)
    return table
