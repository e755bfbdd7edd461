"""Live web pages for tourneys: ``tmanager serve`` (see docs/web.md).

:mod:`tmanager.web.app` is the Starlette application, :mod:`~tmanager.web.hub`
watches the files and streams changes, :mod:`~tmanager.web.dashboard` renders
the HTML, :mod:`~tmanager.web.pgnindex` indexes the PGN file and
:mod:`~tmanager.web.redact` keeps paths and command lines out of every page.
"""
