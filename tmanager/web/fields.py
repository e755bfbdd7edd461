"""The fields of a request, its address's query and its form, each given at most once.

Every field the pages read is one value (a round, a division, a result, the CSRF token). One given twice
(``?round=1&round=2``, a form with two ``result`` values) was read as one of them without a word, and not
always the same one: Starlette's query takes the last, :func:`urllib.parse.parse_qs` the first. Such a request
is refused instead: :class:`~tmanager.web.app.Guard` checks every address's query, and
:func:`~tmanager.web.arbiterauth.read_form` every form, with :func:`once_each`.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import parse_qsl

from tmanager.errors import StateError


class RepeatedField(StateError):
    """A request gives a field more than once; it is refused, and nothing is changed."""


def once_each(fields: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The fields by name; a :class:`RepeatedField` if a name comes twice."""
    found: dict[str, str] = {}
    for name, value in fields:
        if name in found:
            raise RepeatedField(f"the field {name[:40]!r} is given more than once; give it once")
        found[name] = value
    return found


def check_query(query: bytes) -> None:
    """A :class:`RepeatedField` if the address's query (as sent) gives a field twice, as Starlette reads it."""
    once_each(parse_qsl(query.decode("latin-1"), keep_blank_values=True))
