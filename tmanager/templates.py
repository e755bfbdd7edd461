"""HTML from Jinja2 templates: one environment per package, escaping every value that is not marked safe.

A package keeps its templates in its ``templates/`` folder (package data).
Values are escaped as they are put into a page, so code hands templates
plain text and never writes markup or escapes by hand. Escaping is Python's
:func:`html.escape` (quotes too, ``'`` as ``&#x27;``), as the pages always had.
"""

from __future__ import annotations

import functools
import html
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2


@functools.cache
def environment(package: str) -> jinja2.Environment:
    """The template environment of ``package`` (``tmanager.web``…): autoescaping, block tags leave no blank lines."""
    import jinja2  # loaded with the first page: commands that only print text do without it
    import markupsafe

    def escaped(value: Any) -> Any:
        return value if hasattr(value, "__html__") else markupsafe.Markup(html.escape(str(value)))

    return jinja2.Environment(
        loader=jinja2.PackageLoader(package, "templates"),
        autoescape=True,
        finalize=escaped,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def render(package: str, template: str, **values: object) -> str:
    """Template ``template`` of ``package`` filled with ``values``."""
    return environment(package).get_template(template).render(**values)
