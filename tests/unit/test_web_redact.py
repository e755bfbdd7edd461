"""The redactor: paths are masked in the forms in which pages and JSON answers carry them."""

from __future__ import annotations

import html
import json

from tmanager.web.redact import MASK, Redactor


def test_paths_are_masked_as_a_page_or_json_writes_them() -> None:
    """A directory "o'brien & co" appeared escaped in a page's error message ("o&#x27;brien &amp; co") or in JSON
    (a quote or backslash escaped), which the plain text did not match: the path was shown."""
    path = "/srv/o'brien & co/\"open\"\\spring.toml"
    redact = Redactor([path])
    message = f"{path}: another tmanager holds {path}.lock; try again"
    assert redact(message) == f"{MASK}: another tmanager holds {MASK}.lock; try again"
    assert redact(html.escape(message)) == html.escape(f"{MASK}: another tmanager holds {MASK}.lock; try again")
    assert redact(json.dumps(message, ensure_ascii=False)) == json.dumps(
        f"{MASK}: another tmanager holds {MASK}.lock; try again", ensure_ascii=False
    )

