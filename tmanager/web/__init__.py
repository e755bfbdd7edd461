"""Live web pages for tourneys and events: ``tmanager serve`` (see docs/web.md).

:mod:`tmanager.web.app` is the Starlette application, :mod:`~tmanager.web.hub`
watches the files and streams changes, :mod:`~tmanager.web.dashboard` renders
the HTML, :mod:`~tmanager.web.pgnindex` indexes the PGN file and
:mod:`~tmanager.web.redact` keeps paths and command lines out of every page.
For an event file, :mod:`~tmanager.web.eventapp` serves the pages that
:mod:`~tmanager.web.eventpages` renders and the arbiter's actions
(:mod:`~tmanager.web.arbiteractions`), authenticated by
:mod:`~tmanager.web.arbiterauth` with :mod:`~tmanager.web.auth` (password hash,
sessions, login throttling).
"""
