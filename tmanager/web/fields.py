"""The fields of a request, its address's query and its form, each given at most once.

Every field the pages read is one value (a round, a division, a result, the CSRF token). One given twice
(``?round=1&round=2``, a form with two ``result`` values) was read as one of them without a word, and not
always the same one: Starlette's query takes the last, :func:`urllib.parse.parse_qs` the first. Such a request
is refused instead: :class:`~tmanager.web.app.Guard` checks every address's query, and
:func:`~tmanager.web.arbiterauth.read_form` every form, with :func:`form_fields`, which also refuses a form
that is not UTF-8 text.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import parse_qsl

from tmanager.errors import StateError


class BadForm(StateError):
    """A form that cannot be read as one text value per field; it is refused (400), and nothing is changed."""


class RepeatedField(BadForm):
    """A request gives a field more than once; it is refused, and nothing is changed."""


def once_each(fields: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The fields by name; a :class:`RepeatedField` if a name comes twice."""
    found: dict[str, str] = {}
    for name, value in fields:
        if name in found:
            raise RepeatedField(f"the field {name[:40]!r} is given more than once; give it once")
        found[name] = value
    return found


def form_fields(body: bytes) -> dict[str, str]:
    """A URL-encoded form's fields by name; a :class:`BadForm` if it is not UTF-8 text (its bytes, or a byte it
    percent-encodes), a :class:`RepeatedField` if it gives a field twice.

    A form that was not UTF-8 was read as no form at all, so that an action was refused as "missing its security
    token" and a login as "expired"; and a value with a byte that is no UTF-8 (``name=Sm%FFt``) was read with
    U+FFFD in its place."""
    try:
        return once_each(parse_qsl(body.decode("utf-8"), keep_blank_values=True, errors="strict"))
    except UnicodeDecodeError:
        raise BadForm("the form is not UTF-8 text; send it from this server's page") from None


def check_query(query: bytes) -> None:
    """A :class:`RepeatedField` if the address's query (as sent) gives a field twice, as Starlette reads it."""
    once_each(parse_qsl(query.decode("latin-1"), keep_blank_values=True))
